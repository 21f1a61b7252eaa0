//===- VectorMath.h - exp / erf / tanh over arrays --------------*- C++ -*-===//
//
// glibc's vector math library (libmvec: AVX-512, AVX2 or SSE variants by
// the CPU) over whole arrays, for the transcendental activations (GELU and
// its gradient, exp, erf, tanh) that a scalar libm call per element makes
// the slowest elementwise kernels of a Transformer step. libmvec's results
// are within 4 ulp of the correctly rounded value (glibc's manual); the
// kernels that use them are tested against the reference within an
// elementwise tolerance, not bitwise. Without libmvec the scalar libm
// functions run (then bitwise the reference).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_VECTORMATH_H
#define MP_RUNTIME_CPU_VECTORMATH_H

#include <cstdint>

namespace mp::rt::cpu {

/// out[i] = f(in[i]) for i < n; `in` and `out` may be the same array.
void vectorExp(const float *in, float *out, int64_t n);
void vectorErf(const float *in, float *out, int64_t n);
void vectorTanh(const float *in, float *out, int64_t n);
/// The exact GELU, 0.5 x (1 + erf(x / sqrt 2)), and its gradient
/// g (0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi)), or with
/// `tanhForm` the tanh approximation and its gradient: the reference's
/// formulas (common/ElementMath.h) with erf, exp and tanh from the vector
/// library, in one pass. `y` may be `x` or `g`.
void vectorGelu(const float *x, float *y, int64_t n, bool tanhForm = false);
void vectorGeluGrad(const float *g, const float *x, float *y, int64_t n,
                    bool tanhForm = false);
/// Whether the vector library is in use ("libmvec AVX-512" ...), or "libm".
const char *vectorMathName();

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_VECTORMATH_H
