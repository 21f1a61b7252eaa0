//===- VectorMath.cpp - exp / erf / tanh over arrays ----------------------===//
#include "cpu/VectorMath.h"
#include "cpu/VectorLevel.h"
#include "common/ElementMath.h"

#include <cmath>
#include <cstring>

using namespace mp::rt;

#if defined(MP_HAVE_LIBMVEC) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

// libmvec's entry points, by the x86_64 vector function ABI names:
// 'e' AVX-512 (16 lanes), 'd' AVX2 (8), 'b' SSE (4).
extern "C" {
__m512 _ZGVeN16v_expf(__m512);
__m512 _ZGVeN16v_erff(__m512);
__m512 _ZGVeN16v_tanhf(__m512);
__m256 _ZGVdN8v_expf(__m256);
__m256 _ZGVdN8v_erff(__m256);
__m256 _ZGVdN8v_tanhf(__m256);
}

namespace {

template <__m512 (*F)(__m512), float (*Scalar)(float)>
__attribute__((target("avx512f"))) void apply512(const float *in, float *out,
                                                 int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(out + i, F(_mm512_loadu_ps(in + i)));
  if (i < n) {
    __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
    // Lanes past the end compute f(0): harmless, never stored.
    __m512 x = _mm512_maskz_loadu_ps(mask, in + i);
    _mm512_mask_storeu_ps(out + i, mask, F(x));
  }
  (void)Scalar;
}

template <__m256 (*F)(__m256), float (*Scalar)(float)>
__attribute__((target("avx2,fma"))) void apply256(const float *in, float *out,
                                                  int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, F(_mm256_loadu_ps(in + i)));
  for (; i < n; ++i)
    out[i] = Scalar(in[i]);
}

float expScalar(float x) { return std::exp(x); }
float erfScalar(float x) { return std::erf(x); }
float tanhScalar(float x) { return std::tanh(x); }

template <__m512 (*F16)(__m512), __m256 (*F8)(__m256), float (*Scalar)(float)>
void apply(const float *in, float *out, int64_t n) {
  switch (cpu::vectorLevel()) {
  case cpu::VectorLevel::Avx512:
    apply512<F16, Scalar>(in, out, n);
    return;
  case cpu::VectorLevel::Avx2:
    apply256<F8, Scalar>(in, out, n);
    return;
  case cpu::VectorLevel::None:
    for (int64_t i = 0; i < n; ++i)
      out[i] = Scalar(in[i]);
  }
}
} // namespace

void cpu::vectorExp(const float *in, float *out, int64_t n) {
  apply<_ZGVeN16v_expf, _ZGVdN8v_expf, expScalar>(in, out, n);
}
void cpu::vectorErf(const float *in, float *out, int64_t n) {
  apply<_ZGVeN16v_erff, _ZGVdN8v_erff, erfScalar>(in, out, n);
}
void cpu::vectorTanh(const float *in, float *out, int64_t n) {
  apply<_ZGVeN16v_tanhf, _ZGVdN8v_tanhf, tanhScalar>(in, out, n);
}

namespace {
// GELU and its gradient in one pass over the values (the scaling, the
// vector library's erf / exp and the combination per register), the
// reference's formulas operation for operation (common/ElementMath.h:
// geluExact, geluGradExactF; no multiply-add is fused), for a vector type
// V of L lanes (__m512 / __m256, GCC vector arithmetic) and its library
// functions; the tail on the scalar formulas.
// The templates below pass vectors by value but are always inlined into
// the target("avx512f") / target("avx2") functions that instantiate them,
// so GCC's note that such a signature's ABI differs without those targets
// concerns no call that is made (GCC reports it at the end of the file:
// the warning is off for the rest of it).
#pragma GCC diagnostic ignored "-Wpsabi"
template <typename V, V (*Erf)(V)>
inline __attribute__((always_inline)) V geluOf(V x) {
  V t = Erf(x * ref::kSqrtHalf);
  return (0.5f * x) * (1.0f + t);
}
template <typename V, V (*Erf)(V), V (*Exp)(V)>
inline __attribute__((always_inline)) V geluGradOf(V g, V x) {
  V a = Erf(x * ref::kSqrtHalf);
  V b = Exp((-0.5f * x) * x);
  return g * (0.5f * (1.0f + a) + (x * ref::kInvSqrt2Pi) * b);
}
/// The tanh form (geluTanh, geluGradTanhF).
template <typename V, V (*Tanh)(V)>
inline __attribute__((always_inline)) V geluTanhOf(V x) {
  V t = Tanh(ref::kSqrt2OverPi * (x + ((ref::kGeluCubic * x) * x) * x));
  return (0.5f * x) * (1.0f + t);
}
template <typename V, V (*Tanh)(V)>
inline __attribute__((always_inline)) V geluTanhGradOf(V g, V x) {
  V t = Tanh(ref::kSqrt2OverPi * (x + ((ref::kGeluCubic * x) * x) * x));
  V du = ref::kSqrt2OverPi * (1.0f + ((3.0f * ref::kGeluCubic) * x) * x);
  return g * (0.5f * (1.0f + t) + ((0.5f * x) * (1.0f - t * t)) * du);
}
template <typename V>
inline __attribute__((always_inline)) V loadV(const float *p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
/// y = Op(x) a vector at a time, the tail on the scalar rule.
template <typename V, V (*Op)(V), float (*Scalar)(float)>
inline __attribute__((always_inline)) void unaryLoop(const float *x, float *y,
                                                     int64_t n) {
  constexpr int64_t lanes = sizeof(V) / sizeof(float);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    V r = Op(loadV<V>(x + i));
    std::memcpy(y + i, &r, sizeof r);
  }
  for (; i < n; ++i)
    y[i] = Scalar(x[i]);
}
/// y = Op(g, x) a vector at a time, the tail on the scalar rule.
template <typename V, V (*Op)(V, V), float (*Scalar)(float, float)>
inline __attribute__((always_inline)) void
binaryLoop(const float *g, const float *x, float *y, int64_t n) {
  constexpr int64_t lanes = sizeof(V) / sizeof(float);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    V r = Op(loadV<V>(g + i), loadV<V>(x + i));
    std::memcpy(y + i, &r, sizeof r);
  }
  for (; i < n; ++i)
    y[i] = Scalar(g[i], x[i]);
}

/// The AVX-512 and AVX2 copies of the four loops.
/// The vector library's functions at one width.
struct Lib512 {
  using V = __m512;
  static constexpr V (*erf)(V) = _ZGVeN16v_erff;
  static constexpr V (*exp)(V) = _ZGVeN16v_expf;
  static constexpr V (*tanh)(V) = _ZGVeN16v_tanhf;
};
struct Lib256 {
  using V = __m256;
  static constexpr V (*erf)(V) = _ZGVdN8v_erff;
  static constexpr V (*exp)(V) = _ZGVdN8v_expf;
  static constexpr V (*tanh)(V) = _ZGVdN8v_tanhf;
};

/// GELU (Tanh: its tanh form) and its gradient at L's width.
template <typename L, bool Tanh>
inline __attribute__((always_inline)) void geluAt(const float *x, float *y,
                                                  int64_t n) {
  using V = typename L::V;
  if constexpr (Tanh)
    unaryLoop<V, geluTanhOf<V, L::tanh>, ref::geluTanh>(x, y, n);
  else
    unaryLoop<V, geluOf<V, L::erf>, ref::geluExact>(x, y, n);
}
template <typename L, bool Tanh>
inline __attribute__((always_inline)) void
geluGradAt(const float *g, const float *x, float *y, int64_t n) {
  using V = typename L::V;
  if constexpr (Tanh)
    binaryLoop<V, geluTanhGradOf<V, L::tanh>, ref::geluGradTanhF>(g, x, y, n);
  else
    binaryLoop<V, geluGradOf<V, L::erf, L::exp>, ref::geluGradExactF>(g, x, y,
                                                                      n);
}

/// The AVX-512 and AVX2 copies.
template <bool Tanh>
__attribute__((target("avx512f"))) void gelu512(const float *x, float *y,
                                                int64_t n) {
  geluAt<Lib512, Tanh>(x, y, n);
}
template <bool Tanh>
__attribute__((target("avx512f"))) void
geluGrad512(const float *g, const float *x, float *y, int64_t n) {
  geluGradAt<Lib512, Tanh>(g, x, y, n);
}
template <bool Tanh>
__attribute__((target("avx2"))) void gelu256(const float *x, float *y,
                                             int64_t n) {
  geluAt<Lib256, Tanh>(x, y, n);
}
template <bool Tanh>
__attribute__((target("avx2"))) void
geluGrad256(const float *g, const float *x, float *y, int64_t n) {
  geluGradAt<Lib256, Tanh>(g, x, y, n);
}
} // namespace

void cpu::vectorGelu(const float *x, float *y, int64_t n, bool tanhForm) {
  switch (cpu::vectorLevel()) {
  case cpu::VectorLevel::Avx512:
    return tanhForm ? gelu512<true>(x, y, n) : gelu512<false>(x, y, n);
  case cpu::VectorLevel::Avx2:
    return tanhForm ? gelu256<true>(x, y, n) : gelu256<false>(x, y, n);
  case cpu::VectorLevel::None:
    for (int64_t i = 0; i < n; ++i)
      y[i] = tanhForm ? ref::geluTanh(x[i]) : ref::geluExact(x[i]);
  }
}
void cpu::vectorGeluGrad(const float *g, const float *x, float *y, int64_t n,
                         bool tanhForm) {
  switch (cpu::vectorLevel()) {
  case cpu::VectorLevel::Avx512:
    return tanhForm ? geluGrad512<true>(g, x, y, n)
                    : geluGrad512<false>(g, x, y, n);
  case cpu::VectorLevel::Avx2:
    return tanhForm ? geluGrad256<true>(g, x, y, n)
                    : geluGrad256<false>(g, x, y, n);
  case cpu::VectorLevel::None:
    for (int64_t i = 0; i < n; ++i)
      y[i] = tanhForm ? ref::geluGradTanhF(g[i], x[i])
                      : ref::geluGradExactF(g[i], x[i]);
  }
}
const char *cpu::vectorMathName() {
  return cpu::vectorLevel() == cpu::VectorLevel::Avx512 ? "libmvec AVX-512"
         : cpu::vectorLevel() == cpu::VectorLevel::Avx2 ? "libmvec AVX2"
                                  : "libm";
}

#else // no libmvec: the scalar functions

void cpu::vectorExp(const float *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::exp(in[i]);
}
void cpu::vectorErf(const float *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::erf(in[i]);
}
void cpu::vectorTanh(const float *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::tanh(in[i]);
}
void cpu::vectorGelu(const float *x, float *y, int64_t n, bool tanhForm) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = tanhForm ? ref::geluTanh(x[i]) : ref::geluExact(x[i]);
}
void cpu::vectorGeluGrad(const float *g, const float *x, float *y, int64_t n,
                         bool tanhForm) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = tanhForm ? ref::geluGradTanhF(g[i], x[i])
                    : ref::geluGradExactF(g[i], x[i]);
}
const char *cpu::vectorMathName() { return "libm"; }

#endif
