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

/// The (H, W) indices of an image of `layout`.
std::pair<unsigned, unsigned> spatialDims(train::Layout layout) {
  return layout == train::Layout::NCHW ? std::make_pair(2u, 3u)
                                       : std::make_pair(1u, 2u);
}

/// kernel = strides = image / pooled per spatial dimension, where both
/// divide; none otherwise.
std::optional<SmallVector<int64_t>> divisibleWindow(train::Layout layout,
                                                    Value image,
                                                    Value pooled) {
  auto [h, w] = spatialDims(layout);
  ArrayRef<int64_t> in = cast<ShapedType>(image.getType()).getShape();
  ArrayRef<int64_t> out = cast<ShapedType>(pooled.getType()).getShape();
  if (in[h] % out[h] != 0 || in[w] % out[w] != 0)
    return std::nullopt;
  return SmallVector<int64_t>{in[h] / out[h], in[w] / out[w]};
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

struct DecomposePass : public mp::impl::DecomposeBase<DecomposePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<train::AdaptiveAvgPool2DOp, train::AdaptiveAvgPool2DGradOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
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
