//===- TrainOps.cpp - train dialect op verifiers --------------------------===//
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "VerifierSupport.h"
#include "mp/IR/MatmulShapes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;
using namespace mp::train;

#include "mp/Dialect/Train/IR/TrainEnums.cpp.inc"
#include "mp/Dialect/Train/IR/TrainInterfaces.cpp.inc"

Type mp::train::getI1TensorLike(Type type) {
  auto shaped = cast<ShapedType>(type);
  return RankedTensorType::get(shaped.getShape(),
                               IntegerType::get(type.getContext(), 1));
}

bool mp::train::isElementwise(Operation *op) {
  return op->getDialect() && isa<TrainDialect>(op->getDialect()) &&
         op->hasTrait<mlir::OpTrait::SameOperandsAndResultType>() &&
         op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         !op->hasAttr("axis") && !isa<GradSeedOp, GradientOp>(op);
}

using namespace mp::train::verify;

ImageDims mp::train::imageDims(Layout layout) {
  return layout == Layout::NCHW ? ImageDims{0, 1, 2, 3}
                                : ImageDims{0, 3, 1, 2};
}
FilterLayout
mp::train::filterLayoutOf(Layout layout,
                          std::optional<FilterLayout> filterLayout) {
  if (filterLayout)
    return *filterLayout;
  return layout == Layout::NCHW ? FilterLayout::OIHW : FilterLayout::HWIO;
}
/// Dimension indices of a filter in its layout.
struct FilterDims {
  unsigned o, i, h, w;
};
static FilterDims filterDims(FilterLayout layout) {
  return layout == FilterLayout::OIHW ? FilterDims{0, 1, 2, 3}
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
  FilterLayout filterLayout =
      filterLayoutOf(op.getLayout(), op.getFilterLayout());
  FilterDims f = filterDims(filterLayout);
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
           << stringifyFilterLayout(filterLayout)
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
                                getTransposeRhs(), n, /*broadcast=*/true);
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

/// Checks conv1d shapes: `input` (x) `filter` -> `output`, NCL / OIK or
/// NLC / KIO.
template <typename ConvOp>
static LogicalResult verifyConv1d(ConvOp op, Value input, Value filter,
                                  Value output, ConvNames names) {
  Operation *raw = op.getOperation();
  auto stride = static_cast<int64_t>(op.getStride());
  auto dilation = static_cast<int64_t>(op.getDilation());
  auto groups = static_cast<int64_t>(op.getGroups());
  if (stride < 1 || dilation < 1 || groups < 1)
    return raw->emitOpError() << "needs 'stride', 'dilation' and 'groups' >= "
                                 "1, got "
                              << stride << ", " << dilation << ", " << groups;
  if (failed(checkArray(raw, "padding", op.getPadding(), 2, 0)) ||
      failed(checkRank(raw, names.input, input, 3)) ||
      failed(checkRank(raw, names.filter, filter, 3)) ||
      failed(checkRank(raw, names.output, output, 3)))
    return failure();
  bool ncl = op.getLayout() == Layout1D::NCL;
  ArrayRef<int64_t> in = shapeOf(input), fl = shapeOf(filter);
  int64_t channels = in[ncl ? 1 : 2], length = in[ncl ? 2 : 1];
  int64_t outputs = fl[ncl ? 0 : 2], perGroup = fl[1], taps = fl[ncl ? 2 : 0];
  if (channels % groups != 0 || outputs % groups != 0 ||
      channels != perGroup * groups)
    return raw->emitOpError()
           << names.input << " has " << channels << " channels and "
           << names.filter << " " << outputs << " outputs of " << perGroup
           << " channels (filter layout " << (ncl ? "OIK" : "KIO")
           << "): they do not fit " << groups << " group(s)";
  int64_t out = windowOutput(length, taps, stride, op.getPadding()[0],
                             op.getPadding()[1], dilation);
  if (out <= 0)
    return raw->emitOpError() << "a window of " << taps
                              << " taps does not fit the padded length "
                              << length;
  SmallVector<int64_t> expected =
      ncl ? SmallVector<int64_t>{in[0], outputs, out}
          : SmallVector<int64_t>{in[0], out, outputs};
  return checkShape(raw, names.output, expected, output);
}

LogicalResult Conv1DOp::verify() {
  if (failed(checkSameElementType(*this, "input", getInput(), "filter",
                                  getFilter())) ||
      failed(checkAccumulatorType(*this, getInput(), getResult())))
    return failure();
  return verifyConv1d(*this, getInput(), getFilter(), getResult(),
                      {"an input", "a filter", "a result"});
}
LogicalResult Conv1DBackwardDataOp::verify() {
  if (failed(checkSameElementType(*this, "grad_output", getGradOutput(),
                                  "filter", getFilter())) ||
      failed(checkAccumulatorType(*this, getGradOutput(), getResult())))
    return failure();
  return verifyConv1d(*this, getResult(), getFilter(), getGradOutput(),
                      {"a result", "a filter", "a grad_output"});
}
LogicalResult Conv1DBackwardFilterOp::verify() {
  if (failed(checkSameElementType(*this, "input", getInput(), "grad_output",
                                  getGradOutput())) ||
      failed(checkAccumulatorType(*this, getInput(), getResult())))
    return failure();
  return verifyConv1d(*this, getInput(), getResult(), getGradOutput(),
                      {"an input", "a result", "a grad_output"});
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

/// x [N, ..., C, ...] with C at `featureDim` in `groups` groups: [C]
/// affine tensors and [N, groups] statistics.
static LogicalResult verifyGroupNorm(Operation *op, Value x, int64_t groups,
                                     int64_t featureDim, Value perChannel,
                                     Value stats) {
  int64_t rank = shapeOf(x).size();
  if (rank < 2)
    return op->emitOpError() << "expects x of rank >= 2 but got rank "
                             << rank;
  if (featureDim < 1 || featureDim >= rank)
    return op->emitOpError() << "expects feature_dim in [1, " << rank
                             << ") (dimension 0 is the batch) but got "
                             << featureDim;
  int64_t channels = shapeOf(x)[featureDim];
  if (groups < 1 || channels % groups != 0)
    return op->emitOpError() << "cannot split " << channels
                             << " channels into " << groups << " groups";
  if (failed(checkShape(op, "per-channel tensors", {channels}, perChannel)))
    return failure();
  return checkShape(op, "statistics", {shapeOf(x)[0], groups}, stats);
}

LogicalResult GroupNormOp::verify() {
  return verifyGroupNorm(*this, getX(), static_cast<int64_t>(getGroups()),
                         static_cast<int64_t>(getFeatureDim()), getScale(),
                         getMean());
}
LogicalResult GroupNormGradOp::verify() {
  return verifyGroupNorm(*this, getX(), static_cast<int64_t>(getGroups()),
                         static_cast<int64_t>(getFeatureDim()), getScale(),
                         getMean());
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

/// `pooled` is `image` at another spatial size (N and C kept, each >= 1).
static LogicalResult verifyAdaptivePool(Operation *op, Layout layout,
                                        Value image, Value pooled) {
  if (failed(checkRank(op, "an image", image, 4)) ||
      failed(checkRank(op, "a pooled image", pooled, 4)))
    return failure();
  ImageDims d = imageDims(layout);
  ArrayRef<int64_t> in = shapeOf(image), out = shapeOf(pooled);
  if (in[d.n] != out[d.n] || in[d.c] != out[d.c])
    return op->emitOpError()
           << "expects the pooled image to keep N and C (" << in[d.n] << ", "
           << in[d.c] << ") but got (" << out[d.n] << ", " << out[d.c] << ")";
  for (unsigned dim : {d.h, d.w})
    if (in[dim] < 1 || out[dim] < 1)
      return op->emitOpError() << "expects spatial sizes >= 1 but got "
                               << shapeStr(in) << " and " << shapeStr(out);
  return success();
}

LogicalResult AdaptiveAvgPool2DOp::verify() {
  if (failed(checkAccumulatorType(*this, getX(), getResult())))
    return failure();
  return verifyAdaptivePool(*this, getLayout(), getX(), getResult());
}
LogicalResult AdaptiveAvgPool2DGradOp::verify() {
  if (failed(checkSameElementType(*this, "grad", getGrad(), "result",
                                  getResult())))
    return failure();
  return verifyAdaptivePool(*this, getLayout(), getResult(), getGrad());
}

/// A condition that is one constant everywhere (Keras' causal mask is
/// where(true, tril, false)) picks one operand, as does a select of one
/// value twice: exact.
OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getTrueValue() == getFalseValue())
    return getTrueValue();
  auto condition = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCondition());
  if (!condition)
    return {};
  return condition.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
}

#define GET_OP_CLASSES
#include "mp/Dialect/Train/IR/TrainOps.cpp.inc"
