//===- Shape.cu - strided gather (transpose, broadcast, slice), scatter (pad)===//
//
// result[i] = x[base + sum_d index_d(i) * steps[d]], elements copied as
// bits (any dtype), one thread per result element; and its mirror, the
// scatter of x's elements into a bigger result (pad).
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

/// Gather: out[i] = in[offset(i)]; scatter (its mirror): out[offset(i)] =
/// in[i]; offset(i) = base + sum_d index_d(i) * steps[d] over g.shape.
template <typename T, bool Scatter>
__global__ void stridedKernel(const T *in, T *out, Gather g, int64_t n) {
  MP_GRID_STRIDE(i, n) {
    int64_t offset = g.base, index = i;
    for (int32_t d = g.rank - 1; d >= 0; --d) {
      offset += (index % g.shape[d]) * g.steps[d];
      index /= g.shape[d];
    }
    if (Scatter)
      out[offset] = in[i];
    else
      out[i] = in[offset];
  }
}

template <typename T>
int launch(const Context &ctx, const void *in, void *out, const Gather &g,
           int64_t n, bool scatter) {
  auto kernel = scatter ? stridedKernel<T, true> : stridedKernel<T, false>;
  kernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(
      static_cast<const T *>(in), static_cast<T *>(out), g, n);
  return lastError();
}

int launchBySize(const Context &ctx, const void *in, void *out,
                 int64_t elementSize, const Gather &g, bool scatter) {
  int64_t n = 1;
  for (int32_t d = 0; d < g.rank; ++d)
    n *= g.shape[d];
  if (n == 0)
    return 0;
  switch (elementSize) {
  case 1:
    return launch<uint8_t>(ctx, in, out, g, n, scatter);
  case 2:
    return launch<uint16_t>(ctx, in, out, g, n, scatter);
  case 4:
    return launch<uint32_t>(ctx, in, out, g, n, scatter);
  default:
    return launch<uint64_t>(ctx, in, out, g, n, scatter);
  }
}

} // namespace

int mp::rt::cuda::gather(const Context &ctx, const void *in, void *out,
                         int64_t elementSize, const Gather &g) {
  return launchBySize(ctx, in, out, elementSize, g, false);
}

int mp::rt::cuda::scatter(const Context &ctx, const void *in, void *out,
                          int64_t elementSize, const Gather &g) {
  return launchBySize(ctx, in, out, elementSize, g, true);
}
