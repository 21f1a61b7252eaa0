//===- ShapeOps.cpp - verifiers of embedding, gather, shape ops, constants ===//
//
// Shapes of gathers, reshapes, transposes, broadcasts, slices, concats and
// pads; constants and fills fit their element type.
//
//===----------------------------------------------------------------------===//
#include "VerifierSupport.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;
using namespace mp::train;
using namespace mp::train::verify;

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// Checks a [V, D] table against indices [I...] and rows [I..., D].
static LogicalResult verifyEmbedding(Operation *op, Value table, Value indices,
                                     Value rows) {
  if (failed(checkRank(op, "a table", table, 2)))
    return failure();
  SmallVector<int64_t> expected(shapeOf(indices));
  expected.push_back(shapeOf(table)[1]);
  return checkShape(op, "gathered rows", expected, rows);
}

LogicalResult EmbeddingOp::verify() {
  if (failed(checkSameElementType(*this, "table", getTable(), "result",
                                  getResult())))
    return failure();
  return verifyEmbedding(*this, getTable(), getIndices(), getResult());
}
LogicalResult EmbeddingGradOp::verify() {
  if (failed(checkAccumulatorType(*this, getGrad(), getResult())))
    return failure();
  return verifyEmbedding(*this, getResult(), getIndices(), getGrad());
}

/// Checks `axis` of x [A..., N, B...] against indices [I...] and the
/// gathered [A..., I..., B...].
static LogicalResult verifyGather(Operation *op, int64_t axis, Value x,
                                  Value indices, Value gathered) {
  ArrayRef<int64_t> shape = shapeOf(x);
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    return op->emitOpError() << "gathers along axis " << axis << " of a rank-"
                             << shape.size() << " tensor";
  SmallVector<int64_t> expected(shape.begin(), shape.begin() + axis);
  llvm::append_range(expected, shapeOf(indices));
  expected.append(shape.begin() + axis + 1, shape.end());
  return checkShape(op, "gathered slices", expected, gathered);
}

LogicalResult GatherOp::verify() {
  return verifyGather(*this, static_cast<int64_t>(getAxis()), getX(),
                      getIndices(), getResult());
}
LogicalResult GatherGradOp::verify() {
  if (failed(checkAccumulatorType(*this, getGrad(), getResult())))
    return failure();
  return verifyGather(*this, static_cast<int64_t>(getAxis()), getResult(),
                      getIndices(), getGrad());
}

//===----------------------------------------------------------------------===//
// Shape ops and constants
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (failed(checkSameElementType(*this, "x", getX(), "result", getResult())))
    return failure();
  auto in = cast<ShapedType>(getX().getType());
  auto out = cast<ShapedType>(getResult().getType());
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "cannot reshape " << in.getNumElements()
                         << " elements into " << out.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  if (failed(checkSameElementType(*this, "x", getX(), "result", getResult())))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getX());
  ArrayRef<int64_t> perm = getPermutation();
  if (perm.size() != in.size())
    return emitOpError() << "expects a permutation of " << in.size()
                         << " dimensions but got " << perm.size();
  llvm::SmallBitVector seen(in.size());
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || seen.test(p))
      return emitOpError() << "'permutation' is not a permutation of [0, "
                           << in.size() << ")";
    seen.set(p);
    expected.push_back(in[p]);
  }
  return checkShape(*this, "a result", expected, getResult());
}

LogicalResult BroadcastOp::verify() {
  if (failed(checkSameElementType(*this, "x", getX(), "result", getResult())))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getX()), out = shapeOf(getResult());
  ArrayRef<int64_t> dims = getDims();
  if (dims.size() != in.size())
    return emitOpError() << "expects one entry in 'dims' per operand "
                            "dimension ("
                         << in.size() << ") but got " << dims.size();
  int64_t previous = -1;
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim <= previous || dim >= static_cast<int64_t>(out.size()))
      return emitOpError() << "expects 'dims' strictly increasing and below "
                           << out.size();
    previous = dim;
    if (in[i] != 1 && in[i] != out[dim])
      return emitOpError() << "cannot broadcast dimension " << i
                           << " of size " << in[i] << " to size " << out[dim];
  }
  return success();
}

LogicalResult SliceOp::verify() {
  if (failed(checkSameElementType(*this, "x", getX(), "result", getResult())))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getX()), out = shapeOf(getResult());
  if (failed(checkRank(*this, "a result", getResult(), in.size())) ||
      failed(checkArray(*this, "offsets", getOffsets(), in.size(), 0)))
    return failure();
  SmallVector<int64_t> strides(in.size(), 1);
  if (std::optional<ArrayRef<int64_t>> given = getStrides()) {
    if (failed(checkArray(*this, "strides", *given, in.size(), 1)))
      return failure();
    strides.assign(given->begin(), given->end());
  }
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t offset = getOffsets()[i];
    if (offset > in[i])
      return emitOpError() << "offset " << offset << " of dimension " << i
                           << " is past its size " << in[i];
    if (out[i] == 0)
      continue;
    std::optional<int64_t> last = llvm::checkedMul(out[i] - 1, strides[i]);
    if (last)
      last = llvm::checkedAdd(*last, offset);
    if (!last || *last >= in[i])
      return emitOpError() << "slice of dimension " << i
                           << " reads past its size " << in[i];
  }
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expects at least one input";
  ArrayRef<int64_t> out = shapeOf(getResult());
  auto dim = resolveDim(*this, "dim", getDim(), out.size());
  if (failed(dim))
    return failure();
  int64_t total = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    if (failed(checkSameElementType(*this, "inputs", input, "result",
                                    getResult())) ||
        failed(checkRank(*this, "inputs", input, out.size())))
      return failure();
    ArrayRef<int64_t> in = shapeOf(input);
    for (size_t d = 0; d < out.size(); ++d)
      if (static_cast<int64_t>(d) != *dim && in[d] != out[d])
        return emitOpError() << "input #" << i << " has size " << in[d]
                             << " in dimension " << d << " but the result "
                             << "has " << out[d];
    total += in[*dim];
  }
  if (total != out[*dim])
    return emitOpError() << "inputs add up to " << total << " along dimension "
                         << *dim << " but the result has " << out[*dim];
  return success();
}

LogicalResult ConstantOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  auto *props = properties.as<Properties *>();
  if (!props || !props->value)
    return failure();
  inferred.push_back(props->value.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError() << "expects a static-shape tensor value";
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

/// An integer tensor (`element`) takes only integral values in its range;
/// `verb` ("fill", "pad") names the use in the error.
static LogicalResult checkConstantFits(Operation *op, Type element,
                                       double value, StringRef verb) {
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer)
    return success();
  unsigned width = integer.getWidth();
  double lo = width == 1 ? 0 : -std::ldexp(1.0, width - 1);
  double hi = width == 1 ? 1 : std::ldexp(1.0, width - 1) - 1;
  if (value >= lo && value <= hi && value == std::trunc(value))
    return success();
  return op->emitOpError() << "cannot " << verb << " an " << element
                           << " tensor with " << num(value);
}

LogicalResult PadOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getX());
  ArrayRef<int64_t> low = getLow(), high = getHigh();
  if (low.size() != shape.size() || high.size() != shape.size())
    return emitOpError() << "needs 'low' and 'high' of " << shape.size()
                         << " values (one per dimension)";
  SmallVector<int64_t> expected;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (low[d] < 0 || high[d] < 0)
      return emitOpError() << "pads by " << low[d] << " and " << high[d]
                           << " in dimension " << d
                           << "; padding must be >= 0 (crop with train.slice)";
    expected.push_back(low[d] + shape[d] + high[d]);
  }
  if (failed(checkConstantFits(*this, elementOf(getX()),
                               getValue().convertToDouble(), "pad")))
    return failure();
  return checkShape(*this, "a result", expected, getResult());
}

LogicalResult OneHotOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getIndices()), out = shapeOf(getResult());
  if (out.size() != in.size() + 1 || out.drop_back() != in)
    return emitOpError() << "expects a result of shape " << shapeStr(in)
                         << " + [classes], got " << shapeStr(out);
  if (out.back() < 1)
    return emitOpError() << "needs at least one class";
  return success();
}

LogicalResult FillOp::verify() {
  return checkConstantFits(*this, elementOf(getResult()),
                           getValue().convertToDouble(), "fill");
}
