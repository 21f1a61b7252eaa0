//===- PlanBuilder.cpp - lower a training step to an executable plan ------===//
#include "mp/Target/Plan/PlanBuilder.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/Transforms/Annotations.h"
#include "mp/runtime/Plan.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mp;

static std::optional<rt::DType> dtypeOf(Type element) {
  if (element.isF32())
    return rt::DType::F32;
  if (element.isBF16())
    return rt::DType::BF16;
  if (element.isF16())
    return rt::DType::F16;
  if (element.isInteger(1))
    return rt::DType::I1;
  if (element.isInteger(32))
    return rt::DType::I32;
  if (element.isInteger(64))
    return rt::DType::I64;
  return std::nullopt;
}

static rt::TensorKind kindOf(train::Role role) {
  switch (role) {
  case train::Role::Param:
    return rt::TensorKind::Param;
  case train::Role::OptState:
    return rt::TensorKind::OptState;
  case train::Role::Buffer:
    return rt::TensorKind::Buffer;
  case train::Role::ScalerState:
    return rt::TensorKind::ScalerState;
  case train::Role::Input:
    return rt::TensorKind::Input;
  case train::Role::Label:
    return rt::TensorKind::Label;
  case train::Role::Loss:
  case train::Role::Output:
  case train::Role::Check:
    break;
  }
  llvm_unreachable("not an argument role");
}

static rt::ResultRole resultRoleOf(train::Role role) {
  switch (role) {
  case train::Role::Loss:
    return rt::ResultRole::Loss;
  case train::Role::Param:
    return rt::ResultRole::Param;
  case train::Role::OptState:
    return rt::ResultRole::OptState;
  case train::Role::Buffer:
    return rt::ResultRole::Buffer;
  case train::Role::ScalerState:
    return rt::ResultRole::ScalerState;
  case train::Role::Output:
    return rt::ResultRole::Output;
  case train::Role::Check:
    return rt::ResultRole::Check;
  case train::Role::Input:
  case train::Role::Label:
    break;
  }
  llvm_unreachable("not a result role");
}

namespace {

class PlanBuilder {
public:
  PlanBuilder(FunctionOpInterface step, const PlanOptions &options)
      : step(step), options(options) {
    for (size_t i = 0; i < rt::kNumOps; ++i)
      if (rt::isKernelOp(static_cast<rt::OpId>(i)))
        supported.insert(rt::opName(static_cast<rt::OpId>(i)));
  }

  FailureOr<rt::Plan> build() {
    if (!train::isTrainStep(step))
      return step.emitOpError() << "is not a training step ('train.step')";
    if (step.isExternal() || !llvm::hasSingleElement(step.getFunctionBody()))
      return step.emitOpError()
             << "must have a body of exactly one block to become a plan";
    if (auto policy = step->getAttrOfType<StringAttr>(kPolicyAttrName))
      plan.policy = policy.getValue().str();
    else
      plan.policy = stringifyPolicyKind(PolicyKind::Float32).str();

    Block &body = step.getFunctionBody().front();
    Operation *terminator = body.getTerminator();
    if (failed(addArguments(body)))
      return failure();

    // The evaluation plan keeps only what the loss and the logits need.
    llvm::SetVector<Operation *> needed;
    Value logits;
    if (options.evaluation && failed(collectForward(terminator, needed,
                                                    logits)))
      return failure();

    for (Operation &op : body.without_terminator()) {
      if (options.evaluation && !needed.contains(&op))
        continue;
      // Evaluation runs dropout as the identity (PyTorch's eval()), and a
      // gradient marker is the identity: the result is its input's tensor.
      if (((options.evaluation && isa<train::DropoutOp>(op)) ||
           isa<train::GradientOp>(op)) &&
          ids.count(op.getOperand(0))) {
        uint32_t id = ids.lookup(op.getOperand(0));
        ids[op.getResult(0)] = id;
        continue;
      }
      if (failed(addOp(&op)))
        return failure();
    }
    if (failed(addResults(terminator, logits)))
      return failure();

    rt::layOutPlan(plan);
    rt::Status valid = plan.validate();
    if (!valid.isOk())
      return step.emitOpError() << "produced an invalid plan: "
                                << valid.message();
    return std::move(plan);
  }

private:
  /// A tensor for `value`; fails with a located error for types the
  /// runtime cannot hold.
  FailureOr<uint32_t> addTensor(Value value, rt::TensorKind kind,
                                std::string name, Location loc) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return emitError(loc) << "the runtime needs static-shape tensors, got "
                            << value.getType();
    std::optional<rt::DType> dtype = dtypeOf(type.getElementType());
    if (!dtype)
      return emitError(loc) << "the runtime has no element type "
                            << type.getElementType();
    rt::TensorDesc desc;
    desc.kind = kind;
    desc.dtype = *dtype;
    desc.shape.assign(type.getShape().begin(), type.getShape().end());
    desc.name = std::move(name);
    uint32_t id = plan.tensors.size();
    plan.tensors.push_back(std::move(desc));
    ids[value] = id;
    return id;
  }

  LogicalResult addArguments(Block &body) {
    unsigned inputs = 0, labels = 0;
    llvm::StringSet<> names;
    for (unsigned i = 0, e = step.getNumArguments(); i < e; ++i) {
      train::Role role = *train::getArgRole(step, i);
      std::string name = train::getArgName(step, i).str();
      if (role == train::Role::Input && name.empty())
        name = "input" + std::to_string(inputs++);
      else if (role == train::Role::Label && name.empty())
        name = "label" + std::to_string(labels++);
      Location loc = body.getArgument(i).getLoc();
      if (!names.insert(name).second)
        return emitError(loc) << "two arguments of the step are named '"
                              << name
                              << "'; plan and checkpoint names must be unique";
      auto id = addTensor(body.getArgument(i), kindOf(role), name, loc);
      if (failed(id))
        return failure();
      if (auto whole =
              step.getArgAttrOfType<DenseI64ArrayAttr>(i, kShardOfAttrName)) {
        plan.tensors[*id].sharded = true;
        plan.tensors[*id].wholeShape.assign(whole.asArrayRef().begin(),
                                            whole.asArrayRef().end());
      }
      if (role == train::Role::ScalerState) {
        Attribute initial = step.getArgAttr(i, kInitialValueAttrName);
        if (auto f = dyn_cast_or_null<FloatAttr>(initial))
          plan.tensors[*id].initialValue = f.getValueAsDouble();
        else if (auto n = dyn_cast_or_null<IntegerAttr>(initial))
          plan.tensors[*id].initialValue = n.getValue().getSExtValue();
      }
    }
    return success();
  }

  /// The ops the loss depends on, and the logits of the loss op.
  LogicalResult collectForward(Operation *terminator,
                               llvm::SetVector<Operation *> &needed,
                               Value &logits) {
    Value loss;
    for (unsigned i = 0, e = step.getNumResults(); i < e; ++i)
      if (train::getResultRole(step, i) == train::Role::Loss)
        loss = terminator->getOperand(i);
    // The loss op's prediction is the output "logits" (for the pointwise
    // losses: the predictions or the binary logits).
    Operation *lossOp = loss.getDefiningOp();
    if (auto ce = dyn_cast_or_null<train::SparseCrossEntropyOp>(lossOp))
      logits = ce.getLogits();
    else if (lossOp && isa<train::MseLossOp, train::BceWithLogitsLossOp,
                           train::HuberLossOp>(lossOp))
      logits = lossOp->getOperand(0);
    else
      return step.emitOpError()
             << "an evaluation plan needs the loss to come from a loss op "
                "(train.sparse_cross_entropy, mse_loss, bce_with_logits_loss, "
                "huber_loss: its prediction is the output 'logits')";
    SmallVector<Value> work{loss, logits};
    while (!work.empty()) {
      Operation *op = work.pop_back_val().getDefiningOp();
      if (!op || !needed.insert(op))
        continue;
      for (Value operand : op->getOperands())
        work.push_back(operand);
    }
    return success();
  }

  /// Appends the bytes of a constant to the plan's blob.
  LogicalResult addConstant(Operation *op, Value value, ElementsAttr data) {
    auto id = addTensor(value, rt::TensorKind::Constant, "", op->getLoc());
    if (failed(id))
      return failure();
    rt::TensorDesc &desc = plan.tensors[*id];
    uint64_t offset = (plan.constants.size() + 63) / 64 * 64;
    plan.constants.resize(offset);
    desc.offset = offset;
    auto dense = dyn_cast<DenseElementsAttr>(data);
    if (!dense)
      return op->emitOpError() << "has a constant the runtime cannot hold "
                                  "(only dense elements)";
    size_t elementSize = rt::dtypeSize(desc.dtype);
    int64_t count = desc.numElements();
    plan.constants.resize(offset + count * elementSize);
    uint8_t *out = plan.constants.data() + offset;
    auto store = [&](int64_t i, uint64_t bits) {
      std::memcpy(out + i * elementSize, &bits, elementSize); // little endian
    };
    if (isa<FloatType>(dense.getElementType())) {
      auto values = dense.getValues<APFloat>();
      for (int64_t i = 0; i < count; ++i)
        store(i, values[dense.isSplat() ? 0 : i].bitcastToAPInt()
                     .getZExtValue());
    } else {
      auto values = dense.getValues<APInt>();
      for (int64_t i = 0; i < count; ++i)
        store(i, values[dense.isSplat() ? 0 : i].getZExtValue());
    }
    return success();
  }

  /// An attribute as the runtime sees it, or failure.
  FailureOr<rt::Attr> convertAttr(Operation *op, StringRef name,
                                  Attribute attr) {
    rt::Attr out;
    if (isa<UnitAttr>(attr)) {
      out.ints = {1};
    } else if (auto b = dyn_cast<BoolAttr>(attr)) {
      out.ints = {b.getValue()};
    } else if (auto i = dyn_cast<IntegerAttr>(attr)) {
      // The train dialect's enums are integer attributes: give kernels
      // their spelling, the op table's case of that value (mp-tblgen
      // checks that enums are numbered 0, 1, ...).
      const rt::AttrSchema *schema = rt::findAttrSchema(
          rt::findOp(op->getName().getStringRef()), name);
      int64_t value = i.getValue().getSExtValue();
      if (schema && schema->enumCases) {
        if (value < 0 || static_cast<size_t>(value) >= schema->numEnumCases)
          return op->emitOpError() << "has attribute '" << name
                                   << "' with no case " << value;
        out.kind = rt::Attr::Kind::String;
        out.str = schema->enumCases[value];
      } else {
        out.ints = {value};
      }
    } else if (auto f = dyn_cast<FloatAttr>(attr)) {
      out.kind = rt::Attr::Kind::Floats;
      out.floats = {f.getValueAsDouble()};
    } else if (auto array = dyn_cast<DenseI64ArrayAttr>(attr)) {
      out.ints.assign(array.asArrayRef().begin(), array.asArrayRef().end());
    } else if (auto str = dyn_cast<StringAttr>(attr)) {
      out.kind = rt::Attr::Kind::String;
      out.str = str.getValue().str();
    } else {
      return op->emitOpError() << "has attribute '" << name
                               << "' that the runtime cannot take: " << attr;
    }
    return out;
  }

  LogicalResult addOp(Operation *op) {
    Attribute constant;
    if (op->getNumResults() == 1 &&
        matchPattern(op->getResult(0), m_Constant(&constant)))
      if (auto elements = dyn_cast<ElementsAttr>(constant))
        return addConstant(op, op->getResult(0), elements);

    StringRef opName = op->getName().getStringRef();
    if (!supported.contains(opName))
      return op->emitOpError() << "has no runtime kernel";
    if (op->getNumRegions() != 0)
      return op->emitOpError() << "has regions, which plans cannot hold";

    rt::KernelDesc kernel;
    kernel.op = opName.str();
    for (Value operand : op->getOperands()) {
      auto it = ids.find(operand);
      if (it == ids.end())
        return op->emitOpError() << "reads a value the plan does not have";
      kernel.inputs.push_back(it->second);
    }
    for (Value result : op->getResults()) {
      auto id = addTensor(result, rt::TensorKind::Scratch, "", op->getLoc());
      if (failed(id))
        return failure();
      kernel.outputs.push_back(*id);
    }
    // Every attribute, defaults included, except dialect annotations and
    // the variadic operand bookkeeping.
    NamedAttrList attrs(op->getAttrDictionary());
    if (std::optional<RegisteredOperationName> info = op->getRegisteredInfo())
      info->populateDefaultAttrs(attrs);
    for (NamedAttribute attr : attrs) {
      StringRef name = attr.getName().getValue();
      if (name.contains('.') || name == "operandSegmentSizes" ||
          name == "resultSegmentSizes")
        continue;
      auto converted = convertAttr(op, name, attr.getValue());
      if (failed(converted))
        return failure();
      kernel.attrs[name.str()] = std::move(*converted);
    }
    kernel.location = describeLocation(op->getLoc());
    kernel.precision = describeDecision(op);
    plan.kernels.push_back(std::move(kernel));
    return success();
  }

  /// The first file:line:col in `loc` (an exporter's location of the
  /// user's line, possibly under a name or a call site), else the whole
  /// location as MLIR prints it; "" when unknown.
  static std::string describeLocation(Location loc) {
    std::string out;
    loc->walk([&](Location inner) {
      if (auto file = dyn_cast<FileLineColLoc>(inner)) {
        out = (file.getFilename().strref() + ":" + Twine(file.getLine()) +
               ":" + Twine(file.getColumn()))
                  .str();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (out.empty() && !isa<UnknownLoc>(loc)) {
      llvm::raw_string_ostream os(out);
      loc.print(os);
    }
    return out;
  }

  /// The pipeline's decision on `op` (its mp.precision annotation) as one
  /// line: "f16 allow (rule allow, source default)"; "" when it has none.
  static std::string describeDecision(Operation *op) {
    auto dict = op->getAttrOfType<DictionaryAttr>(kPrecisionAttrName);
    if (!dict)
      return "";
    std::string out;
    llvm::raw_string_ostream os(out);
    if (auto dtype = dict.getAs<TypeAttr>("dtype"))
      os << dtype.getValue() << " ";
    auto text = [&](StringRef key) {
      auto value = dict.getAs<StringAttr>(key);
      return value ? value.getValue() : StringRef("?");
    };
    os << text("category") << " (rule " << text("rule") << ", source "
       << text("source") << ")";
    return out;
  }

  LogicalResult addResults(Operation *terminator, Value logits) {
    // Arguments were added first, so argument i is tensor i.
    SmallVector<int> updatedArgument = train::getUpdatedArguments(step);
    auto valueId = [&](Value v) -> FailureOr<uint32_t> {
      auto it = ids.find(v);
      if (it == ids.end())
        return terminator->emitOpError()
               << "returns a value the plan does not have";
      return it->second;
    };
    for (unsigned i = 0, e = step.getNumResults(); i < e; ++i) {
      train::Role role = *train::getResultRole(step, i);
      if (options.evaluation && role != train::Role::Loss)
        continue;
      auto value = valueId(terminator->getOperand(i));
      if (failed(value))
        return failure();
      rt::ResultDesc result;
      result.role = resultRoleOf(role);
      result.value = *value;
      result.name = train::getResultName(step, i).str();
      if (train::isPersistent(role))
        result.state = updatedArgument[i] >= 0
                           ? static_cast<uint32_t>(updatedArgument[i])
                           : UINT32_MAX;
      else if (role == train::Role::Loss)
        result.name = "loss";
      else if (result.name.empty())
        result.name = "output" + std::to_string(i);
      plan.results.push_back(std::move(result));
    }
    if (options.evaluation) {
      auto value = valueId(logits);
      if (failed(value))
        return failure();
      plan.results.push_back(
          {rt::ResultRole::Output, *value, UINT32_MAX, "logits"});
    }
    // Output names are how callers read results: they must be unique, and
    // distinct from the names the plan builder gives ("loss", "logits",
    // "all_finite") and from tensor names.
    llvm::StringSet<> names;
    for (const rt::TensorDesc &tensor : plan.tensors)
      if (!tensor.name.empty())
        names.insert(tensor.name);
    for (const rt::ResultDesc &result : plan.results)
      if (result.role == rt::ResultRole::Output ||
          result.role == rt::ResultRole::Loss) {
        if (!names.insert(result.name).second ||
            result.name == stringifyScalerTensor(ScalerTensor::AllFinite) ||
            (options.evaluation && result.name == "logits" &&
             &result != &plan.results.back()))
          return terminator->emitOpError()
                 << "returns two values named '" << result.name
                 << "' (result names must be unique and not 'loss', "
                    "'logits' or 'all_finite')";
      }
    // The loss scaler's verdict, for the session's statistics.
    // Under ZeRO-1, every rank's verdict combined (train.all_ranks).
    for (auto check : step.getFunctionBody().getOps<mpd::UnscaleAndCheckOp>()) {
      Value verdict = check.getAllFinite();
      for (Operation *user : verdict.getUsers())
        if (auto all = dyn_cast<train::AllRanksOp>(user))
          verdict = all.getResult();
      if (ids.count(verdict))
        plan.results.push_back(
            {rt::ResultRole::Output, ids[verdict], UINT32_MAX,
             stringifyScalerTensor(ScalerTensor::AllFinite).str()});
    }
    return success();
  }

  FunctionOpInterface step;
  PlanOptions options;
  rt::Plan plan;
  llvm::DenseMap<Value, uint32_t> ids;
  llvm::StringSet<> supported; ///< ops plans run (the runtime's op table)
};

} // namespace

FailureOr<rt::Plan> mp::buildPlan(FunctionOpInterface step,
                                  const PlanOptions &options) {
  return PlanBuilder(step, options).build();
}
