//===- MatmulTest.cpp - train.matmul, mp.matmul_epilogue ------------------===//
#include "RefTestUtil.h"

#include <cmath>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class MatmulTest : public ::testing::TestWithParam<DType> {};
class MatmulEpilogueTest : public ::testing::TestWithParam<DType> {};

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

/// Every form: plain and transposed operands, batches, a rank-2 rhs shared
/// by the batch, the 1x1x1 edge.
const std::vector<MatmulCase> &matmulCases() {
  static const std::vector<MatmulCase> cases = {
      {{}, 5, 3, 40, false, false, true},
      {{}, 5, 3, 40, true, false, true},
      {{}, 5, 3, 40, false, true, true},
      {{}, 5, 3, 40, true, true, true},
      {{2, 3}, 4, 6, 9, false, false, false},
      {{2, 3}, 4, 6, 9, true, true, false},
      {{3}, 4, 6, 9, false, false, true}, // a linear layer on a sequence
      {{3}, 4, 6, 9, true, false, true},
      {{3}, 4, 6, 9, true, true, true},
      {{}, 1, 1, 1, false, false, true},
  };
  return cases;
}

/// Operands of case `c` in [-1, 1], laid out as its transposes say.
HostTensor randomLhs(const MatmulCase &c, DType dtype, unsigned seed) {
  return randomTensor(dtype,
                      withMatrix(c.batch, c.transposeLhs ? c.k : c.m,
                                 c.transposeLhs ? c.m : c.k),
                      -1, 1, seed);
}
HostTensor randomRhs(const MatmulCase &c, DType dtype, unsigned seed) {
  return randomTensor(dtype,
                      withMatrix(c.sharedRhs ? Shape{} : c.batch,
                                 c.transposeRhs ? c.n : c.k,
                                 c.transposeRhs ? c.k : c.n),
                      -1, 1, seed);
}

/// The product plus the bias (when given), then ReLU (when asked), in double.
Values withEpilogue(Values product, const HostTensor *bias, bool relu,
                    int64_t n) {
  for (size_t i = 0; i < product.size(); ++i) {
    double v = product[i] + (bias ? bias->at(i % n) : 0.0);
    product[i] = relu && v < 0 ? 0.0 : v;
  }
  return product;
}
} // namespace

TEST_P(MatmulTest, MatchesDoubleReference) {
  DType dtype = GetParam();
  const std::vector<MatmulCase> &cases = matmulCases();
  unsigned seed = 1;
  for (const MatmulCase &c : cases) {
    HostTensor lhs = randomLhs(c, dtype, seed++);
    HostTensor rhs = randomRhs(c, dtype, seed++);
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

TEST_P(MatmulEpilogueTest, MatchesDoubleReference) {
  DType dtype = GetParam();
  const std::vector<MatmulCase> &cases = matmulCases();
  unsigned seed = 11;
  int checked = 0;
  for (const MatmulCase &c : cases) {
    HostTensor lhs = randomLhs(c, dtype, seed++);
    HostTensor rhs = randomRhs(c, dtype, seed++);
    for (DType result : {dtype, DType::F32})
      for (int biasKind = 0; biasKind < 3; ++biasKind) // none, f32, result's
        for (bool relu : {false, true}) {
          HostTensor bias = randomTensor(biasKind == 1 ? DType::F32 : result,
                                         {c.n}, -2, 2, seed++);
          HostTensor *b = biasKind ? &bias : nullptr;
          std::vector<HostTensor *> inputs = {&lhs, &rhs};
          if (b)
            inputs.push_back(b);
          AttrMap attrs = {{"transpose_lhs", intsAttr({c.transposeLhs})},
                           {"transpose_rhs", intsAttr({c.transposeRhs})},
                           {"activation", stringAttr(relu ? "relu" : "none")}};
          HostTensor r(result, withMatrix(c.batch, c.m, c.n));
          ASSERT_OK(runKernel("mp.matmul_epilogue", attrs, inputs, {&r}));
          Values want = withEpilogue(referenceMatmul(lhs, rhs, c), b, relu, c.n);
          expectNear(r, want, accumulateTolerance(result),
                     "matmul_epilogue " + formatShape(lhs.shape) + " x " +
                         formatShape(rhs.shape) + " bias " +
                         std::to_string(biasKind) + " relu " +
                         std::to_string(relu));
          if (relu) {
            for (int64_t i = 0; i < r.size(); ++i) {
              ASSERT_GE(r.at(i), 0.0);
            }
          }
          ++checked;
        }
  }
  // Every case, result dtype, bias kind and activation.
  EXPECT_EQ(checked, static_cast<int>(cases.size()) * 2 * 3 * 2);
}

INSTANTIATE_TEST_SUITE_P(DTypes, MatmulEpilogueTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);

/// The point of the fusion: the bias is added to the f32 accumulator and
/// the sum rounded once. 1 + 2^-8 (the product) + 2^-8 (the bias) is
/// 1 + 2^-7, a bf16 value; rounding the product to bf16 first (a tie, to
/// even: 1) and then adding the bias (1 + 2^-8, a tie again: 1) gives 1.
TEST(MatmulEpilogue, RoundsOnce) {
  HostTensor lhs = makeTensor(DType::BF16, {1, 2}, {1, 1});
  HostTensor rhs = makeTensor(DType::BF16, {2, 1}, {1, std::ldexp(1.0, -8)});
  HostTensor bias = makeTensor(DType::F32, {1}, {std::ldexp(1.0, -8)});
  HostTensor r(DType::BF16, {1, 1});
  ASSERT_OK(runKernel("mp.matmul_epilogue", {}, {&lhs, &rhs, &bias}, {&r}));
  EXPECT_EQ(r.at(0), 1.0 + std::ldexp(1.0, -7));

  // The same with a bf16 bias and the unfused ops gives 1.
  HostTensor bias16 = makeTensor(DType::BF16, {1}, {std::ldexp(1.0, -8)});
  HostTensor product(DType::BF16, {1, 1}), sum(DType::BF16, {1, 1});
  ASSERT_OK(runKernel("train.matmul", {}, {&lhs, &rhs}, {&product}));
  ASSERT_OK(runKernel("train.bias_add", {}, {&product, &bias16}, {&sum}));
  EXPECT_EQ(sum.at(0), 1.0);
}

/// ReLU is the reference's: negatives and -0 to zero or -0, NaN kept.
TEST(MatmulEpilogue, ReluKeepsNaN) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor lhs = makeTensor(DType::F32, {4, 1}, {1, -1, nan, 0});
  HostTensor rhs = makeTensor(DType::F32, {1, 1}, {2});
  HostTensor bias = makeTensor(DType::F32, {1}, {0.5});
  HostTensor r(DType::F32, {4, 1});
  ASSERT_OK(runKernel("mp.matmul_epilogue",
                      {{"activation", stringAttr("relu")}},
                      {&lhs, &rhs, &bias}, {&r}));
  EXPECT_EQ(r.at(0), 2.5);
  EXPECT_EQ(r.at(1), 0.0);
  EXPECT_TRUE(std::isnan(r.at(2)));
  EXPECT_EQ(r.at(3), 0.5);
}

TEST(MatmulEpilogue, RejectsBadOperands) {
  HostTensor a(DType::BF16, {2, 3}), b(DType::BF16, {3, 5}),
      r(DType::BF16, {2, 5});
  HostTensor shortBias(DType::F32, {4});
  expectError(
      checkKernel("mp.matmul_epilogue", {}, {&a, &b, &shortBias}, {&r}),
      StatusCode::InvalidArgument, "bias of shape [5]");
  HostTensor f16Bias(DType::F16, {5});
  expectError(checkKernel("mp.matmul_epilogue", {}, {&a, &b, &f16Bias}, {&r}),
              StatusCode::Unimplemented,
              "expects a bias of dtype f32 or bf16 but got f16");
  HostTensor bias(DType::F32, {5});
  expectError(checkKernel("mp.matmul_epilogue",
                          {{"activation", stringAttr("gelu")}}, {&a, &b, &bias},
                          {&r}),
              StatusCode::InvalidArgument,
              "expects activation \"none\" or \"relu\" but got \"gelu\"");
  HostTensor wrongK(DType::BF16, {4, 5});
  expectError(checkKernel("mp.matmul_epilogue", {}, {&a, &wrongK}, {&r}),
              StatusCode::InvalidArgument, "contracts lhs dimension of size 3");
  expectError(checkKernel("mp.matmul_epilogue", {}, {&a}, {&r}),
              StatusCode::InvalidArgument,
              "expects 2 inputs (lhs, rhs) or 3 (lhs, rhs, bias) but got 1");
  HostTensor narrow(DType::F16, {2, 5});
  expectError(checkKernel("mp.matmul_epilogue", {}, {&a, &b}, {&narrow}),
              StatusCode::Unimplemented, "but got f16");
}
