//===- AssignPrecision.cpp - decide which ops compute in 16 bits ----------===//
#include "mp/Transforms/Passes.h"
#include "mp/Transforms/Functions.h"

#include "mp/Analysis/PrecisionAnalysis.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/ExternalModels/PrecisionModels.h"
#include "mp/Transforms/Annotations.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <memory>

namespace mp {
#define GEN_PASS_DEF_ASSIGNPRECISION
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// Whether `op` is a normalization of the train dialect or its gradient.
bool isNorm(Operation *op) {
  return op && isa<train::LayerNormOp, train::LayerNormGradOp,
                   train::RmsNormOp, train::RmsNormGradOp,
                   train::GroupNormOp, train::GroupNormGradOp,
                   train::BatchNormOp, train::BatchNormGradOp>(op);
}

/// Whether `add` is on a residual stream: two tensors of one shape, one of
/// them read by another op as well (the skip path), next to a
/// normalization (its result or an operand read or made by layer_norm,
/// rms_norm, group_norm, batch_norm or their gradients): the pre-norm
/// block's x + f(ln(x)), the post-norm LN(x + f(x)), ResNet's
/// bn(conv(.)) + x, and the same adds of the backward pass.
bool isResidualAdd(train::AddOp add) {
  if (add.getLhs().getType() != add.getRhs().getType() ||
      !isa<FloatType>(getElementTypeOrSelf(add.getLhs().getType())))
    return false;
  bool skip = false, norm = false;
  for (Value operand : {add.getLhs(), add.getRhs()}) {
    for (Operation *user : operand.getUsers()) {
      skip |= user != add.getOperation();
      norm |= isNorm(user);
    }
    norm |= isNorm(operand.getDefiningOp());
  }
  for (Operation *user : add->getUsers())
    norm |= isNorm(user);
  return skip && norm;
}

struct AssignPrecisionPass
    : public mp::impl::AssignPrecisionBase<AssignPrecisionPass> {
  using AssignPrecisionBase::AssignPrecisionBase;

  /// The precision models of the upstream ops come with the pass: a host
  /// that loads only mp's passes (mlir-opt --load-pass-plugin, a compiler
  /// that never calls registerPrecisionExternalModels) still paints linalg,
  /// arith, math, tensor and tosa ops. Registered twice, they apply once.
  void getDependentDialects(DialectRegistry &registry) const override {
    AssignPrecisionBase::getDependentDialects(registry);
    registerPrecisionExternalModels(registry);
  }

  /// The options and the policy file, checked once before any op is
  /// visited: an error names the option or the file entry, and not the
  /// input's module (which a diagnostic on it would print whole).
  LogicalResult initialize(MLIRContext *context) override {
    FailureOr<PrecisionPolicy> built = buildPolicy(context);
    if (failed(built))
      return failure();
    policy_ = std::make_shared<const PrecisionPolicy>(std::move(*built));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const PrecisionPolicy *policy = policy_.get();

    Type computeType = policy->getComputeType(&getContext());
    for (auto fn : functionsIn(module)) {
      if (fn.isExternal())
        continue;
      fn->setAttr(kPolicyAttrName,
                  StringAttr::get(&getContext(),
                                  PrecisionPolicy::stringifyKind(
                                      policy->getKind())));
      if (!computeType)
        continue; // float32: nothing to paint
      if (!llvm::hasSingleElement(fn.getFunctionBody())) {
        fn.emitWarning() << "not painted: mixed precision handles functions "
                            "of one block";
        continue;
      }
      llvm::SmallPtrSet<Operation *, 16> residualAdds;
      if (residual == "f32")
        fn.walk([&](train::AddOp add) {
          if (isResidualAdd(add))
            residualAdds.insert(add);
        });
      PrecisionAnalysis analysis(fn, *policy, &residualAdds);
      for (Operation *op : analysis.getNodes())
        setDecision(op, *analysis.lookup(op), computeType);
    }
  }

  /// The policy from the options and the policy file; errors name the bad
  /// option or file entry.
  FailureOr<PrecisionPolicy> buildPolicy(MLIRContext *context) {
    auto emitError = [&] { return mlir::emitError(UnknownLoc::get(context)); };
    std::vector<ListEdit> edits;
    if (!policyFile.empty()) {
      auto fromFile = PrecisionPolicy::readPolicyFile(policyFile);
      if (!fromFile) {
        emitError() << llvm::toString(fromFile.takeError());
        return failure();
      }
      edits = std::move(*fromFile);
    }
    if (residual != "low" && residual != "f32") {
      emitError() << "unknown residual mode '" << residual
                  << "' (expected low or f32)";
      return failure();
    }
    std::string kindName = policy, targetName = target;
    std::optional<PolicyKind> kind = PrecisionPolicy::parseKind(kindName);
    if (!kind) {
      emitError() << "unknown policy '" << kindName << "' (expected "
                  << policySpellings() << ")";
      return failure();
    }
    std::optional<PrecisionTarget> tgt =
        PrecisionPolicy::parseTarget(targetName);
    if (!tgt) {
      emitError() << "unknown target '" << targetName
                  << "' (expected cpu or cuda)";
      return failure();
    }

    auto addEdits = [&](const ListOption<std::string> &names,
                        PrecisionCategory category, bool add,
                        StringRef option) {
      for (const std::string &name : names)
        edits.push_back({category, add, name, ("option " + option).str()});
    };
    addEdits(allowAdd, PrecisionCategory::Allow, true, "allow-add");
    addEdits(allowRemove, PrecisionCategory::Allow, false, "allow-remove");
    addEdits(denyAdd, PrecisionCategory::Deny, true, "deny-add");
    addEdits(denyRemove, PrecisionCategory::Deny, false, "deny-remove");
    addEdits(inferAdd, PrecisionCategory::Infer, true, "infer-add");
    addEdits(inferRemove, PrecisionCategory::Infer, false, "infer-remove");
    addEdits(clearAdd, PrecisionCategory::Clear, true, "clear-add");
    addEdits(clearRemove, PrecisionCategory::Clear, false, "clear-remove");

    PrecisionPolicy result(*kind, *tgt);
    if (llvm::Error error = result.applyEdits(context, edits)) {
      emitError() << llvm::toString(std::move(error));
      return failure();
    }
    return result;
  }

  std::shared_ptr<const PrecisionPolicy> policy_;
};

} // namespace
