//===- Embedding.cu - embedding lookup and its gradient -------------------===//
//
// The lookup copies rows (bits). The gradient is the simple deterministic
// path: a block per table row scans every index and sums the gradient rows
// that hit it, in order, in f32 (no atomics, so results are reproducible;
// O(vocab * indices) index reads, fine for the vocabularies of our
// examples, slow for very large ones: docs/runtime-cuda.md).
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

__global__ void embeddingKernel(const char *table, Ref indices, char *out,
                                int64_t vocab, int64_t rowBytes,
                                int64_t count, DeviceError *error,
                                int32_t launch) {
  int64_t n = count * rowBytes;
  MP_GRID_STRIDE(e, n) {
    int64_t i = e / rowBytes, byte = e % rowBytes;
    int64_t row = loadI(indices, i);
    if (row < 0 || row >= vocab) {
      if (byte == 0)
        reportError(error, launch, kIndexOutOfRange, row, i, vocab);
      out[e] = 0;
      continue;
    }
    out[e] = table[row * rowBytes + byte];
  }
}

__global__ void embeddingGradKernel(Ref grad, Ref indices, Ref table,
                                    int64_t vocab, int64_t width,
                                    int64_t count, DeviceError *error,
                                    int32_t launch) {
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

int mp::rt::cuda::embedding(const Context &ctx, const void *table,
                            Ref indices, void *out, int64_t vocab,
                            int64_t width, int64_t size, int64_t count) {
  int64_t n = count * width * size;
  if (n == 0)
    return 0;
  embeddingKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(
      static_cast<const char *>(table), indices, static_cast<char *>(out),
      vocab, width * size, count, ctx.error, ctx.launch);
  return lastError();
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
