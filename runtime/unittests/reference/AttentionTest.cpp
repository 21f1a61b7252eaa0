//===- AttentionTest.cpp - the definition of train.attention --------------===//
//
// The forward against cases whose answer is known (a causal first row is
// its value row; equal scores average the values the masks keep; an i1
// mask equals a -inf additive one), and the gradient against central
// differences of the forward, with a causal triangle, a broadcast float
// mask and an explicit scale. test/Tools/mp-run/attention.mlir checks the
// compiler's decomposition against these kernels.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

const int64_t kB = 2, kTq = 3, kTk = 4, kD = 5, kDv = 2;

TEST(AttentionTest, CausalFirstRowIsItsValueRow) {
  HostTensor q = randomTensor(DType::F32, {kB, kTq, kD}, -1, 1, 1);
  HostTensor k = randomTensor(DType::F32, {kB, kTk, kD}, -1, 1, 2);
  HostTensor v = randomTensor(DType::F32, {kB, kTk, kDv}, -1, 1, 3);
  HostTensor y = zerosTensor(DType::F32, {kB, kTq, kDv});
  ASSERT_OK(runKernel("train.attention", {{"causal", intsAttr({1})}},
                      {&q, &k, &v}, {&y}));
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t e = 0; e < kDv; ++e)
      EXPECT_EQ(y.at((b * kTq) * kDv + e), v.at((b * kTk) * kDv + e));
}

TEST(AttentionTest, EqualScoresAverageTheKeptValues) {
  // A zero query scores every key 0: the result is the mean of the values
  // the masks keep (causal: keys 0..i; the i1 mask drops key 1).
  HostTensor q = zerosTensor(DType::F32, {kB, kTq, kD});
  HostTensor k = randomTensor(DType::F32, {kB, kTk, kD}, -1, 1, 2);
  HostTensor v = randomTensor(DType::F32, {kB, kTk, kDv}, -1, 1, 3);
  HostTensor mask = makeTensor(DType::I1, {1, kTk}, {1, 0, 1, 1});
  HostTensor y = zerosTensor(DType::F32, {kB, kTq, kDv});
  ASSERT_OK(runKernel("train.attention", {{"causal", intsAttr({1})}},
                      {&q, &k, &v, &mask}, {&y}));
  Values want;
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t i = 0; i < kTq; ++i)
      for (int64_t e = 0; e < kDv; ++e) {
        double sum = 0;
        int kept = 0;
        for (int64_t j = 0; j <= i; ++j)
          if (j != 1) {
            sum += v.at((b * kTk + j) * kDv + e);
            ++kept;
          }
        want.push_back(sum / kept);
      }
  expectNear(y, want, accumulateTolerance(DType::F32), "masked mean");
}

TEST(AttentionTest, BoolMaskIsAMinusInfinityBias) {
  HostTensor q = randomTensor(DType::F32, {kB, kTq, kD}, -1, 1, 1);
  HostTensor k = randomTensor(DType::F32, {kB, kTk, kD}, -1, 1, 2);
  HostTensor v = randomTensor(DType::F32, {kB, kTk, kDv}, -1, 1, 3);
  Values bits = {1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1};
  Values bias;
  for (double bit : bits)
    bias.push_back(bit ? 0.0 : -std::numeric_limits<double>::infinity());
  HostTensor boolMask = makeTensor(DType::I1, {kTq, kTk}, bits);
  HostTensor floatMask = makeTensor(DType::F32, {kTq, kTk}, bias);
  HostTensor a = zerosTensor(DType::F32, {kB, kTq, kDv}), b = a;
  ASSERT_OK(runKernel("train.attention", {}, {&q, &k, &v, &boolMask}, {&a}));
  ASSERT_OK(runKernel("train.attention", {}, {&q, &k, &v, &floatMask}, {&b}));
  expectNear(a, b.values(), {0, 0}, "i1 vs -inf mask");
}

TEST(AttentionTest, FullyMaskedRowIsNaN) {
  HostTensor q = randomTensor(DType::F32, {1, 2, kD}, -1, 1, 1);
  HostTensor k = randomTensor(DType::F32, {1, kTk, kD}, -1, 1, 2);
  HostTensor v = randomTensor(DType::F32, {1, kTk, kDv}, -1, 1, 3);
  HostTensor mask = makeTensor(DType::I1, {2, kTk}, {0, 0, 0, 0, 1, 1, 1, 1});
  HostTensor y = zerosTensor(DType::F32, {1, 2, kDv});
  ASSERT_OK(runKernel("train.attention", {}, {&q, &k, &v, &mask}, {&y}));
  EXPECT_TRUE(std::isnan(y.at(0)));
  EXPECT_TRUE(std::isfinite(y.at(kDv)));
}

class AttentionGradTest : public ::testing::TestWithParam<bool> {};

TEST_P(AttentionGradTest, MatchesCentralDifferences) {
  bool withMask = GetParam();
  HostTensor q = randomTensor(DType::F32, {kB, kTq, kD}, -1, 1, 1);
  HostTensor k = randomTensor(DType::F32, {kB, kTk, kD}, -1, 1, 2);
  HostTensor v = randomTensor(DType::F32, {kB, kTk, kDv}, -1, 1, 3);
  HostTensor w = randomTensor(DType::F32, {kB, kTq, kDv}, -1, 1, 4);
  HostTensor mask = randomTensor(DType::F32, {kB, 1, kTk}, -2, 0, 5);
  AttrMap attrs = {{"causal", intsAttr({1})}, {"scale", floatAttr(0.7)}};
  std::vector<HostTensor *> in = {&q, &k, &v};
  if (withMask)
    in.push_back(&mask);
  HostTensor y = zerosTensor(DType::F32, {kB, kTq, kDv});
  auto loss = [&] {
    EXPECT_TRUE(runKernel("train.attention", attrs, in, {&y}).isOk());
    return dot(y, w);
  };
  Values numericQ = numericGradient(q, loss);
  Values numericK = numericGradient(k, loss);
  Values numericV = numericGradient(v, loss);
  HostTensor dq = zerosTensor(DType::F32, q.shape);
  HostTensor dk = zerosTensor(DType::F32, k.shape);
  HostTensor dv = zerosTensor(DType::F32, v.shape);
  std::vector<HostTensor *> gradIn = {&w, &q, &k, &v};
  if (withMask)
    gradIn.push_back(&mask);
  ASSERT_OK(runKernel("train.attention_grad", attrs, gradIn, {&dq, &dk, &dv}));
  expectNear(dq, numericQ, finiteDifferenceTolerance(), "grad_query");
  expectNear(dk, numericK, finiteDifferenceTolerance(), "grad_key");
  expectNear(dv, numericV, finiteDifferenceTolerance(), "grad_value");
}

INSTANTIATE_TEST_SUITE_P(Masks, AttentionGradTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "FloatMask" : "CausalOnly";
                         });

TEST(AttentionErrorsTest, NameTheProblem) {
  HostTensor q(DType::F32, {2, 3, 5}), k(DType::F32, {2, 4, 6});
  HostTensor v(DType::F32, {2, 4, 2}), y(DType::F32, {2, 3, 2});
  expectError(runKernel("train.attention", {}, {&q, &k, &v}, {&y}),
              StatusCode::InvalidArgument, "value [..., Tk, Dv] with one batch");
  HostTensor k2(DType::F32, {2, 4, 5}), mask(DType::I1, {3, 3});
  expectError(runKernel("train.attention", {}, {&q, &k2, &v, &mask}, {&y}),
              StatusCode::InvalidArgument, "broadcasts to the scores [2, 3, 4]");
}

} // namespace
