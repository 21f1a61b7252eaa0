//===- Reduction.cu - reduce_sum, reduce_mean, reduce_max -----------------===//
//
// The result element o sums (or maxes) the x elements at keptOffset(o) +
// reducedOffset(r) for r in [0, perOutput). Two schedules: a thread per
// result element (coalesced when the kept dimensions are the inner ones, as
// in the bias gradient's sum over the batch), or a block per result element
// when the reduced elements are contiguous or there are few results. Both
// accumulate in f32 in a fixed order: results are reproducible.
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

__device__ __forceinline__ float finish(Reduce kind, float value,
                                        int64_t count) {
  return kind == Reduce::Mean ? value / static_cast<float>(count) : value;
}

__global__ void threadPerOutput(Reduce kind, Ref x, Ref r, Reduction d) {
  MP_GRID_STRIDE(o, d.outputs) {
    int64_t base = offsetOf(o, d.keptRank, d.kept, d.keptStrides);
    float acc = kind == Reduce::Max ? -INFINITY : 0.0f;
    for (int64_t i = 0; i < d.perOutput; ++i) {
      float v = loadF(
          x, base + offsetOf(i, d.reducedRank, d.reduced, d.reducedStrides));
      acc = kind == Reduce::Max ? NanMax()(acc, v) : acc + v;
    }
    storeF(r, o, finish(kind, acc, d.perOutput));
  }
}

__global__ void blockPerOutput(Reduce kind, Ref x, Ref r, Reduction d) {
  __shared__ float shared[32];
  int64_t o = blockIdx.x;
  int64_t base = offsetOf(o, d.keptRank, d.kept, d.keptStrides);
  bool isMax = kind == Reduce::Max;
  float acc = isMax ? -INFINITY : 0.0f;
  for (int64_t i = threadIdx.x; i < d.perOutput; i += blockDim.x) {
    float v = loadF(
        x, base + offsetOf(i, d.reducedRank, d.reduced, d.reducedStrides));
    acc = isMax ? NanMax()(acc, v) : acc + v;
  }
  acc = isMax ? blockReduce(acc, -INFINITY, NanMax(), shared)
              : blockReduce(acc, 0.0f, Sum(), shared);
  if (threadIdx.x == 0)
    storeF(r, o, finish(kind, acc, d.perOutput));
}

} // namespace

int mp::rt::cuda::reduce(const Context &ctx, Reduce kind, Ref x, Ref r,
                         const Reduction &d) {
  if (d.outputs == 0)
    return 0;
  bool contiguous =
      d.reducedRank > 0 && d.reducedStrides[d.reducedRank - 1] == 1;
  bool perBlock = (contiguous && d.perOutput >= 32) ||
                  (d.outputs < 512 && d.perOutput >= 1024);
  if (perBlock && d.outputs <= 0x7fffffff)
    blockPerOutput<<<static_cast<unsigned>(d.outputs), kThreads, 0,
                     ctx.stream>>>(kind, x, r, d);
  else
    threadPerOutput<<<blocksFor(d.outputs), kThreads, 0, ctx.stream>>>(kind, x,
                                                                       r, d);
  return lastError();
}
