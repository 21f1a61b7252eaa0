//===- Cast.cpp - mp.cast between f32 and bf16, vectorizable --------------===//
//
// The reference kernel converts element by element through loadFloat /
// storeFloat (a dtype switch and a call per element): in a mixed_bfloat16
// MLP step that was half of the time. These loops do the same arithmetic
// as floatToBFloat16 / bfloat16ToFloat (runtime/src/core/Tensor.cpp) with
// selects instead of branches, so that they vectorize. Not oneDNN's
// reorder: its f32 -> bf16 conversion may use vcvtneps2bf16, which treats
// subnormal inputs as zero (Intel SDM), and the reference keeps them.
//
//===----------------------------------------------------------------------===//
#include "cpu/Cast.h"

#include <system_error>
#include <thread>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MP_HAVE_F16C_PATH 1
#endif

using namespace mp::rt;

/// AVX-512 / AVX2 clones where the CPU has them (the build targets baseline
/// x86-64): 16 or 8 elements per instruction instead of 4.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MP_VECTOR_CLONES                                                       \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MP_VECTOR_CLONES
#endif

MP_VECTOR_CLONES static void f32ToBf16(const uint32_t *in, uint16_t *out,
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

MP_VECTOR_CLONES static void bf16ToF32(const uint16_t *in, uint32_t *out,
                                       int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t wide = static_cast<uint32_t>(in[i]) << 16;
    bool isNan = (wide & 0x7fffffffu) > 0x7f800000u;
    out[i] =
        isNan ? wide | 0x400000u : wide; // a signalling NaN comes out quiet
  }
}

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

static bool haveF16c() {
  static const bool have =
      __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return have;
}
#endif

/// Splits [0, n) over two threads when the tensor is big enough to pay for
/// starting one (a weight matrix, not a bias): the casts are memory bound,
/// and one core does not saturate the memory bandwidth. Each element is
/// converted by exactly one thread, so the result does not depend on it.
template <typename Fn> static void inHalves(int64_t n, Fn fn) {
  constexpr int64_t kThreadedFrom = 1 << 20;
  if (n < kThreadedFrom || std::thread::hardware_concurrency() < 2) {
    fn(0, n);
    return;
  }
  int64_t half = (n / 2 + 63) / 64 * 64; // cache-line aligned split
  std::thread other;
  try {
    other = std::thread([&] { fn(half, n); });
  } catch (const std::system_error &) { // no thread to be had: do it all
    fn(0, n);
    return;
  }
  fn(0, half);
  other.join();
}

bool mp::rt::cpu::castFast(const TensorView &input, const TensorView &output) {
  int64_t n = output.numElements();
  if (input.numElements() != n)
    return false;
  if (input.dtype == DType::F32 && output.dtype == DType::BF16) {
    const uint32_t *in = input.as<const uint32_t>();
    uint16_t *out = output.as<uint16_t>();
    inHalves(n,
             [&](int64_t b, int64_t e) { f32ToBf16(in + b, out + b, e - b); });
    return true;
  }
  if (input.dtype == DType::BF16 && output.dtype == DType::F32) {
    const uint16_t *in = input.as<const uint16_t>();
    uint32_t *out = output.as<uint32_t>();
    inHalves(n,
             [&](int64_t b, int64_t e) { bf16ToF32(in + b, out + b, e - b); });
    return true;
  }
#ifdef MP_HAVE_F16C_PATH
  if (haveF16c() && input.dtype == DType::F32 && output.dtype == DType::F16) {
    const float *in = input.as<const float>();
    uint16_t *out = output.as<uint16_t>();
    inHalves(n,
             [&](int64_t b, int64_t e) { f32ToF16(in + b, out + b, e - b); });
    return true;
  }
  if (haveF16c() && input.dtype == DType::F16 && output.dtype == DType::F32) {
    const uint16_t *in = input.as<const uint16_t>();
    float *out = output.as<float>();
    inHalves(n,
             [&](int64_t b, int64_t e) { f16ToF32(in + b, out + b, e - b); });
    return true;
  }
#endif
  // Same dtype: the reference stores loadFloat(x), which is the value
  // itself except that a signalling NaN comes out quiet; leave those
  // to it rather than copy bits that differ.
  return false;
}
