//===- TrainOps.cpp - train dialect op verifiers --------------------------===//
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/IR/MatmulShapes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mp::train;

#include "mp/Dialect/Train/IR/TrainEnums.cpp.inc"
#include "mp/Dialect/Train/IR/TrainInterfaces.cpp.inc"

Type mp::train::getI1TensorLike(Type type) {
  auto shaped = cast<ShapedType>(type);
  return RankedTensorType::get(shaped.getShape(),
                               IntegerType::get(type.getContext(), 1));
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Formats a shape as [2, 3, 4] for diagnostics.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string out = "[";
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(shape, os);
  os << "]";
  return out;
}

/// Formats a number for diagnostics (1e-05, 0.5, inf).
static std::string num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}
static Type elementOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// Checks that `actual` has the `expected` shape; `what` names the value.
static LogicalResult checkShape(Operation *op, StringRef what,
                                ArrayRef<int64_t> expected, Value actual) {
  if (shapeOf(actual) == expected)
    return success();
  return op->emitOpError() << "expects " << what << " of shape "
                           << shapeStr(expected) << " but got "
                           << shapeStr(shapeOf(actual));
}

static LogicalResult checkRank(Operation *op, StringRef what, Value v,
                               int64_t rank) {
  if (static_cast<int64_t>(shapeOf(v).size()) == rank)
    return success();
  return op->emitOpError() << "expects " << what << " of rank " << rank
                           << " but got rank " << shapeOf(v).size();
}

static LogicalResult checkSameElementType(Operation *op, StringRef a, Value va,
                                          StringRef b, Value vb) {
  if (elementOf(va) == elementOf(vb))
    return success();
  return op->emitOpError() << "expects " << a << " and " << b
                           << " to have the same element type but got "
                           << elementOf(va) << " and " << elementOf(vb);
}

/// Ops that may accumulate into a wider result: the result element type is
/// the input's or f32 (bf16 x bf16 -> f32), never narrower.
static LogicalResult checkAccumulatorType(Operation *op, Value input,
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

/// Resolves a possibly negative dimension index against `rank`.
static FailureOr<int64_t> resolveDim(Operation *op, StringRef what,
                                     int64_t dim, int64_t rank) {
  int64_t resolved = dim < 0 ? dim + rank : dim;
  if (resolved < 0 || resolved >= rank)
    return op->emitOpError() << what << " " << dim
                             << " is out of range for rank " << rank;
  return resolved;
}

/// Checks an array attribute's length and that its entries are >= `min`.
static LogicalResult checkArray(Operation *op, StringRef what,
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

/// Dimension indices of an image tensor.
struct ImageDims {
  unsigned n, c, h, w;
};
static ImageDims imageDims(Layout layout) {
  return layout == Layout::NCHW ? ImageDims{0, 1, 2, 3}
                                : ImageDims{0, 3, 1, 2};
}
/// Dimension indices of a filter: OIHW with NCHW, HWIO with NHWC.
struct FilterDims {
  unsigned o, i, h, w;
};
static FilterDims filterDims(Layout layout) {
  return layout == Layout::NCHW ? FilterDims{0, 1, 2, 3}
                                : FilterDims{3, 2, 0, 1};
}

/// Output size of one spatial dimension of a window op, or -1 when the
/// window does not fit.
static int64_t windowOutput(int64_t in, int64_t window, int64_t stride,
                            int64_t padLo, int64_t padHi, int64_t dilation) {
  // Attributes come from users: compute without overflowing.
  std::optional<int64_t> span = llvm::checkedMul(dilation, window - 1);
  std::optional<int64_t> padded = llvm::checkedAdd(in, padLo);
  if (padded)
    padded = llvm::checkedAdd(*padded, padHi);
  if (!span || !padded || *padded <= *span)
    return -1;
  return (*padded - *span - 1) / stride + 1;
}

/// The window attributes of conv and pooling ops, checked.
struct Window {
  ArrayRef<int64_t> size, strides, padding, dilations;
};
static LogicalResult checkWindowAttrs(Operation *op, const Window &w,
                                      bool hasSize) {
  if (hasSize && failed(checkArray(op, "kernel", w.size, 2, 1)))
    return failure();
  if (failed(checkArray(op, "strides", w.strides, 2, 1)) ||
      failed(checkArray(op, "padding", w.padding, 4, 0)))
    return failure();
  if (!w.dilations.empty() &&
      failed(checkArray(op, "dilations", w.dilations, 2, 1)))
    return failure();
  return success();
}

/// The image shape a window op produces from `input`.
static FailureOr<SmallVector<int64_t>>
windowOutputShape(Operation *op, Layout layout, ArrayRef<int64_t> input,
                  int64_t channels, ArrayRef<int64_t> window,
                  const Window &w) {
  ImageDims d = imageDims(layout);
  SmallVector<int64_t> out(input);
  out[d.c] = channels;
  int64_t dh = w.dilations.empty() ? 1 : w.dilations[0];
  int64_t dw = w.dilations.empty() ? 1 : w.dilations[1];
  out[d.h] = windowOutput(input[d.h], window[0], w.strides[0], w.padding[0],
                          w.padding[1], dh);
  out[d.w] = windowOutput(input[d.w], window[1], w.strides[1], w.padding[2],
                          w.padding[3], dw);
  if (out[d.h] <= 0 || out[d.w] <= 0)
    return op->emitOpError() << "window " << shapeStr(window)
                             << " does not fit the padded input "
                             << shapeStr(input);
  return out;
}

/// Names of the three tensors of a conv op in diagnostics: the forward
/// input, filter and output may be an operand or the result.
struct ConvNames {
  const char *input, *filter, *output;
};

/// Checks conv2d shapes: `input` (x) `filter` -> `output`.
template <typename ConvOp>
static LogicalResult verifyConv(ConvOp op, Value input, Value filter,
                                Value output, ConvNames names) {
  Operation *raw = op.getOperation();
  Window w{{}, op.getStrides(), op.getPadding(), op.getDilations()};
  if (failed(checkWindowAttrs(raw, w, /*hasSize=*/false)) ||
      failed(checkRank(raw, names.input, input, 4)) ||
      failed(checkRank(raw, names.filter, filter, 4)) ||
      failed(checkRank(raw, names.output, output, 4)))
    return failure();
  ImageDims d = imageDims(op.getLayout());
  FilterDims f = filterDims(op.getLayout());
  ArrayRef<int64_t> in = shapeOf(input), fl = shapeOf(filter);
  auto groups = static_cast<int64_t>(op.getGroups()); // I64Attr: unsigned
  if (groups < 1)
    return raw->emitOpError() << "needs 'groups' >= 1, got " << groups;
  if (in[d.c] % groups != 0 || fl[f.o] % groups != 0)
    return raw->emitOpError()
           << names.input << " has " << in[d.c] << " channels and "
           << names.filter << " " << fl[f.o]
           << " outputs: both must divide into " << groups << " groups";
  if (in[d.c] != fl[f.i] * groups)
    return raw->emitOpError()
           << names.input << " has " << in[d.c] << " channels but "
           << names.filter << " expects "
           << fl[f.i] * groups << " (filter layout "
           << (op.getLayout() == Layout::NCHW ? "OIHW" : "HWIO")
           << (groups > 1 ? ", " + std::to_string(fl[f.i]) + " per group of " +
                                std::to_string(groups)
                          : std::string())
           << ")";
  int64_t window[2] = {fl[f.h], fl[f.w]};
  auto expected =
      windowOutputShape(raw, op.getLayout(), in, fl[f.o], window, w);
  if (failed(expected))
    return failure();
  return checkShape(raw, names.output, *expected, output);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  if (failed(checkSameElementType(*this, "lhs", getLhs(), "rhs", getRhs())) ||
      failed(checkAccumulatorType(*this, getLhs(), getResult())))
    return failure();
  int64_t n;
  return mp::verifyMatmulShapes(*this, shapeOf(getLhs()), shapeOf(getRhs()),
                                shapeOf(getResult()), getTransposeLhs(),
                                getTransposeRhs(), n);
}

LogicalResult BiasAddOp::verify() {
  int64_t rank = shapeOf(getX()).size();
  auto dim = resolveDim(*this, "dim", getDim(), rank);
  if (failed(dim) || failed(checkRank(*this, "a bias", getBias(), 1)))
    return failure();
  return checkShape(*this, "a bias", {shapeOf(getX())[*dim]}, getBias());
}

LogicalResult Conv2DOp::verify() {
  if (failed(checkSameElementType(*this, "input", getInput(), "filter",
                                  getFilter())))
    return failure();
  if (failed(checkAccumulatorType(*this, getInput(), getResult())))
    return failure();
  return verifyConv(*this, getInput(), getFilter(), getResult(),
                    {"input", "filter", "result"});
}

LogicalResult Conv2DBackwardDataOp::verify() {
  if (failed(checkSameElementType(*this, "grad_output", getGradOutput(),
                                  "filter", getFilter())))
    return failure();
  if (failed(checkAccumulatorType(*this, getGradOutput(), getResult())))
    return failure();
  // The result is the forward input: conv(result, filter) = grad_output.
  return verifyConv(*this, getResult(), getFilter(), getGradOutput(),
                    {"result", "filter", "grad_output"});
}

LogicalResult Conv2DBackwardFilterOp::verify() {
  if (failed(checkSameElementType(*this, "input", getInput(), "grad_output",
                                  getGradOutput())))
    return failure();
  if (failed(checkAccumulatorType(*this, getInput(), getResult())))
    return failure();
  // The result is the filter: conv(input, result) = grad_output.
  return verifyConv(*this, getInput(), getResult(), getGradOutput(),
                    {"input", "result", "grad_output"});
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Checks x (rank >= 2) against per-feature tensors of shape [C].
static LogicalResult verifyPerFeature(Operation *op, Value x,
                                      int64_t featureDim, Value perFeature) {
  int64_t rank = shapeOf(x).size();
  if (rank < 2)
    return op->emitOpError() << "expects x of rank >= 2 but got rank "
                             << rank;
  auto dim = resolveDim(op, "feature_dim", featureDim, rank);
  if (failed(dim))
    return failure();
  return checkShape(op, "per-feature tensors", {shapeOf(x)[*dim]},
                    perFeature);
}

LogicalResult BatchNormOp::verify() {
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0 && momentum <= 1))
    return emitOpError() << "expects momentum in [0, 1] but got "
                         << num(momentum);
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "expects a positive epsilon";
  if (failed(verifyPerFeature(*this, getX(), getFeatureDim(), getScale())))
    return failure();
  // The running variance is unbiased: it needs two values per feature.
  auto x = cast<ShapedType>(getX().getType());
  int64_t features = shapeOf(getScale())[0];
  if (features == 0)
    return emitOpError() << "normalizes zero features";
  int64_t perFeature = x.getNumElements() / features;
  if (perFeature < 2)
    return emitOpError() << "normalizes " << perFeature
                         << " value per feature; the unbiased running "
                            "variance needs at least 2";
  return success();
}

LogicalResult BatchNormGradOp::verify() {
  return verifyPerFeature(*this, getX(), getFeatureDim(), getScale());
}

/// Checks layer_norm shapes: scale is x.shape[axis:], stats x.shape[:axis].
/// `params` and `stats` name the per-feature and per-row tensors.
static LogicalResult verifyLayerNorm(Operation *op, Value x, int64_t axis,
                                     Value scale, Value stats,
                                     StringRef params = "scale and offset",
                                     StringRef statNames = "mean and inv_std") {
  ArrayRef<int64_t> shape = shapeOf(x);
  auto dim = resolveDim(op, "axis", axis, shape.size());
  if (failed(dim))
    return failure();
  if (failed(checkShape(op, params, shape.drop_front(*dim), scale)))
    return failure();
  return checkShape(op, statNames, shape.take_front(*dim), stats);
}

LogicalResult LayerNormOp::verify() {
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "expects a positive epsilon";
  return verifyLayerNorm(*this, getX(), getAxis(), getScale(), getMean());
}

LogicalResult LayerNormGradOp::verify() {
  return verifyLayerNorm(*this, getX(), getAxis(), getScale(), getMean());
}

LogicalResult RmsNormOp::verify() {
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "expects a positive epsilon";
  return verifyLayerNorm(*this, getX(), getAxis(), getScale(), getInvRms(),
                         "scale", "inv_rms");
}

LogicalResult RmsNormGradOp::verify() {
  return verifyLayerNorm(*this, getX(), getAxis(), getScale(), getInvRms(),
                         "scale", "inv_rms");
}

//===----------------------------------------------------------------------===//
// Softmax and losses
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return resolveDim(*this, "axis", getAxis(), shapeOf(getX()).size());
}
LogicalResult LogSoftmaxOp::verify() {
  return resolveDim(*this, "axis", getAxis(), shapeOf(getX()).size());
}
LogicalResult SoftmaxGradOp::verify() {
  return resolveDim(*this, "axis", getAxis(), shapeOf(getGrad()).size());
}
LogicalResult LogSoftmaxGradOp::verify() {
  return resolveDim(*this, "axis", getAxis(), shapeOf(getGrad()).size());
}

static LogicalResult verifyLogitsAndLabels(Operation *op, Value logits,
                                           Value labels) {
  if (failed(checkRank(op, "logits", logits, 2)))
    return failure();
  return checkShape(op, "labels", {shapeOf(logits)[0]}, labels);
}

static LogicalResult verifySmoothing(Operation *op, double e) {
  if (e >= 0 && e <= 1)
    return success();
  return op->emitOpError() << "needs a label_smoothing in [0, 1], got " << e;
}
LogicalResult SparseCrossEntropyOp::verify() {
  if (failed(checkAccumulatorType(*this, getLogits(), getLoss())) ||
      failed(verifySmoothing(*this, getLabelSmoothing().convertToDouble())))
    return failure();
  return verifyLogitsAndLabels(*this, getLogits(), getLabels());
}
LogicalResult SparseCrossEntropyGradOp::verify() {
  if (failed(verifySmoothing(*this, getLabelSmoothing().convertToDouble())))
    return failure();
  return verifyLogitsAndLabels(*this, getLogits(), getLabels());
}

//===----------------------------------------------------------------------===//
// Reductions and pooling
//===----------------------------------------------------------------------===//

template <typename ReduceOp>
static LogicalResult verifyReduce(ReduceOp op) {
  ArrayRef<int64_t> shape = shapeOf(op.getX());
  llvm::SmallBitVector reduced(shape.size());
  for (int64_t dim : op.getDims()) {
    auto resolved = resolveDim(op, "reduction dimension", dim, shape.size());
    if (failed(resolved))
      return failure();
    if (reduced.test(*resolved))
      return op.emitOpError() << "reduces dimension " << *resolved
                              << " twice";
    reduced.set(*resolved);
  }
  SmallVector<int64_t> expected;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (!reduced.test(i))
      expected.push_back(size);
    else if (op.getKeepDims())
      expected.push_back(1);
  }
  return checkShape(op, "a result", expected, op.getResult());
}

LogicalResult ReduceSumOp::verify() {
  if (failed(checkAccumulatorType(*this, getX(), getResult())))
    return failure();
  return verifyReduce(*this);
}
LogicalResult ReduceMeanOp::verify() {
  if (failed(checkAccumulatorType(*this, getX(), getResult())))
    return failure();
  return verifyReduce(*this);
}
LogicalResult ReduceMaxOp::verify() {
  if (failed(checkSameElementType(*this, "x", getX(), "result", getResult())))
    return failure();
  return verifyReduce(*this);
}
LogicalResult LogSumExpOp::verify() {
  if (failed(checkAccumulatorType(*this, getX(), getResult())))
    return failure();
  return verifyReduce(*this);
}
LogicalResult ArgMaxOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getX());
  auto dim = resolveDim(*this, "dim", static_cast<int64_t>(getDim()),
                        shape.size());
  if (failed(dim))
    return failure();
  if (shape[*dim] == 0)
    return emitOpError() << "takes the argmax of an empty dimension";
  SmallVector<int64_t> expected;
  for (auto [i, size] : llvm::enumerate(shape))
    if (static_cast<int64_t>(i) != *dim)
      expected.push_back(size);
    else if (getKeepDims())
      expected.push_back(1);
  return checkShape(*this, "a result", expected, getResult());
}

/// Checks a pooling window applied to `input` gives `output`.
template <typename PoolOp>
static LogicalResult verifyPool(PoolOp op, Value input, Value output) {
  Operation *raw = op.getOperation();
  Window w{op.getKernel(), op.getStrides(), op.getPadding(), {}};
  if (failed(checkWindowAttrs(raw, w, /*hasSize=*/true)) ||
      failed(checkRank(raw, "an input", input, 4)) ||
      failed(checkSameElementType(raw, "input", input, "output", output)))
    return failure();
  // padding is [top, bottom, left, right]; kernel is [height, width].
  for (int i = 0; i < 4; ++i)
    if (w.padding[i] >= w.size[i / 2])
      return op.emitOpError() << "expects padding smaller than the kernel";
  ArrayRef<int64_t> in = shapeOf(input);
  auto expected = windowOutputShape(raw, op.getLayout(), in,
                                    in[imageDims(op.getLayout()).c], w.size, w);
  if (failed(expected))
    return failure();
  return checkShape(raw, "an output", *expected, output);
}

LogicalResult MaxPool2DOp::verify() {
  return verifyPool(*this, getX(), getResult());
}
LogicalResult AvgPool2DOp::verify() {
  return verifyPool(*this, getX(), getResult());
}
LogicalResult MaxPool2DGradOp::verify() {
  return verifyPool(*this, getX(), getGrad());
}
LogicalResult AvgPool2DGradOp::verify() {
  return verifyPool(*this, getResult(), getGrad());
}

/// Checks image [N, C, H, W] (or NHWC) against pooled [N, C].
static LogicalResult verifyGlobalPool(Operation *op, Layout layout,
                                      Value image, Value pooled) {
  if (failed(checkRank(op, "an image", image, 4)))
    return failure();
  ImageDims d = imageDims(layout);
  ArrayRef<int64_t> in = shapeOf(image);
  return checkShape(op, "a pooled tensor", {in[d.n], in[d.c]}, pooled);
}

LogicalResult GlobalAvgPool2DOp::verify() {
  if (failed(checkAccumulatorType(*this, getX(), getResult())))
    return failure();
  return verifyGlobalPool(*this, getLayout(), getX(), getResult());
}
LogicalResult GlobalAvgPool2DGradOp::verify() {
  if (failed(checkSameElementType(*this, "grad", getGrad(), "result",
                                  getResult())))
    return failure();
  return verifyGlobalPool(*this, getLayout(), getResult(), getGrad());
}

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

#define GET_OP_CLASSES
#include "mp/Dialect/Train/IR/TrainOps.cpp.inc"
