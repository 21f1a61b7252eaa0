//===- TrainDialect.cpp - train dialect -----------------------------------===//
#include "mp/Dialect/Train/IR/TrainDialect.h"
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mp::train;

#include "mp/Dialect/Train/IR/TrainDialect.cpp.inc"

void TrainDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mp/Dialect/Train/IR/TrainOps.cpp.inc"
      >();
}

Operation *TrainDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult TrainDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  if (attr.getName() == kStepAttrName) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn)
      return op->emitError() << "'" << kStepAttrName
                             << "' is only valid on functions";
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << kStepAttrName
                             << "' must be a unit attribute";
    return verifyTrainStep(fn);
  }
  if (attr.getName() == kRoleAttrName || attr.getName() == kNameAttrName ||
      attr.getName() == kFrozenAttrName)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is only valid on function arguments and "
                              "results";
  return op->emitError() << "unknown train dialect attribute '"
                         << attr.getName().getValue() << "'";
}

/// Shared checks of `train.role` / `train.name` on an argument or a result.
static LogicalResult verifyRoleAttr(Operation *op, NamedAttribute attr,
                                    bool isArg, unsigned index) {
  const char *what = isArg ? "argument #" : "result #";
  if (attr.getName() == TrainDialect::kNameAttrName) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.getValue().empty())
      return op->emitError() << what << index << ": '"
                             << TrainDialect::kNameAttrName
                             << "' must be a non-empty string";
    return success();
  }
  if (attr.getName() == TrainDialect::kFrozenAttrName) {
    if (!isArg || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << what << index << ": '"
                             << TrainDialect::kFrozenAttrName
                             << "' is a unit attribute of buffer arguments";
    return success();
  }
  if (attr.getName() != TrainDialect::kRoleAttrName)
    return op->emitError() << what << index
                           << ": unknown train dialect attribute '"
                           << attr.getName().getValue() << "'";
  auto str = dyn_cast<StringAttr>(attr.getValue());
  std::optional<Role> role = str ? parseRole(str.getValue()) : std::nullopt;
  if (!role)
    return op->emitError() << what << index << ": unknown role "
                           << attr.getValue() << " (expected one of "
                           << mp::spellingsOf<Role>(getMaxEnumValForRole(),
                                                    stringifyRole)
                           << ")";
  if (isArg && !isValidArgRole(*role))
    return op->emitError() << what << index << ": role '"
                           << str.getValue()
                           << "' is only valid on results";
  if (!isArg && !isValidResultRole(*role))
    return op->emitError() << what << index << ": role '"
                           << str.getValue()
                           << "' is only valid on arguments";
  return success();
}

LogicalResult TrainDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  return verifyRoleAttr(op, attr, /*isArg=*/true, argIndex);
}

LogicalResult TrainDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned,
                                                        unsigned resultIndex,
                                                        NamedAttribute attr) {
  return verifyRoleAttr(op, attr, /*isArg=*/false, resultIndex);
}
