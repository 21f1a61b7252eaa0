//===- Gemm.h - the f32 matrix product under matmul and conv ----*- C++ -*-===//
#ifndef MP_RUNTIME_REFERENCE_GEMM_H
#define MP_RUNTIME_REFERENCE_GEMM_H

#include <cstdint>

namespace mp::rt::ref {

/// C[M, N] (+)= op(A) * op(B) on dense row-major f32 matrices, with an f32
/// accumulator. op(A) is [M, K]: A is stored [M, K], or [K, M] when
/// `transA`; op(B) is [K, N]: B is stored [K, N], or [N, K] when `transB`.
/// With `accumulate` the product is added to C, otherwise C is overwritten.
/// Loop orders keep the innermost loop on contiguous memory.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          const float *a, const float *b, float *c, bool accumulate);

} // namespace mp::rt::ref

#endif // MP_RUNTIME_REFERENCE_GEMM_H
