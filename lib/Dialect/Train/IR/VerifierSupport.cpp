//===- VerifierSupport.cpp - checks shared by the train op verifiers -----===//
#include "VerifierSupport.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;
using namespace mp::train;

std::string verify::shapeStr(ArrayRef<int64_t> shape) {
  std::string out = "[";
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(shape, os);
  os << "]";
  return out;
}

std::string verify::num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

ArrayRef<int64_t> verify::shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}
Type verify::elementOf(Value v) { return getElementTypeOrSelf(v.getType()); }

LogicalResult verify::checkShape(Operation *op, StringRef what,
                                ArrayRef<int64_t> expected, Value actual) {
  if (shapeOf(actual) == expected)
    return success();
  return op->emitOpError() << "expects " << what << " of shape "
                           << shapeStr(expected) << " but got "
                           << shapeStr(shapeOf(actual));
}

LogicalResult verify::checkRank(Operation *op, StringRef what, Value v,
                               int64_t rank) {
  if (static_cast<int64_t>(shapeOf(v).size()) == rank)
    return success();
  return op->emitOpError() << "expects " << what << " of rank " << rank
                           << " but got rank " << shapeOf(v).size();
}

LogicalResult verify::checkSameElementType(Operation *op, StringRef a, Value va,
                                          StringRef b, Value vb) {
  if (elementOf(va) == elementOf(vb))
    return success();
  return op->emitOpError() << "expects " << a << " and " << b
                           << " to have the same element type but got "
                           << elementOf(va) << " and " << elementOf(vb);
}

LogicalResult verify::checkAccumulatorType(Operation *op, Value input,
                                          Value result) {
  Type in = elementOf(input), out = elementOf(result);
  if (in == out || out.isF32())
    return success();
  if (in.isF32())
    return op->emitOpError() << "expects an f32 result (never narrower than "
                                "the f32 input) but got "
                             << out;
  auto diag = op->emitOpError() << "expects a result element type of " << in;
  return diag << " or f32 (never narrower than the input) but got " << out;
}

FailureOr<int64_t> verify::resolveDim(Operation *op, StringRef what,
                                     int64_t dim, int64_t rank) {
  int64_t resolved = dim < 0 ? dim + rank : dim;
  if (resolved < 0 || resolved >= rank)
    return op->emitOpError() << what << " " << dim
                             << " is out of range for rank " << rank;
  return resolved;
}

LogicalResult verify::checkArray(Operation *op, StringRef what,
                                ArrayRef<int64_t> values, size_t size,
                                int64_t min) {
  if (values.size() != size)
    return op->emitOpError() << "expects '" << what << "' to have " << size
                             << " entries but got " << values.size();
  for (int64_t v : values)
    if (v < min)
      return op->emitOpError() << "expects every '" << what
                               << "' entry to be >= " << min << " but got "
                               << v;
  return success();
}
