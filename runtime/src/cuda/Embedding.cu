//===- Embedding.cu - embedding and gather lookups and their gradients ---===//
//
// The lookup copies slices (bits, element by element). The gradient is the
// simple deterministic path: a block per result row scans every index and
// sums the gradient rows that hit it, in order, in f32 (no atomics, so
// results are reproducible; O(rows * indices) index reads, fine for the
// vocabularies of our examples, slow for very large ones:
// docs/runtime-cuda.md).
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

template <typename T>
__global__ void takeKernel(const T *x, Ref indices, T *out, TakeDims dims,
                           DeviceError *error, int32_t launch) {
  int64_t n = dims.outer * dims.count * dims.inner;
  MP_GRID_STRIDE(e, n) {
    int64_t d = e % dims.inner, oi = e / dims.inner;
    int64_t i = oi % dims.count, o = oi / dims.count;
    int64_t row = loadI(indices, i);
    if (row < 0 || row >= dims.size) {
      if (d == 0 && o == 0)
        reportError(error, launch, kIndexOutOfRange, row, i, dims.size);
      out[e] = T();
      continue;
    }
    out[e] = x[(o * dims.size + row) * dims.inner + d];
  }
}

template <typename T>
int launchTake(const Context &ctx, const void *x, Ref indices, void *out,
               const TakeDims &dims) {
  takeKernel<T><<<blocksFor(dims.outer * dims.count * dims.inner), kThreads, 0,
                  ctx.stream>>>(static_cast<const T *>(x), indices,
                                static_cast<T *>(out), dims, ctx.error,
                                ctx.launch);
  return lastError();
}

/// A block per result row (o, v).
__global__ void takeGradKernel(Ref grad, Ref indices, Ref result,
                               TakeDims dims, DeviceError *error,
                               int32_t launch) {
  int64_t o = blockIdx.x / dims.size, v = blockIdx.x % dims.size;
  for (int64_t d0 = 0; d0 < dims.inner; d0 += blockDim.x) {
    int64_t d = d0 + threadIdx.x;
    float sum = 0;
    for (int64_t i = 0; i < dims.count; ++i) {
      int64_t row = loadI(indices, i);
      if (row < 0 || row >= dims.size) {
        if (blockIdx.x == 0 && d0 == 0 && threadIdx.x == 0)
          reportError(error, launch, kIndexOutOfRange, row, i, dims.size);
        continue;
      }
      if (row == v && d < dims.inner)
        sum += loadF(grad, (o * dims.count + i) * dims.inner + d);
    }
    if (d < dims.inner)
      storeF(result, (o * dims.size + v) * dims.inner + d, sum);
  }
}

} // namespace

int mp::rt::cuda::take(const Context &ctx, const void *x, Ref indices,
                       void *out, int64_t elementSize, const TakeDims &dims) {
  if (dims.outer * dims.count * dims.inner == 0)
    return 0;
  switch (elementSize) {
  case 1:
    return launchTake<uint8_t>(ctx, x, indices, out, dims);
  case 2:
    return launchTake<uint16_t>(ctx, x, indices, out, dims);
  case 4:
    return launchTake<uint32_t>(ctx, x, indices, out, dims);
  default: // i64
    return launchTake<uint64_t>(ctx, x, indices, out, dims);
  }
}

int mp::rt::cuda::takeGrad(const Context &ctx, Ref grad, Ref indices,
                           Ref result, const TakeDims &dims) {
  if (dims.outer * dims.size == 0 || dims.inner == 0)
    return 0;
  takeGradKernel<<<static_cast<unsigned>(dims.outer * dims.size), 128, 0,
                   ctx.stream>>>(grad, indices, result, dims, ctx.error,
                                 ctx.launch);
  return lastError();
}

namespace {
/// One thread per result element: 1 where the class is the index's.
__global__ void oneHotKernel(Ref indices, Ref out, int64_t n, int64_t classes,
                             DeviceError *error, int32_t launch) {
  MP_GRID_STRIDE(e, n * classes) {
    int64_t i = e / classes, c = e % classes;
    int64_t index = loadI(indices, i);
    if (c == 0 && (index < 0 || index >= classes))
      reportError(error, launch, kIndexOutOfRange, index, i, classes);
    storeF(out, e, index == c ? 1.0f : 0.0f);
  }
}
} // namespace

int mp::rt::cuda::oneHot(const Context &ctx, Ref indices, Ref out, int64_t n,
                         int64_t classes) {
  if (n == 0)
    return 0;
  oneHotKernel<<<blocksFor(n * classes), kThreads, 0, ctx.stream>>>(
      indices, out, n, classes, ctx.error, ctx.launch);
  return lastError();
}
