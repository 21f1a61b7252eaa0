//===- MPDialect.cpp - mp dialect -----------------------------------------===//
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/IR/Vocabulary.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mp::mpd;

#include "mp/Dialect/MP/IR/MPDialect.cpp.inc"

void MPDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mp/Dialect/MP/IR/MPOps.cpp.inc"
      >();
}

LogicalResult MPDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == "mp.force") {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value || (value.getValue() != "low" && value.getValue() != "fp32"))
      return op->emitError() << "'mp.force' must be \"low\" or \"fp32\", got "
                             << attr.getValue();
    return success();
  }
  if (name == "mp.policy") {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value || !symbolizePolicyKind(value.getValue()))
      return op->emitError() << "'mp.policy' must name a policy, got "
                             << attr.getValue();
    return success();
  }
  if (name == "mp.precision") {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !dict.getAs<TypeAttr>("dtype") ||
        !dict.getAs<StringAttr>("category") ||
        !dict.getAs<StringAttr>("rule") || !dict.getAs<StringAttr>("source"))
      return op->emitError() << "'mp.precision' must be a dictionary with "
                                "category, dtype, rule and source";
    return success();
  }
  if (name == "mp.grad_seed" || name == "mp.sync_batch_norm") {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a unit attribute";
    return success();
  }
  return op->emitError() << "unknown mp dialect attribute '" << name << "'";
}

/// The unit attributes of an upstream step's loss-scaling interface, on
/// arguments (`isArg`) or results.
static bool isInterfaceMarker(StringRef name, bool isArg) {
  if (isArg)
    return name == "mp.grad_seed" || name == "mp.loss_scale" ||
           name == "mp.growth_count";
  return name == "mp.gradient" || name == "mp.all_finite" ||
         name == "mp.loss_scale" || name == "mp.growth_count";
}

LogicalResult MPDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  if (attr.getName() == "mp.initial_value") {
    if (!isa<FloatAttr, IntegerAttr>(attr.getValue()))
      return op->emitError() << "argument #" << argIndex
                             << ": 'mp.initial_value' must be a number";
    return success();
  }
  if (attr.getName() == "mp.shard_of") {
    // The whole shape of a ZeRO-1 shard (mp-data-parallel zero1).
    auto shape = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!shape ||
        llvm::any_of(shape.asArrayRef(), [](int64_t d) { return d < 0; }))
      return op->emitError() << "argument #" << argIndex
                             << ": 'mp.shard_of' must be a shape "
                                "(array<i64: ...>, no negative dimension)";
    return success();
  }
  if (isInterfaceMarker(attr.getName().getValue(), /*isArg=*/true)) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "argument #" << argIndex << ": '"
                             << attr.getName().getValue()
                             << "' is a unit attribute";
    return success();
  }
  return op->emitError() << "argument #" << argIndex
                         << ": unknown mp dialect attribute '"
                         << attr.getName().getValue() << "'";
}

LogicalResult MPDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  if (isInterfaceMarker(attr.getName().getValue(), /*isArg=*/false)) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "result #" << resultIndex << ": '"
                             << attr.getName().getValue()
                             << "' is a unit attribute";
    return success();
  }
  return op->emitError() << "result #" << resultIndex
                         << ": unknown mp dialect attribute '"
                         << attr.getName().getValue() << "'";
}
