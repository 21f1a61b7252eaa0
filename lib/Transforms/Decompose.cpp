//===- Decompose.cpp - composite train ops to what the backends run -------===//
//
// Passes.td describes the rewrites. Each keeps the op's result type and
// discardable attributes and replaces it in place.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mp {
#define GEN_PASS_DEF_DECOMPOSE
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// kernel = strides = image / pooled per spatial dimension, where both
/// divide; none otherwise.
std::optional<SmallVector<int64_t>> divisibleWindow(train::Layout layout,
                                                    Value image,
                                                    Value pooled) {
  train::ImageDims d = train::imageDims(layout);
  ArrayRef<int64_t> in = cast<ShapedType>(image.getType()).getShape();
  ArrayRef<int64_t> out = cast<ShapedType>(pooled.getType()).getShape();
  if (in[d.h] % out[d.h] != 0 || in[d.w] % out[d.w] != 0)
    return std::nullopt;
  return SmallVector<int64_t>{in[d.h] / out[d.h], in[d.w] / out[d.w]};
}

template <typename PoolOp>
void replaceWith(Operation *op, Type type, Value operand, train::Layout layout,
                 ArrayRef<int64_t> window) {
  OpBuilder b(op);
  auto pool = PoolOp::create(b, op->getLoc(), type, operand, layout,
                             b.getDenseI64ArrayAttr(window),
                             b.getDenseI64ArrayAttr(window),
                             b.getDenseI64ArrayAttr({0, 0, 0, 0}));
  pool->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  op->getResult(0).replaceAllUsesWith(pool.getResult());
  op->erase();
}

/// `v` (3-D) reshaped to 4-D with a unit dimension at `at`.
Value withUnitDim(OpBuilder &b, Location loc, Value v, unsigned at) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + at, 1);
  return train::ReshapeOp::create(b, loc, type.clone(shape), v);
}

/// The 4-D type of a 3-D `type` with a unit dimension at `at`.
RankedTensorType unitDimType(Type type, unsigned at) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(ranked.getShape());
  shape.insert(shape.begin() + at, 1);
  return ranked.clone(shape);
}

/// A conv1d op as conv2d on a unit height: NCL -> NCHW [N, C, 1, L] with
/// OIK -> OIHW [O, I, 1, K]; NLC -> NHWC [N, 1, L, C] with KIO -> HWIO
/// [1, K, I, O]. `Conv2D` is the 2-D op. The first operand is an image
/// (input or output gradient) for all three ops; the second is the filter
/// for conv1d and its data gradient and an image for the filter gradient,
/// whose result is the filter.
template <typename Conv2D, typename Conv1D>
void lowerConv1d(Conv1D op, bool toFilter) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  bool ncl = op.getLayout() == train::Layout1D::NCL;
  unsigned image = ncl ? 2 : 1, filter = ncl ? 2 : 0;
  Value lhs = withUnitDim(b, loc, op->getOperand(0), image);
  Value rhs = withUnitDim(b, loc, op->getOperand(1), toFilter ? image : filter);
  ArrayRef<int64_t> pad = op.getPadding();
  auto conv = Conv2D::create(
      b, loc, unitDimType(op.getType(), toFilter ? filter : image), lhs, rhs,
      train::LayoutAttr::get(b.getContext(),
                             ncl ? train::Layout::NCHW : train::Layout::NHWC),
      b.getDenseI64ArrayAttr({1, static_cast<int64_t>(op.getStride())}),
      b.getDenseI64ArrayAttr({0, 0, pad[0], pad[1]}),
      b.getDenseI64ArrayAttr({1, static_cast<int64_t>(op.getDilation())}),
      b.getI64IntegerAttr(static_cast<int64_t>(op.getGroups())));
  conv->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  Value result =
      train::ReshapeOp::create(b, loc, op.getType(), conv.getResult());
  op.getResult().replaceAllUsesWith(result);
  op->erase();
}

struct DecomposePass : public mp::impl::DecomposeBase<DecomposePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<train::AdaptiveAvgPool2DOp, train::AdaptiveAvgPool2DGradOp,
              train::Conv1DOp, train::Conv1DBackwardDataOp,
              train::Conv1DBackwardFilterOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto conv = dyn_cast<train::Conv1DOp>(op)) {
        lowerConv1d<train::Conv2DOp>(conv, false);
        continue;
      }
      if (auto data = dyn_cast<train::Conv1DBackwardDataOp>(op)) {
        lowerConv1d<train::Conv2DBackwardDataOp>(data, false);
        continue;
      }
      if (auto filter = dyn_cast<train::Conv1DBackwardFilterOp>(op)) {
        lowerConv1d<train::Conv2DBackwardFilterOp>(filter, true);
        continue;
      }
      if (auto pool = dyn_cast<train::AdaptiveAvgPool2DOp>(op)) {
        if (auto window = divisibleWindow(pool.getLayout(), pool.getX(),
                                          pool.getResult()))
          replaceWith<train::AvgPool2DOp>(op, pool.getType(), pool.getX(),
                                          pool.getLayout(), *window);
        continue;
      }
      auto grad = cast<train::AdaptiveAvgPool2DGradOp>(op);
      if (auto window = divisibleWindow(grad.getLayout(), grad.getResult(),
                                        grad.getGrad()))
        replaceWith<train::AvgPool2DGradOp>(op, grad.getType(), grad.getGrad(),
                                            grad.getLayout(), *window);
    }
  }
};

} // namespace
