//===- Sums.h - the reference's f64 sums in AVX2 / AVX-512 ------*- C++ -*-===//
//
// ref::sumOf, sumOfSquares and sumOfProducts (reference/Accumulate.h: each
// term formed in f64, term j into lane j mod 8, the lanes folded in one
// fixed tree) written with AVX-512 (the eight lanes are one register) or
// AVX2 (two) where cpuFeatureSet() has them, the portable form otherwise.
// The lanes, the order of the additions and the fold are the reference's,
// and no multiply-add is fused, so every result is bitwise ref::'s: what
// changes is that the baseline build (SSE2, two doubles per instruction)
// no longer bounds batch norm's statistics.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_SUMS_H
#define MP_RUNTIME_CPU_SUMS_H

#include <cstdint>

namespace mp::rt::cpu {

double sumOf(const float *v, int64_t n);
double sumOfSquares(const float *v, int64_t n, double center);
double sumOfProducts(const float *a, const float *b, int64_t n, double center);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_SUMS_H
