//===- Accumulate.h - the sums every reduction kernel takes -----*- C++ -*-===//
//
// Every sum a kernel reduces over many elements (batch-norm and layer-norm
// statistics and gradient sums, reduce_sum / reduce_mean, global average
// pooling, the softmax and cross-entropy row sums, the loss mean)
// accumulates in f64: each term is formed in f64 from the f32 (or widened
// 16-bit) operands, and the sum is rounded to f32 once, when it is stored.
// An f32 accumulator loses ~n * 2^-24 of the sum's magnitude over n terms
// (a 1e-2 relative error in a batch-norm gradient at 64x64x56x56); in f64
// the accumulated error is below (n / 8 + 5) * 2^-53 * sum |t| — for
// n = 10^8 still under 1.5e-9 of sum |t| — so the stored sum is the f32
// rounding of the exact sum up to that (docs/runtime-reference.md).
//
// The contiguous forms below use eight interleaved accumulators (term j
// into lane j mod 8, lanes folded in one fixed tree) so that compilers
// vectorize them; the result depends only on n and the data, never on how
// a caller splits other dimensions over threads. Kernels that sum along a
// stride (a column, a channel of NHWC) add their terms to one f64 in order.
// The cpu backend runs the same lanes, additions and fold in AVX2 / AVX-512
// (cpu/Sums.cpp), bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_REFERENCE_ACCUMULATE_H
#define MP_RUNTIME_REFERENCE_ACCUMULATE_H

#include <cstdint>

namespace mp::rt::ref {

/// sum over j in [0, n) of term(j) (a double), eight lanes.
template <typename Term> inline double laneSum(int64_t n, Term term) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l)
      acc[l] += term(j + l);
  for (int l = 0; j < n; ++j, ++l)
    acc[l] += term(j);
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) +
         ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

/// sum v[j].
inline double sumOf(const float *v, int64_t n) {
  return laneSum(n, [v](int64_t j) { return static_cast<double>(v[j]); });
}

/// sum (v[j] - center)^2: the variance's numerator, two-pass.
inline double sumOfSquares(const float *v, int64_t n, double center) {
  return laneSum(n, [v, center](int64_t j) {
    double d = static_cast<double>(v[j]) - center;
    return d * d;
  });
}

/// sum a[j] * (b[j] - center): a gradient against centred values.
inline double sumOfProducts(const float *a, const float *b, int64_t n,
                            double center) {
  return laneSum(n, [a, b, center](int64_t j) {
    return static_cast<double>(a[j]) * (static_cast<double>(b[j]) - center);
  });
}

} // namespace mp::rt::ref

#endif // MP_RUNTIME_REFERENCE_ACCUMULATE_H
