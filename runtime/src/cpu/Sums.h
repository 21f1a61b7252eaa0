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

/// Per-column f64 sums over `rows` rows of `n` floats, row r at r * stride:
/// each column's terms added one row at a time in row order, as the
/// reference's batch norm with the features last sums them (bitwise its
/// sums), the columns side by side in vector registers.
///   addColumns:        acc[j] += x[j]
///   addColumnSquares:  acc[j] += (x[j] - center[j])^2
///   addColumnGradSums: sum[j] += g[j]; prod[j] += g[j] * (x[j] - center[j])
void addColumns(double *acc, const float *x, int64_t rows, int64_t stride,
                int64_t n);
/// addColumns of bf16 values (widened as they are read: the same sums as
/// addColumns of their f32 values).
void addColumnsBf16(double *acc, const uint16_t *x, int64_t rows,
                    int64_t stride, int64_t n);
void addColumnSquares(double *acc, const float *x, int64_t rows,
                      int64_t stride, int64_t n, const double *center);
void addColumnGradSums(double *sum, double *prod, const float *g,
                       const float *x, int64_t rows, int64_t stride, int64_t n,
                       const double *center);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_SUMS_H
