//===- Embedding.cu - embedding lookup and its gradient -------------------===//
//
// The lookup copies rows (bits, element by element). The gradient is the simple
// deterministic path: a block per table row scans every index and sums the
// gradient rows that hit it, in order, in f32 (no atomics, so results are
// reproducible; O(vocab * indices) index reads, fine for the vocabularies of
// our examples, slow for very large ones: docs/runtime-cuda.md).
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

template <typename T>
__global__ void embeddingKernel(const T *table, Ref indices, T *out,
                                int64_t vocab, int64_t width, int64_t count,
                                DeviceError *error, int32_t launch) {
  int64_t n = count * width;
  MP_GRID_STRIDE(e, n) {
    int64_t i = e / width, d = e % width;
    int64_t row = loadI(indices, i);
    if (row < 0 || row >= vocab) {
      if (d == 0)
        reportError(error, launch, kIndexOutOfRange, row, i, vocab);
      out[e] = T();
      continue;
    }
    out[e] = table[row * width + d];
  }
}

template <typename T>
int launchEmbedding(const Context &ctx, const void *table, Ref indices,
                    void *out, int64_t vocab, int64_t width, int64_t count) {
  embeddingKernel<T><<<blocksFor(count * width), kThreads, 0, ctx.stream>>>(
      static_cast<const T *>(table), indices, static_cast<T *>(out), vocab,
      width, count, ctx.error, ctx.launch);
  return lastError();
}

__global__ void embeddingGradKernel(Ref grad, Ref indices, Ref table,
                                    int64_t vocab, int64_t width, int64_t count,
                                    DeviceError *error, int32_t launch) {
  int64_t v = blockIdx.x;
  for (int64_t d0 = 0; d0 < width; d0 += blockDim.x) {
    int64_t d = d0 + threadIdx.x;
    float sum = 0;
    for (int64_t i = 0; i < count; ++i) {
      int64_t row = loadI(indices, i);
      if (row < 0 || row >= vocab) {
        if (v == 0 && d0 == 0 && threadIdx.x == 0)
          reportError(error, launch, kIndexOutOfRange, row, i, vocab);
        continue;
      }
      if (row == v && d < width)
        sum += loadF(grad, i * width + d);
    }
    if (d < width)
      storeF(table, v * width + d, sum);
  }
}

} // namespace

int mp::rt::cuda::embedding(const Context &ctx, const void *table, Ref indices,
                            void *out, int64_t vocab, int64_t width,
                            int64_t size, int64_t count) {
  if (count * width == 0)
    return 0;
  switch (size) {
  case 2:
    return launchEmbedding<uint16_t>(ctx, table, indices, out, vocab, width,
                                     count);
  case 4:
    return launchEmbedding<uint32_t>(ctx, table, indices, out, vocab, width,
                                     count);
  default: // the table is a float tensor: 2 or 4 bytes; 8 for safety
    return launchEmbedding<uint64_t>(ctx, table, indices, out, vocab, width,
                                     count);
  }
}

int mp::rt::cuda::embeddingGrad(const Context &ctx, Ref grad, Ref indices,
                                Ref table, int64_t vocab, int64_t width,
                                int64_t count) {
  if (vocab == 0 || width == 0)
    return 0;
  embeddingGradKernel<<<static_cast<unsigned>(vocab), 128, 0, ctx.stream>>>(
      grad, indices, table, vocab, width, count, ctx.error, ctx.launch);
  return lastError();
}
