//===- CrossEntropyOptionsTest.cpp - label smoothing and ignore_index -----===//
//
// sparse_cross_entropy and its gradient with PyTorch's label_smoothing and
// ignore_index, against their float64 definitions and central differences;
// without them the kernels are unchanged (SoftmaxTest).
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

constexpr int64_t kRows = 6, kClasses = 5;

/// PyTorch's F.cross_entropy(logits, labels, label_smoothing=e,
/// ignore_index=ignore) in double.
double expectedLoss(const HostTensor &x, const std::vector<int64_t> &labels,
                    double e, int64_t ignore) {
  double total = 0;
  int64_t counted = 0;
  for (int64_t n = 0; n < kRows; ++n) {
    if (labels[n] == ignore)
      continue;
    double sum = 0, mean = 0;
    for (int64_t c = 0; c < kClasses; ++c) {
      sum += std::exp(x.at(n * kClasses + c));
      mean += x.at(n * kClasses + c) / kClasses;
    }
    double lse = std::log(sum);
    total += (1 - e) * (lse - x.at(n * kClasses + labels[n])) + e * (lse - mean);
    ++counted;
  }
  return total / counted;
}

struct Batch {
  HostTensor x = randomTensor(DType::F32, {kRows, kClasses}, -3, 3, 21);
  std::vector<int64_t> labels = {2, -100, 0, 4, -100, 1};
  HostTensor y = makeTensor(DType::I64, {kRows}, {2, -100, 0, 4, -100, 1});
  AttrMap attrs = {{"label_smoothing", floatAttr(0.1)},
                   {"ignore_index", intsAttr({-100})}};
};

TEST(CrossEntropyOptionsTest, LossMatchesFloat64) {
  Batch s;
  HostTensor loss = zerosTensor(DType::F32, {});
  ASSERT_OK(runKernel("train.sparse_cross_entropy", s.attrs, {&s.x, &s.y},
                      {&loss}));
  expectNear(loss, {expectedLoss(s.x, s.labels, 0.1, -100)},
             accumulateTolerance(DType::F32), "smoothed, 2 rows ignored");
}

TEST(CrossEntropyOptionsTest, IgnoresAClassIndexToo) {
  // ignore_index = 0 (a padding token): the rows labelled 0 are left out,
  // as PyTorch does, though 0 is a class.
  Batch s;
  s.labels = {2, 0, 3, 4, 0, 1};
  s.y = makeTensor(DType::I64, {kRows}, {2, 0, 3, 4, 0, 1});
  s.attrs["ignore_index"] = intsAttr({0});
  HostTensor loss = zerosTensor(DType::F32, {});
  ASSERT_OK(runKernel("train.sparse_cross_entropy", s.attrs, {&s.x, &s.y},
                      {&loss}));
  expectNear(loss, {expectedLoss(s.x, s.labels, 0.1, 0)},
             accumulateTolerance(DType::F32), "rows of class 0 ignored");
  HostTensor seed = makeTensor(DType::F32, {}, {1});
  HostTensor grad = zerosTensor(DType::F32, {kRows, kClasses});
  ASSERT_OK(runKernel("train.sparse_cross_entropy_grad", s.attrs,
                      {&s.x, &s.y, &seed}, {&grad}));
  for (int64_t c = 0; c < kClasses; ++c)
    EXPECT_EQ(grad.at(1 * kClasses + c), 0.0) << "ignored row, class " << c;
}

TEST(CrossEntropyOptionsTest, GradientMatchesFloat64AndFiniteDifferences) {
  Batch s;
  HostTensor seed = makeTensor(DType::F32, {}, {2});
  HostTensor grad = zerosTensor(DType::F32, {kRows, kClasses});
  ASSERT_OK(runKernel("train.sparse_cross_entropy_grad", s.attrs,
                      {&s.x, &s.y, &seed}, {&grad}));
  Values want(kRows * kClasses, 0.0);
  for (int64_t n = 0; n < kRows; ++n) {
    if (s.labels[n] == -100)
      continue; // ignored rows: zero
    double sum = 0;
    for (int64_t c = 0; c < kClasses; ++c)
      sum += std::exp(s.x.at(n * kClasses + c));
    for (int64_t c = 0; c < kClasses; ++c) {
      double p = std::exp(s.x.at(n * kClasses + c)) / sum;
      double target = (c == s.labels[n] ? 0.9 : 0.0) + 0.1 / kClasses;
      want[n * kClasses + c] = (p - target) * 2 / 4; // 4 rows counted
    }
  }
  expectNear(grad, want, elementwiseTolerance(DType::F32), "gradient");

  HostTensor loss = zerosTensor(DType::F32, {});
  Values numeric = numericGradient(s.x, [&] {
    EXPECT_TRUE(runKernel("train.sparse_cross_entropy", s.attrs, {&s.x, &s.y},
                          {&loss})
                    .isOk());
    return 2 * loss.at(0);
  });
  expectNear(grad, numeric, finiteDifferenceTolerance(), "finite differences");
}

TEST(CrossEntropyOptionsTest, EveryRowIgnoredIsNaNAndZeroGradient) {
  Batch s;
  HostTensor y = makeTensor(DType::I64, {kRows},
                            Values(static_cast<size_t>(kRows), -100));
  HostTensor loss = zerosTensor(DType::F32, {});
  ASSERT_OK(runKernel("train.sparse_cross_entropy", s.attrs, {&s.x, &y},
                      {&loss}));
  EXPECT_TRUE(std::isnan(loss.at(0)));
  HostTensor seed = makeTensor(DType::F32, {}, {1});
  HostTensor grad = zerosTensor(DType::F32, {kRows, kClasses});
  ASSERT_OK(runKernel("train.sparse_cross_entropy_grad", s.attrs,
                      {&s.x, &y, &seed}, {&grad}));
  for (double v : grad.values())
    EXPECT_EQ(v, 0.0);
}

TEST(CrossEntropyOptionsTest, OtherLabelsOutsideTheClassesAreStillErrors) {
  Batch s;
  HostTensor y = makeTensor(DType::I64, {kRows}, {2, -1, 0, 4, -100, 1});
  HostTensor loss = zerosTensor(DType::F32, {});
  expectError(runKernel("train.sparse_cross_entropy", s.attrs, {&s.x, &y},
                        {&loss}),
              StatusCode::InvalidArgument, "label -1 in row 1");
  expectError(checkKernel("train.sparse_cross_entropy",
                          {{"label_smoothing", floatAttr(1.5)}}, {&s.x, &s.y},
                          {&loss}),
              StatusCode::InvalidArgument, "label_smoothing");
}

} // namespace
