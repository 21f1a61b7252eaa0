//===- InsertCasts.cpp - give painted ops their dtype ---------------------===//
#include "mp/Transforms/Passes.h"
#include "mp/Transforms/Functions.h"

#include "mp/Analysis/PrecisionAnalysis.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Transforms/Annotations.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mp {
#define GEN_PASS_DEF_INSERTCASTS
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

/// `type` with its element type replaced by `element`.
static Type withElementType(Type type, Type element) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(element);
  return element;
}


namespace {

/// Rewrites one function body. Values are retyped in place as their
/// producers are visited (block order: producers first), and each use reads
/// the value through a shared cast where its type differs from what the
/// user needs.
class CastInserter {
public:
  explicit CastInserter(Region &body) : body(body) {}

  void run() {
    Block &block = body.front();
    // Casts are created before the op being visited (right after the
    // values they convert), so the iteration never meets them.
    for (Operation &original : llvm::make_early_inc_range(block)) {
      Type low = getDecidedType(&original);
      if (low && low.isF32())
        low = {};
      Operation *op = fixOperands(&original, low);
      // Ops nested in regions keep their types; their uses of outer values
      // see the original types. (A rebuilt op has fresh, correct regions.)
      if (op == &original)
        op->walk([&](Operation *nested) {
          if (nested != op)
            fixOperands(nested, Type());
        });
      if (low && !op->hasTrait<mlir::OpTrait::ConstantLike>())
        retypeResults(op, low);
    }
  }

private:
  Type originalType(Value v) const {
    auto it = original.find(v);
    return it == original.end() ? v.getType() : it->second;
  }

  /// Gives `op` the operands it needs; returns the op that replaces it
  /// when its interface had to rebuild it.
  Operation *fixOperands(Operation *op, Type low) {
    SmallVector<Value> operands;
    bool replaced = false, retyped = false;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      Type wanted = originalType(v);
      if (low && isOperandConvertible(op, operand.getOperandNumber()) &&
          getElementTypeOrSelf(wanted).isF32())
        wanted = withElementType(wanted, low);
      if (v.getType() != wanted) {
        v = convert(v, wanted);
        replaced = true;
      }
      // The op sees a new type, also when the value was retyped in place.
      retyped |= v.getType() != originalType(operand.get());
      operands.push_back(v);
    }
    if (!replaced && !retyped)
      return op;
    if (auto iface = dyn_cast<PrecisionOpInterface>(op); iface && retyped) {
      OpBuilder builder(op);
      if (Operation *rebuilt = iface.rebuildWithOperands(builder, operands)) {
        rebuilt->setDiscardableAttrs(op->getDiscardableAttrDictionary());
        // The rebuilt op may already produce 16-bit results (their type
        // follows a converted init): its users still expect the old type.
        for (auto [before, after] :
             llvm::zip(op->getResults(), rebuilt->getResults()))
          if (before.getType() != after.getType())
            original[after] = originalType(before);
        op->replaceAllUsesWith(rebuilt);
        op->erase();
        return rebuilt;
      }
    }
    op->setOperands(operands);
    return op;
  }

  void retypeResults(Operation *op, Type low) {
    for (OpResult result : op->getResults()) {
      if (!isResultConvertible(op, result.getResultNumber()) ||
          !getElementTypeOrSelf(result.getType()).isF32())
        continue;
      original[result] = result.getType();
      result.setType(withElementType(result.getType(), low));
    }
  }

  /// `v` as a value of type `type`: a folded constant or a shared cast
  /// placed right after `v`'s definition.
  Value convert(Value v, Type type) {
    auto key = std::make_pair(v, type);
    if (auto it = converted.find(key); it != converted.end())
      return it->second;
    OpBuilder builder(v.getContext());
    // Casts of block arguments go after the ones made before them, so they
    // come out in argument order.
    auto arg = dyn_cast<BlockArgument>(v);
    if (arg && lastArgCast && lastArgCast->getBlock() == arg.getOwner())
      builder.setInsertionPointAfter(lastArgCast);
    else
      builder.setInsertionPointAfterValue(v);
    Value result = foldConstant(builder, v, type);
    if (!result)
      result = recreateEmpty(builder, v, type);
    if (!result)
      result = mpd::CastOp::create(builder, v.getLoc(), type, v);
    if (arg)
      lastArgCast = result.getDefiningOp();
    converted[key] = result;
    return result;
  }

  /// A constant of type `type` with `v`'s values rounded, made by `v`'s own
  /// dialect, when `v` is a float constant.
  Value foldConstant(OpBuilder &builder, Value v, Type type) {
    DenseFPElementsAttr values;
    Operation *producer = v.getDefiningOp();
    auto tensorType = dyn_cast<RankedTensorType>(type);
    // A marked seed stays the op loss scaling scales: its users read it
    // through a cast.
    if (!producer || !tensorType || producer->hasAttr(kGradSeedAttrName) ||
        !matchPattern(v, m_Constant(&values)))
      return {};
    auto element = cast<FloatType>(tensorType.getElementType());
    if (!constantFits(values, element))
      emitWarning(v.getLoc())
          << "converting a constant that does not fit " << element
          << " gives inf or 0; mark its 16-bit user mp.force = \"fp32\" to "
             "keep it exact";
    Attribute rounded = values.mapValues(
        element, [&](const APFloat &value) {
          APFloat copy = value;
          bool losesInfo;
          copy.convert(element.getFloatSemantics(),
                       APFloat::rmNearestTiesToEven, &losesInfo);
          return copy.bitcastToAPInt();
        });
    Operation *constant = producer->getDialect()->materializeConstant(
        builder, rounded, type, v.getLoc());
    return constant ? constant->getResult(0) : Value();
  }

  /// A pure producer without operands or regions (tensor.empty) made anew
  /// with the wanted type: there is nothing to convert.
  Value recreateEmpty(OpBuilder &builder, Value v, Type type) {
    Operation *producer = v.getDefiningOp();
    if (!producer || producer->getNumOperands() != 0 ||
        producer->getNumRegions() != 0 || producer->getNumResults() != 1 ||
        producer->hasTrait<mlir::OpTrait::ConstantLike>() ||
        !isMemoryEffectFree(producer))
      return {};
    Operation *copy = builder.clone(*producer);
    copy->removeAttr(kPrecisionAttrName); // the copy was not painted
    copy->getResult(0).setType(type);
    if (failed(verify(copy))) {
      copy->erase();
      return {};
    }
    return copy->getResult(0);
  }

  Region &body;
  llvm::DenseMap<Value, Type> original;
  llvm::DenseMap<std::pair<Value, Type>, Value> converted;
  Operation *lastArgCast = nullptr;
};

struct InsertCastsPass : public mp::impl::InsertCastsBase<InsertCastsPass> {
  void runOnOperation() override {
    for (auto fn : functionsIn(getOperation()))
      if (!fn.isExternal() && llvm::hasSingleElement(fn.getFunctionBody()))
        CastInserter(fn.getFunctionBody()).run();
  }
};

} // namespace
