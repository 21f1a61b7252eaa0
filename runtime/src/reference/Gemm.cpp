//===- Gemm.cpp - the f32 matrix product under matmul and conv ------------===//
#include "reference/Gemm.h"

#include <algorithm>
#include <vector>

using namespace mp::rt;
using namespace mp::rt::ref;

void ref::gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
               const float *a, const float *b, float *c, bool accumulate) {
  if (!accumulate)
    std::fill(c, c + m * n, 0.0f);
  // A transposed B costs one O(K*N) copy and keeps the O(M*N*K) loop below
  // vectorizable (a dot-product loop is a reduction the compiler may not
  // reorder).
  std::vector<float> bT;
  if (transB) {
    bT.resize(k * n);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        bT[p * n + j] = b[j * k + p];
    b = bT.data();
  }
  // i-k-j: the inner loop streams a row of B into a row of C.
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      float scale = transA ? a[p * m + i] : a[i * k + p];
      const float *bRow = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] += scale * bRow[j];
    }
  }
}
