//===- SyncBatchNorm.cpp - Batch statistics over every rank ---------------===//
//
// sync-batch-norm of mp-data-parallel (SyncBatchNorm.h). For x with C
// features (feature_dim f), R the other dimensions, n the elements per
// feature on one rank and N the ranks, with the all-reduces averaging over
// the ranks (equal parts):
//
//   forward   M = mean_r(mean_R x)          V = mean_r(mean_R (x - M)^2)
//             inv = rsqrt(V + eps)          y = (x - M) inv scale + offset
//             running_mean' = (1 - m) running_mean + m M
//             running_var'  = (1 - m) running_var + m V (N n) / (N n - 1)
//   backward  x^ = (x - M) inv              G1 = mean_r(mean_R dy)
//             G2 = mean_r(mean_R dy x^)     dx = scale inv (dy - G1 - x^ G2)
//             dscale = sum_R dy x^          doffset = sum_R dy
//
// dx is N times one process's for the global batch (each rank's loss is
// the mean over its own part); the parameters' gradients are each rank's,
// and the data-parallel mean over the ranks makes them one process's.
// N itself is an all-reduce sum of a one.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/SyncBatchNorm.h"

#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mp;

namespace {

/// The per-feature statistics of a rewritten batch norm, for its gradient.
struct Statistics {
  Value mean, invStd;
};

class Rewriter {
public:
  explicit Rewriter(Block &body) : body_(body) {}

  LogicalResult run() {
    SmallVector<train::BatchNormOp> norms;
    SmallVector<train::BatchNormGradOp> grads;
    for (Operation &op : body_) {
      if (auto norm = dyn_cast<train::BatchNormOp>(op))
        norms.push_back(norm);
      else if (auto grad = dyn_cast<train::BatchNormGradOp>(op))
        grads.push_back(grad);
    }
    for (train::BatchNormOp norm : norms)
      forward(norm);
    for (train::BatchNormGradOp grad : grads)
      if (failed(backward(grad)))
        return failure();
    for (train::BatchNormGradOp grad : grads)
      grad->erase();
    for (train::BatchNormOp norm : norms)
      norm->erase();
    return success();
  }

private:
  /// The other dimensions than `feature` of a rank-`rank` tensor.
  static SmallVector<int64_t> others(int64_t rank, int64_t feature) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d)
      if (d != feature)
        dims.push_back(d);
    return dims;
  }

  /// `v` (per feature) broadcast to `like`'s shape along `feature`.
  static Value wide(ImplicitLocOpBuilder &b, Value v, Value like,
                    int64_t feature) {
    return train::BroadcastOp::create(b, like.getType(), v,
                                      b.getDenseI64ArrayAttr({feature}));
  }

  static Value fill(ImplicitLocOpBuilder &b, Type type, double value) {
    return train::FillOp::create(b, type, b.getF64FloatAttr(value));
  }

  /// The mean over the ranks of each of `values` (one bucket).
  static SmallVector<Value> meanOverRanks(ImplicitLocOpBuilder &b,
                                          ValueRange values) {
    SmallVector<Type> types(values.getTypes());
    auto reduced = train::AllReduceOp::create(
        b, TypeRange(types), values, /*mean=*/true, train::ReduceDType::f32);
    return SmallVector<Value>(reduced.getResults());
  }

  /// The number of ranks as a per-feature f32 (an all-reduce sum of a
  /// one), made once before the first batch norm.
  Value ranks(ImplicitLocOpBuilder &b, Type perFeature) {
    auto found = ranks_.find(perFeature);
    if (found != ranks_.end())
      return found->second;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&body_);
    Value one = fill(b, perFeature, 1.0);
    Value count =
        train::AllReduceOp::create(b, TypeRange{perFeature}, ValueRange{one},
                                   /*mean=*/false, train::ReduceDType::f32)
            .getResult(0);
    ranks_[perFeature] = count;
    return count;
  }

  void forward(train::BatchNormOp norm) {
    ImplicitLocOpBuilder b(norm.getLoc(), norm);
    Value x = norm.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    Type perFeature = norm.getScale().getType();
    int64_t f = norm.getFeatureDim();
    SmallVector<int64_t> dims = others(xType.getRank(), f);
    int64_t n = xType.getNumElements() / xType.getDimSize(f);
    double eps = norm.getEpsilon().convertToDouble();
    double momentum = norm.getMomentum().convertToDouble();

    Value localMean = train::ReduceMeanOp::create(b, perFeature, x, dims);
    Value mean = meanOverRanks(b, {localMean})[0];
    Value centered = train::SubOp::create(b, x, wide(b, mean, x, f));
    Value squares = train::MulOp::create(b, centered, centered);
    Value localVar = train::ReduceMeanOp::create(b, perFeature, squares, dims);
    Value var = meanOverRanks(b, {localVar})[0];
    Value invStd = train::RsqrtOp::create(
        b, train::AddOp::create(b, var, fill(b, perFeature, eps)));
    Value normalized = train::MulOp::create(b, centered, wide(b, invStd, x, f));
    Value y = train::AddOp::create(
        b, train::MulOp::create(b, normalized, wide(b, norm.getScale(), x, f)),
        wide(b, norm.getOffset(), x, f));

    // Running statistics: (1 - m) old + m new, the variance unbiased by
    // the global count N n: N n / (N n - 1).
    auto blend = [&](Value old, Value value) {
      return train::AddOp::create(
          b, train::MulOp::create(b, old, fill(b, perFeature, 1.0 - momentum)),
          train::MulOp::create(b, value, fill(b, perFeature, momentum)));
    };
    Value total = train::MulOp::create(b, ranks(b, perFeature),
                                       fill(b, perFeature, double(n)));
    Value unbiased = train::DivOp::create(
        b, total, train::SubOp::create(b, total, fill(b, perFeature, 1.0)));
    Value runningMean = blend(norm.getRunningMean(), mean);
    Value runningVar =
        blend(norm.getRunningVar(), train::MulOp::create(b, var, unbiased));

    norm.getY().replaceAllUsesWith(y);
    norm.getNewRunningMean().replaceAllUsesWith(runningMean);
    norm.getNewRunningVar().replaceAllUsesWith(runningVar);
    norm.getSavedMean().replaceAllUsesWith(mean);
    norm.getSavedInvStd().replaceAllUsesWith(invStd);
    stats_[mean] = {mean, invStd};
  }

  LogicalResult backward(train::BatchNormGradOp grad) {
    auto found = stats_.find(grad.getSavedMean());
    if (found == stats_.end() || found->second.invStd != grad.getSavedInvStd())
      return grad.emitOpError()
             << "does not read the statistics of a batch norm of this step: "
                "sync-batch-norm cannot make its reductions global";
    ImplicitLocOpBuilder b(grad.getLoc(), grad);
    Value dy = grad.getGradY(), x = grad.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    Type perFeature = grad.getScale().getType();
    int64_t f = grad.getFeatureDim();
    SmallVector<int64_t> dims = others(xType.getRank(), f);
    Value invStd = found->second.invStd;

    Value normalized = train::MulOp::create(
        b, train::SubOp::create(b, x, wide(b, found->second.mean, x, f)),
        wide(b, invStd, x, f));
    Value product = train::MulOp::create(b, dy, normalized);
    Value localDy = train::ReduceMeanOp::create(b, perFeature, dy, dims);
    Value localProduct =
        train::ReduceMeanOp::create(b, perFeature, product, dims);
    SmallVector<Value> means = meanOverRanks(b, {localDy, localProduct});
    Value inner = train::SubOp::create(
        b, train::SubOp::create(b, dy, wide(b, means[0], x, f)),
        train::MulOp::create(b, normalized, wide(b, means[1], x, f)));
    Value gain = train::MulOp::create(b, grad.getScale(), invStd);
    Value dx = train::MulOp::create(b, inner, wide(b, gain, x, f));
    Value dScale = train::ReduceSumOp::create(b, perFeature, product, dims);
    Value dOffset = train::ReduceSumOp::create(b, perFeature, dy, dims);

    grad.getGradX().replaceAllUsesWith(dx);
    grad.getGradScale().replaceAllUsesWith(dScale);
    grad.getGradOffset().replaceAllUsesWith(dOffset);
    return success();
  }

  Block &body_;
  llvm::DenseMap<Value, Statistics> stats_;
  llvm::DenseMap<Type, Value> ranks_;
};

} // namespace

LogicalResult mp::synchronizeBatchNorms(Block &body) {
  return Rewriter(body).run();
}
