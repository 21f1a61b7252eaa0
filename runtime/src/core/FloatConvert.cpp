//===- FloatConvert.cpp - whole runs of f32 <-> bf16 / f16 ----------------===//
//
// The bulk conversions every kernel uses to widen its 16-bit operands and
// round its results (loadFloats / storeFloats, toFloats / fromFloats): the
// arithmetic of floatToBFloat16 / bfloat16ToFloat (Tensor.cpp) with selects
// instead of branches so that the loops vectorize, in AVX-512 / AVX2
// versions where the CPU has them (and MP_MAX_CPU_ISA allows), and f32 <->
// f16 on the F16C instructions. Bitwise
// equal to the scalar conversions (tested on every 16-bit pattern and
// random f32 ones, under every instruction set the CPU has). Not oneDNN's reorder: its f32 -> bf16 conversion may
// use vcvtneps2bf16, which treats subnormal inputs as zero (Intel SDM), and
// the reference keeps them.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/CpuFeatures.h"
#include "mp/runtime/Tensor.h"

#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MP_HAVE_F16C_PATH 1
#endif

using namespace mp::rt;

namespace {
/// The loop bodies: written once, compiled for AVX-512, AVX2 and the
/// baseline by the wrappers below (each inlines them under its target), and
/// chosen at run time from cpuFeatureSet(), which honours MP_MAX_CPU_ISA:
/// 16 or 8 elements per instruction instead of 4 where the CPU has them.
inline __attribute__((always_inline)) void f32ToBf16Body(const uint32_t *in,
                                                         uint16_t *out,
                                                         int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = in[i];
    // Round to nearest even on the low half; carries into the exponent up
    // to inf, and works across subnormals.
    uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    uint32_t quietNan = (bits >> 16) | 0x40u;
    bool isNan = (bits & 0x7fffffffu) > 0x7f800000u;
    out[i] = static_cast<uint16_t>(isNan ? quietNan : rounded);
  }
}

inline __attribute__((always_inline)) void bf16ToF32Body(const uint16_t *in,
                                                         uint32_t *out,
                                                         int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t wide = static_cast<uint32_t>(in[i]) << 16;
    bool isNan = (wide & 0x7fffffffu) > 0x7f800000u;
    out[i] =
        isNan ? wide | 0x400000u : wide; // a signalling NaN comes out quiet
  }
}

using F32ToBf16 = void (*)(const uint32_t *, uint16_t *, int64_t);
using Bf16ToF32 = void (*)(const uint16_t *, uint32_t *, int64_t);

void f32ToBf16Baseline(const uint32_t *in, uint16_t *out, int64_t n) {
  f32ToBf16Body(in, out, n);
}
void bf16ToF32Baseline(const uint16_t *in, uint32_t *out, int64_t n) {
  bf16ToF32Body(in, out, n);
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) void f32ToBf16Avx2(const uint32_t *in,
                                                    uint16_t *out, int64_t n) {
  f32ToBf16Body(in, out, n);
}
__attribute__((target("avx2"))) void bf16ToF32Avx2(const uint16_t *in,
                                                    uint32_t *out, int64_t n) {
  bf16ToF32Body(in, out, n);
}
__attribute__((target("avx512f,avx512bw"))) void
f32ToBf16Avx512(const uint32_t *in, uint16_t *out, int64_t n) {
  f32ToBf16Body(in, out, n);
}
__attribute__((target("avx512f,avx512bw"))) void
bf16ToF32Avx512(const uint16_t *in, uint32_t *out, int64_t n) {
  bf16ToF32Body(in, out, n);
}
#endif

void f32ToBf16(const uint32_t *in, uint16_t *out, int64_t n) {
  static const F32ToBf16 fn = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    const CpuFeatureSet &f = cpuFeatureSet();
    if (f.avx512)
      return &f32ToBf16Avx512;
    if (f.avx2)
      return &f32ToBf16Avx2;
#endif
    return &f32ToBf16Baseline;
  }();
  fn(in, out, n);
}

void bf16ToF32(const uint16_t *in, uint32_t *out, int64_t n) {
  static const Bf16ToF32 fn = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    const CpuFeatureSet &f = cpuFeatureSet();
    if (f.avx512)
      return &bf16ToF32Avx512;
    if (f.avx2)
      return &bf16ToF32Avx2;
#endif
    return &bf16ToF32Baseline;
  }();
  fn(in, out, n);
}
} // namespace

#ifdef MP_HAVE_F16C_PATH
/// f32 <-> f16 with the F16C conversions (8 per instruction), which round
/// to nearest even, keep subnormals, and quiet NaNs keeping the top payload
/// bits: the reference's floatToHalf / halfToFloat, bit for bit (tested on
/// every f16 and 64 Ki random f32 patterns). The tail uses those functions.
__attribute__((target("avx,f16c"))) static void
f32ToF16(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i), h);
  }
  for (; i < n; ++i)
    out[i] = floatToHalf(in[i]);
}

__attribute__((target("avx,f16c"))) static void
f16ToF32(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                  reinterpret_cast<const __m128i *>(in + i))));
  for (; i < n; ++i)
    out[i] = halfToFloat(in[i]);
}

static bool haveF16c() { return cpuFeatureSet().f16c; }
#endif

void mp::rt::toFloats(DType dtype, const void *in, float *out,
                           int64_t n) {
  switch (dtype) {
  case DType::F32:
    std::memcpy(out, in, static_cast<size_t>(n) * sizeof(float));
    return;
  case DType::BF16:
    bf16ToF32(static_cast<const uint16_t *>(in), reinterpret_cast<uint32_t *>(out),
              n);
    return;
  default: {
    const uint16_t *half = static_cast<const uint16_t *>(in);
#ifdef MP_HAVE_F16C_PATH
    if (haveF16c()) {
      f16ToF32(half, out, n);
      return;
    }
#endif
    for (int64_t i = 0; i < n; ++i)
      out[i] = halfToFloat(half[i]);
  }
  }
}

void mp::rt::fromFloats(const float *in, DType dtype, void *out,
                             int64_t n) {
  switch (dtype) {
  case DType::F32:
    std::memcpy(out, in, static_cast<size_t>(n) * sizeof(float));
    return;
  case DType::BF16:
    f32ToBf16(reinterpret_cast<const uint32_t *>(in), static_cast<uint16_t *>(out),
              n);
    return;
  default: {
    uint16_t *half = static_cast<uint16_t *>(out);
#ifdef MP_HAVE_F16C_PATH
    if (haveF16c()) {
      f32ToF16(in, half, n);
      return;
    }
#endif
    for (int64_t i = 0; i < n; ++i)
      half[i] = floatToHalf(in[i]);
  }
  }
}

