//===- MixedPrecision.cu - loss scaling on the device ---------------------===//
//
// The loss scaler never leaves the device: the unscale reads the scale from
// device memory, the verdict is a device byte, the selection of new or old
// state and the scale update read it there. The host learns the verdict
// only when the session reads it after the step (reference semantics in
// reference/MixedPrecision.cpp).
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

__global__ void scaleKernel(Ref value, const float *scale, Ref out, int64_t n) {
  float s = *scale;
  MP_GRID_STRIDE(i, n) storeF(out, i, loadF(value, i) * s);
}

__global__ void unscaleKernel(const float *scale, Ref g, Ref out, int64_t n,
                              uint8_t *finite) {
  float inverse = static_cast<float>(1.0 / static_cast<double>(*scale));
  bool allFinite = true;
  MP_GRID_STRIDE(i, n) {
    float v = loadF(g, i);
    allFinite = allFinite && isfinite(v);
    storeF(out, i, v * inverse);
  }
  if (!allFinite)
    *finite = 0;
}

__global__ void checkFiniteKernel(Ref v, int64_t n, uint8_t *finite) {
  bool allFinite = true;
  MP_GRID_STRIDE(i, n) allFinite = allFinite && isfinite(loadF(v, i));
  if (!allFinite)
    *finite = 0;
}

template <typename T>
__global__ void selectKernel(const uint8_t *pred, const T *a, const T *b,
                             T *out, int64_t n) {
  const T *from = *pred ? a : b;
  MP_GRID_STRIDE(i, n) out[i] = from[i];
}

__global__ void updateScaleKernel(const float *scale, Ref count,
                                  const uint8_t *finite, float *newScale,
                                  Ref newCount, ScalerParams p) {
  float s = *scale;
  int64_t c = loadI(count, 0);
  if (!*finite) {
    s = fmaxf(s * p.backoffFactor, p.minScale);
    c = 0;
  } else if (c >= p.growthInterval - 1) {
    c = 0;
    float grown = s * p.growthFactor;
    if (isfinite(grown))
      s = fminf(grown, p.maxScale);
  } else {
    ++c;
  }
  *newScale = s;
  storeI(newCount, 0, c);
}

} // namespace

int mp::rt::cuda::scale(const Context &ctx, Ref value, const float *scale,
                        Ref out, int64_t n) {
  scaleKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(value, scale, out, n);
  return lastError();
}

int mp::rt::cuda::unscale(const Context &ctx, const float *scale, Ref g,
                          Ref out, int64_t n, uint8_t *finite) {
  unscaleKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(scale, g, out, n,
                                                           finite);
  return lastError();
}

int mp::rt::cuda::checkFinite(const Context &ctx, Ref v, int64_t n,
                              uint8_t *finite) {
  checkFiniteKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(v, n, finite);
  return lastError();
}

int mp::rt::cuda::selectBytes(const Context &ctx, const uint8_t *pred,
                              const void *a, const void *b, void *out,
                              int64_t bytes) {
  auto aligned = [](const void *p) {
    return reinterpret_cast<uintptr_t>(p) % 4 == 0;
  };
  if (bytes % 4 == 0 && aligned(a) && aligned(b) && aligned(out)) {
    int64_t n = bytes / 4;
    selectKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(
        pred, static_cast<const uint32_t *>(a),
        static_cast<const uint32_t *>(b), static_cast<uint32_t *>(out), n);
  } else {
    selectKernel<<<blocksFor(bytes), kThreads, 0, ctx.stream>>>(
        pred, static_cast<const uint8_t *>(a), static_cast<const uint8_t *>(b),
        static_cast<uint8_t *>(out), bytes);
  }
  return lastError();
}

int mp::rt::cuda::updateScale(const Context &ctx, const float *scale, Ref count,
                              const uint8_t *finite, float *newScale,
                              Ref newCount, const ScalerParams &p) {
  updateScaleKernel<<<1, 1, 0, ctx.stream>>>(scale, count, finite, newScale,
                                             newCount, p);
  return lastError();
}
