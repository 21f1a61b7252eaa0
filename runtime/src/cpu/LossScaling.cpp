//===- LossScaling.cpp - mp.scale, mp.unscale_and_check, mp.all_finite ----===//
#include "cpu/LossScaling.h"

#include "cpu/Chunks.h"
#include "cpu/PathMode.h"

#include <atomic>
#include <cstring>

using namespace mp::rt;
using namespace mp::rt::cpu;

static bool isScalar(const TensorView &v, DType dtype) {
  return v.dtype == dtype && v.shape.empty() && v.data;
}

/// mp.scale: value * scale (an f32 scalar), one dtype in and out.
bool cpu::runScale(PathMode mode, const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) {
  if (in.size() != 2 || out.size() != 1 || !isScalar(in[1], DType::F32) ||
      !isFloat(in[0].dtype) || out[0].dtype != in[0].dtype ||
      out[0].shape != in[0].shape || (in[0].numElements() && !in[0].data))
    return false;
  if (mode == PathMode::Check)
    return true;
  float factor = *in[1].as<const float>();
  mapElements<1, 1>({&in[0]}, {&out[0]}, out[0].numElements(),
                    [factor](const float *const *x, float *const *y,
                             int64_t len) {
                      const float *a = x[0];
                      float *r = y[0];
MP_IVDEP
                      for (int64_t j = 0; j < len; ++j)
                        r[j] = a[j] * factor;
                    });
  return true;
}

/// Whether elements [begin, end) of a float tensor are all finite, read in
/// place: a value is inf or NaN exactly when its exponent bits are all
/// ones, in f32 (0x7f800000), bf16 (0x7f80) and f16 (0x7c00) alike, so the
/// 16-bit ones are not widened first. Stops at the first chunk with one.
template <typename Bits>
static inline __attribute__((always_inline)) bool
finiteBits(const Bits *v, int64_t begin, int64_t end, Bits mask) {
  for (int64_t c = begin; c < end; c += kChunk) {
    int64_t n = std::min(kChunk, end - c);
    Bits bad = 0;
    for (int64_t j = 0; j < n; ++j)
      bad |= static_cast<Bits>((v[c + j] & mask) == mask);
    if (bad)
      return false;
  }
  return true;
}
static inline __attribute__((always_inline)) bool
finiteRange(const TensorView &g, int64_t begin, int64_t end) {
  if (g.dtype == DType::F32)
    return finiteBits(g.as<const uint32_t>(), begin, end, 0x7f800000u);
  return finiteBits(g.as<const uint16_t>(), begin, end,
                    static_cast<uint16_t>(g.dtype == DType::BF16 ? 0x7f80u
                                                                 : 0x7c00u));
}
/// mp.unscale_and_check [scale, g...] -> [u..., all_finite] with the
/// reference's rule: u = f32(g) * f32(1 / scale) (reciprocal in double),
/// finiteness judged on the inputs. mp.all_finite [v...] -> [i1] when
/// `unscale` is false. The verdict is an AND: the same for any split.
bool cpu::runUnscaleAndCheck(PathMode mode, const std::vector<TensorView> &in,
                             const std::vector<TensorView> &out, bool unscale) {
  size_t first = unscale ? 1 : 0;
  size_t count = in.size() - first;
  if (in.size() <= first || out.size() != (unscale ? count + 1 : 1) ||
      (unscale && !isScalar(in[0], DType::F32)) ||
      !isScalar(out.back(), DType::I1))
    return false;
  for (size_t i = 0; i < count; ++i) {
    const TensorView &g = in[first + i];
    if (!isFloat(g.dtype) || (g.numElements() && !g.data))
      return false;
    if (unscale && (!isFloat(out[i].dtype) || out[i].shape != g.shape ||
                    (g.numElements() && !out[i].data)))
      return false;
  }
  if (mode == PathMode::Check)
    return true;
  float inverse =
      unscale ? static_cast<float>(1.0 / *in[0].as<const float>()) : 1.0f;
  std::atomic<bool> finite{true};
  for (size_t i = 0; i < count; ++i) {
    const TensorView &g = in[first + i];
    if (unscale) {
      mapElements<1, 1>({&g}, {&out[i]}, g.numElements(),
                        [&](const float *const *x, float *const *y,
                            int64_t len) {
                          const float *a = x[0];
                          float *r = y[0];
                          if (!finiteChunk(a, len))
                            finite = false;
MP_IVDEP
                          for (int64_t j = 0; j < len; ++j)
                            r[j] = a[j] * inverse;
                        });
    } else if (!allFinite(g)) {
      finite = false;
    }
  }
  *out.back().as<uint8_t>() = finite ? 1 : 0;
  return true;
}

bool cpu::allFinite(const TensorView &v) {
  std::atomic<bool> finite{true};
  parallelFor(v.numElements(), kGrain, [&](int64_t begin, int64_t end) {
    bool ok = true;
    runVectorized([&] { ok = finiteRange(v, begin, end); });
    if (!ok)
      finite = false;
  });
  return finite;
}
