//===- Reduction.cu - reduce_sum / mean / max, logsumexp, argmax ---------===//
//
// The result element o sums (or maxes) the x elements at keptOffset(o) +
// reducedOffset(r) for r in [0, perOutput). Three schedules: a block per
// result when the reduced elements are contiguous (or few, long results);
// tiles of 32 consecutive results split over 32 rows of threads when the
// kept dimensions are the inner ones (the bias gradient's sum over the
// batch: coalesced, and parallel even for a few hundred results); else a
// thread per result (always for logsumexp and argmax, two passes each). Sums accumulate in f64 (reference/Accumulate.h), max
// in f32, all in a fixed order: results are reproducible.
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

__device__ __forceinline__ int64_t offsetOf(int64_t index, int32_t rank,
                                            const int64_t *shape,
                                            const int64_t *strides) {
  int64_t offset = 0;
  for (int32_t d = rank - 1; d >= 0; --d) {
    offset += (index % shape[d]) * strides[d];
    index /= shape[d];
  }
  return offset;
}

__device__ __forceinline__ float finish(Reduce kind, double value,
                                        int64_t count) {
  return static_cast<float>(
      kind == Reduce::Mean ? value / static_cast<double>(count) : value);
}

__global__ void threadPerOutput(Reduce kind, Ref x, Ref r, Reduction d) {
  MP_GRID_STRIDE(o, d.outputs) {
    int64_t base = offsetOf(o, d.keptRank, d.kept, d.keptStrides);
    float max = -INFINITY;
    double acc = 0;
    for (int64_t i = 0; i < d.perOutput; ++i) {
      float v = loadF(
          x, base + offsetOf(i, d.reducedRank, d.reduced, d.reducedStrides));
      if (kind == Reduce::Max)
        max = NanMax()(max, v);
      else
        acc += v;
    }
    storeF(r, o, kind == Reduce::Max ? max : finish(kind, acc, d.perOutput));
  }
}

__global__ void blockPerOutput(Reduce kind, Ref x, Ref r, Reduction d) {
  __shared__ double shared[32];
  __shared__ float sharedMax[32];
  int64_t o = blockIdx.x;
  int64_t base = offsetOf(o, d.keptRank, d.kept, d.keptStrides);
  bool isMax = kind == Reduce::Max;
  float max = -INFINITY;
  double acc = 0;
  for (int64_t i = threadIdx.x; i < d.perOutput; i += blockDim.x) {
    float v = loadF(
        x, base + offsetOf(i, d.reducedRank, d.reduced, d.reducedStrides));
    if (isMax)
      max = NanMax()(max, v);
    else
      acc += v;
  }
  if (isMax)
    max = blockReduce(max, -INFINITY, NanMax(), sharedMax);
  else
    acc = blockReduce(acc, 0.0, Sum(), shared);
  if (threadIdx.x == 0)
    storeF(r, o, isMax ? max : finish(kind, acc, d.perOutput));
}

/// A tile of 32 consecutive results per block (consecutive in memory when
/// the innermost kept dimension has stride 1: the bias gradient's sum over
/// the batch); the block's 32 rows of threads split the reduced elements,
/// and row 0 adds the 32 partial results in order.
constexpr int kTileRows = 32;

__global__ void columnTiles(Reduce kind, Ref x, Ref r, Reduction d) {
  // Max values are held exactly in a double: one array serves both.
  __shared__ double partial[kTileRows][33];
  bool isMax = kind == Reduce::Max;
  int64_t o = blockIdx.x * static_cast<int64_t>(32) + threadIdx.x;
  float max = -INFINITY;
  double acc = 0;
  if (o < d.outputs) {
    int64_t base = offsetOf(o, d.keptRank, d.kept, d.keptStrides);
    for (int64_t i = threadIdx.y; i < d.perOutput; i += kTileRows) {
      float v = loadF(
          x, base + offsetOf(i, d.reducedRank, d.reduced, d.reducedStrides));
      if (isMax)
        max = NanMax()(max, v);
      else
        acc += v;
    }
  }
  partial[threadIdx.y][threadIdx.x] = isMax ? static_cast<double>(max) : acc;
  __syncthreads();
  if (threadIdx.y == 0 && o < d.outputs) {
    double total = partial[0][threadIdx.x];
    float totalMax = static_cast<float>(total);
    for (int row = 1; row < kTileRows; ++row)
      if (isMax)
        totalMax = NanMax()(totalMax,
                            static_cast<float>(partial[row][threadIdx.x]));
      else
        total += partial[row][threadIdx.x];
    storeF(r, o, isMax ? totalMax : finish(kind, total, d.perOutput));
  }
}

/// logsumexp (max + log sum exp(x - max), in f64; the max itself where it
/// is infinite or NaN) or argmax, two passes over each result's elements.
__global__ void twoPass(Reduce kind, Ref x, Ref r, Reduction d) {
  MP_GRID_STRIDE(o, d.outputs) {
    int64_t base = offsetOf(o, d.keptRank, d.kept, d.keptStrides);
    float max = -INFINITY;
    int64_t at = -1;
    for (int64_t i = 0; i < d.perOutput; ++i) {
      float v = loadF(
          x, base + offsetOf(i, d.reducedRank, d.reduced, d.reducedStrides));
      bool bestIsNan = at >= 0 && max != max;
      if (at < 0 || (!bestIsNan && (v > max || v != v))) {
        max = v;
        at = i;
      }
    }
    if (kind == Reduce::ArgMax) {
      // The reduced dimension is one: i is its index.
      storeI(r, o, d.perOutput ? at : -1);
      continue;
    }
    double sum = 0;
    if (isfinite(max))
      for (int64_t i = 0; i < d.perOutput; ++i)
        sum += exp(static_cast<double>(loadF(
                       x, base + offsetOf(i, d.reducedRank, d.reduced,
                                          d.reducedStrides))) -
                   max);
    storeF(r, o, isfinite(max) ? static_cast<float>(max + log(sum)) : max);
  }
}

} // namespace

int mp::rt::cuda::reduce(const Context &ctx, Reduce kind, Ref x, Ref r,
                         const Reduction &d) {
  if (d.outputs == 0)
    return 0;
  if (kind == Reduce::LogSumExp || kind == Reduce::ArgMax) {
    twoPass<<<blocksFor(d.outputs), kThreads, 0, ctx.stream>>>(kind, x, r, d);
    return lastError();
  }
  bool contiguous =
      d.reducedRank > 0 && d.reducedStrides[d.reducedRank - 1] == 1;
  bool keptInner = d.keptRank > 0 && d.keptStrides[d.keptRank - 1] == 1;
  if (contiguous && d.perOutput >= 32)
    blockPerOutput<<<static_cast<unsigned>(d.outputs), kThreads, 0,
                     ctx.stream>>>(kind, x, r, d);
  else if (keptInner && d.perOutput >= 64)
    columnTiles<<<static_cast<unsigned>((d.outputs + 31) / 32),
                  dim3(32, kTileRows), 0, ctx.stream>>>(kind, x, r, d);
  else if (d.outputs < 512 && d.perOutput >= 1024)
    blockPerOutput<<<static_cast<unsigned>(d.outputs), kThreads, 0,
                     ctx.stream>>>(kind, x, r, d);
  else
    threadPerOutput<<<blocksFor(d.outputs), kThreads, 0, ctx.stream>>>(kind, x,
                                                                       r, d);
  return lastError();
}
