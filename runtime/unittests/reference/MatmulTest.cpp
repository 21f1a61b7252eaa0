//===- MatmulTest.cpp - train.matmul --------------------------------------===//
#include "RefTestUtil.h"

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class MatmulTest : public ::testing::TestWithParam<DType> {};

struct MatmulCase {
  Shape batch;
  int64_t m, n, k;
  bool transposeLhs, transposeRhs, sharedRhs;
};

/// The double-precision product, straight from the definition.
Values referenceMatmul(const HostTensor &lhs, const HostTensor &rhs,
                       const MatmulCase &c) {
  int64_t batches = 1;
  for (int64_t b : c.batch)
    batches *= b;
  Values out;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < c.k; ++p) {
          int64_t l =
              b * c.m * c.k + (c.transposeLhs ? p * c.m + i : i * c.k + p);
          int64_t r = (c.sharedRhs ? 0 : b * c.k * c.n) +
                      (c.transposeRhs ? j * c.k + p : p * c.n + j);
          sum += lhs.at(l) * rhs.at(r);
        }
        out.push_back(sum);
      }
  return out;
}

Shape withMatrix(Shape batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}
} // namespace

TEST_P(MatmulTest, MatchesDoubleReference) {
  DType dtype = GetParam();
  const MatmulCase cases[] = {
      {{}, 5, 3, 40, false, false, true},
      {{}, 5, 3, 40, true, false, true},
      {{}, 5, 3, 40, false, true, true},
      {{}, 5, 3, 40, true, true, true},
      {{2, 3}, 4, 6, 9, false, false, false},
      {{2, 3}, 4, 6, 9, true, true, false},
      {{3}, 4, 6, 9, false, false, true}, // a linear layer on a sequence
      {{3}, 4, 6, 9, true, true, true},
      {{}, 1, 1, 1, false, false, true},
  };
  unsigned seed = 1;
  for (const MatmulCase &c : cases) {
    HostTensor lhs =
        randomTensor(dtype,
                     withMatrix(c.batch, c.transposeLhs ? c.k : c.m,
                                c.transposeLhs ? c.m : c.k),
                     -1, 1, seed++);
    HostTensor rhs = randomTensor(dtype,
                                  withMatrix(c.sharedRhs ? Shape{} : c.batch,
                                             c.transposeRhs ? c.n : c.k,
                                             c.transposeRhs ? c.k : c.n),
                                  -1, 1, seed++);
    AttrMap attrs = {{"transpose_lhs", intsAttr({c.transposeLhs})},
                     {"transpose_rhs", intsAttr({c.transposeRhs})}};
    Values want = referenceMatmul(lhs, rhs, c);
    // The result may be the inputs' dtype or f32 (wide accumulation).
    for (DType result : {dtype, DType::F32}) {
      HostTensor r(result, withMatrix(c.batch, c.m, c.n));
      ASSERT_OK(runKernel("train.matmul", attrs, {&lhs, &rhs}, {&r}));
      expectNear(r, want, accumulateTolerance(result),
                 "matmul " + formatShape(lhs.shape) + " x " +
                     formatShape(rhs.shape));
    }
  }
}

TEST(Matmul, RejectsBadShapesAndDTypes) {
  HostTensor a(DType::F32, {2, 3}), b(DType::F32, {4, 5}),
      r(DType::F32, {2, 5});
  expectError(checkKernel("train.matmul", {}, {&a, &b}, {&r}),
              StatusCode::InvalidArgument, "contracts lhs dimension of size 3");
  HostTensor b2(DType::BF16, {3, 5});
  expectError(checkKernel("train.matmul", {}, {&a, &b2}, {&r}),
              StatusCode::Unimplemented, "rhs of dtype f32 but got bf16");
  HostTensor b3(DType::F32, {3, 5}), narrow(DType::BF16, {2, 5});
  expectError(checkKernel("train.matmul", {}, {&a, &b3}, {&narrow}),
              StatusCode::Unimplemented,
              "never narrower than the input) but got bf16");
  HostTensor wrong(DType::F32, {2, 4});
  expectError(checkKernel("train.matmul", {}, {&a, &b3}, {&wrong}),
              StatusCode::InvalidArgument, "result of shape [2, 5]");
  HostTensor batched(DType::F32, {2, 2, 3}), rhs3(DType::F32, {3, 3, 5}),
      r3(DType::F32, {2, 2, 5});
  expectError(checkKernel("train.matmul", {}, {&batched, &rhs3}, {&r3}),
              StatusCode::InvalidArgument, "rhs batch dimensions [2]");
}

INSTANTIATE_TEST_SUITE_P(DTypes, MatmulTest, ::testing::ValuesIn(floatDTypes()),
                         dtypeTestName);
