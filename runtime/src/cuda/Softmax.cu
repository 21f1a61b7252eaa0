//===- Softmax.cu - softmax, log_softmax, cross-entropy and grads ---------===//
//
// One block per row (a row is the `length` elements along the axis, `inner`
// apart): the block reduces the row's max (f32) and sum of exp(x - max)
// (f64, rounded once), then writes the row. The cross-entropy's mean over
// the rows not ignored is summed by one block in a fixed order, so a
// step's loss is reproducible bit for bit; label smoothing and
// ignore_index follow the reference's formulas.
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

constexpr int kRowThreads = 256;

/// Row r's first element and stride.
__device__ __forceinline__ int64_t rowBase(int64_t r, int64_t length,
                                           int64_t inner) {
  return (r / inner) * length * inner + r % inner;
}

/// max and sum(exp(x - max)) of the block's row.
/// A row's scratch: 32 floats for the max, 32 doubles for the sums.
struct RowShared {
  float max[32];
  double sum[32];
};

/// max and sum(exp(x - max)) of the block's row.
__device__ void rowExpSum(Ref x, int64_t base, int64_t stride, int64_t length,
                          RowShared &shared, float &max, float &sum) {
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < length; j += blockDim.x)
    m = fmaxf(m, loadF(x, base + j * stride));
  max = blockReduce(m, -INFINITY, FMax(), shared.max);
  double s = 0;
  for (int64_t j = threadIdx.x; j < length; j += blockDim.x)
    s += expf(loadF(x, base + j * stride) - max);
  sum = static_cast<float>(blockReduce(s, 0.0, Sum(), shared.sum));
}

__global__ void softmaxKernel(bool isLog, Ref x, Ref y, int64_t length,
                              int64_t inner) {
  __shared__ RowShared shared;
  int64_t base = rowBase(blockIdx.x, length, inner);
  float max, sum;
  rowExpSum(x, base, inner, length, shared, max, sum);
  float logSum = logf(sum);
  for (int64_t j = threadIdx.x; j < length; j += blockDim.x) {
    int64_t e = base + j * inner;
    float v = loadF(x, e);
    storeF(y, e, isLog ? v - max - logSum : expf(v - max) / sum);
  }
}

__global__ void softmaxGradKernel(bool isLog, Ref grad, Ref y, Ref r,
                                  int64_t length, int64_t inner) {
  __shared__ double shared[32];
  int64_t base = rowBase(blockIdx.x, length, inner);
  double s = 0;
  for (int64_t j = threadIdx.x; j < length; j += blockDim.x) {
    int64_t e = base + j * inner;
    s += isLog ? static_cast<double>(loadF(grad, e))
               : static_cast<double>(loadF(grad, e)) * loadF(y, e);
  }
  float sum = static_cast<float>(blockReduce(s, 0.0, Sum(), shared));
  for (int64_t j = threadIdx.x; j < length; j += blockDim.x) {
    int64_t e = base + j * inner;
    float g = loadF(grad, e), out = loadF(y, e);
    storeF(r, e, isLog ? g - expf(out) * sum : out * (g - sum));
  }
}

/// The row's label; -1 for a row of ignore_index; -2 after reporting a
/// label out of range.
__device__ int64_t rowLabel(Ref labels, int64_t row, int64_t classes,
                            const CrossEntropyOptions &o, DeviceError *error,
                            int32_t launch) {
  int64_t label = loadI(labels, row);
  if (o.hasIgnore && label == o.ignore)
    return -1;
  if (label >= 0 && label < classes)
    return label;
  if (threadIdx.x == 0)
    reportError(error, launch, kLabelOutOfRange, label, row, classes);
  return -2;
}

/// Each row's term into partial[row] and whether it counts into
/// counted[row] (1 or 0): (1 - e) (lse - x[label]) + e (lse - mean_c x[c]),
/// the reference's formula.
__global__ void crossEntropyRowKernel(Ref logits, Ref labels, float *partial,
                                      float *counted, int64_t classes,
                                      CrossEntropyOptions o,
                                      DeviceError *error, int32_t launch) {
  __shared__ RowShared shared;
  int64_t row = blockIdx.x, base = row * classes;
  int64_t label = rowLabel(labels, row, classes, o, error, launch);
  float max, sum;
  rowExpSum(logits, base, 1, classes, shared, max, sum);
  double mean = 0;
  if (o.smoothing > 0) {
    double s = 0;
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
      s += loadF(logits, base + c);
    mean = blockReduce(s, 0.0, Sum(), shared.sum) / classes;
  }
  if (threadIdx.x != 0)
    return;
  counted[row] = label == -1 ? 0.0f : 1.0f;
  if (label < 0) {
    partial[row] = label == -1 ? 0.0f : NAN;
    return;
  }
  double term = (max - loadF(logits, base + label)) + logf(sum);
  if (o.smoothing > 0) {
    double lse = static_cast<double>(max) + log(static_cast<double>(sum));
    term = (1 - o.smoothing) * (lse - loadF(logits, base + label)) +
           o.smoothing * (lse - mean);
  }
  partial[row] = static_cast<float>(term);
}

/// One block: the sum of `rows` partial losses over the rows counted, in a
/// fixed order.
__global__ void meanKernel(const float *partial, const float *counted,
                           int64_t rows, Ref loss) {
  __shared__ double shared[32];
  double s = 0, n = 0;
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
    s += partial[r];
    n += counted[r];
  }
  double total = blockReduce(s, 0.0, Sum(), shared);
  double count = blockReduce(n, 0.0, Sum(), shared);
  if (threadIdx.x == 0)
    storeF(loss, 0, static_cast<float>(total / count));
}

/// One block: how many rows are not ignored, into *count.
__global__ void countKernel(Ref labels, int64_t rows, CrossEntropyOptions o,
                            float *count) {
  __shared__ double shared[32];
  double n = 0;
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x)
    n += !(o.hasIgnore && loadI(labels, r) == o.ignore);
  n = blockReduce(n, 0.0, Sum(), shared);
  if (threadIdx.x == 0)
    *count = static_cast<float>(n);
}

__global__ void crossEntropyGradKernel(Ref logits, Ref labels, Ref gradLoss,
                                       Ref r, const float *count,
                                       int64_t classes, CrossEntropyOptions o,
                                       DeviceError *error, int32_t launch) {
  __shared__ RowShared shared;
  int64_t row = blockIdx.x, base = row * classes;
  int64_t label = rowLabel(labels, row, classes, o, error, launch);
  float factor = loadF(gradLoss, 0) / *count;
  float off = o.smoothing / static_cast<float>(classes);
  float on = 1.0f - o.smoothing + off;
  float max, sum;
  rowExpSum(logits, base, 1, classes, shared, max, sum);
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    float p = expf(loadF(logits, base + c) - max) / sum;
    storeF(r, base + c,
           label == -1  ? 0.0f
           : label < 0 ? NAN
                       : (p - (c == label ? on : off)) * factor);
  }
}

/// Blocks for one block per row; rows beyond the grid limit need a 2-D
/// grid, which these kernels do not take: the backend checks the limit.
unsigned rowBlocks(int64_t rows) { return static_cast<unsigned>(rows); }

} // namespace

int mp::rt::cuda::softmax(const Context &ctx, bool isLog, Ref x, Ref y,
                          int64_t outer, int64_t length, int64_t inner) {
  int64_t rows = outer * inner;
  if (rows == 0)
    return 0;
  softmaxKernel<<<rowBlocks(rows), kRowThreads, 0, ctx.stream>>>(isLog, x, y,
                                                                 length, inner);
  return lastError();
}

int mp::rt::cuda::softmaxGrad(const Context &ctx, bool isLog, Ref grad, Ref y,
                              Ref r, int64_t outer, int64_t length,
                              int64_t inner) {
  int64_t rows = outer * inner;
  if (rows == 0)
    return 0;
  softmaxGradKernel<<<rowBlocks(rows), kRowThreads, 0, ctx.stream>>>(
      isLog, grad, y, r, length, inner);
  return lastError();
}

int mp::rt::cuda::crossEntropy(const Context &ctx, Ref logits, Ref labels,
                               Ref loss, float *workspace, int64_t rows,
                               int64_t classes, const CrossEntropyOptions &o) {
  float *partial = workspace, *counted = workspace + rows;
  if (rows > 0)
    crossEntropyRowKernel<<<rowBlocks(rows), kRowThreads, 0, ctx.stream>>>(
        logits, labels, partial, counted, classes, o, ctx.error, ctx.launch);
  meanKernel<<<1, 1024, 0, ctx.stream>>>(partial, counted, rows, loss);
  return lastError();
}

int mp::rt::cuda::crossEntropyGrad(const Context &ctx, Ref logits, Ref labels,
                                   Ref gradLoss, Ref r, float *workspace,
                                   int64_t rows, int64_t classes,
                                   const CrossEntropyOptions &o) {
  if (rows == 0)
    return 0;
  countKernel<<<1, 1024, 0, ctx.stream>>>(labels, rows, o, workspace);
  crossEntropyGradKernel<<<rowBlocks(rows), kRowThreads, 0, ctx.stream>>>(
      logits, labels, gradLoss, r, workspace, classes, o, ctx.error,
      ctx.launch);
  return lastError();
}
