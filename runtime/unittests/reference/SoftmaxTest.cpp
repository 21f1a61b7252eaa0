//===- SoftmaxTest.cpp - softmax, log_softmax, cross-entropy and grads ----===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class SoftmaxTest : public ::testing::TestWithParam<DType> {};

/// Calls f(indices of one row) for every row along `axis` of `shape`.
template <typename F> void forEachRow(const Shape &shape, int64_t axis, F f) {
  int64_t outer = 1, inner = 1, length = shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> row;
      for (int64_t j = 0; j < length; ++j)
        row.push_back((o * length + j) * inner + i);
      f(row);
    }
}

Values referenceSoftmax(const HostTensor &x, int64_t axis, bool log) {
  Values out(x.size());
  forEachRow(x.shape, axis, [&](const std::vector<int64_t> &row) {
    double sum = 0;
    for (int64_t e : row)
      sum += std::exp(x.at(e));
    for (int64_t e : row)
      out[e] = log ? x.at(e) - std::log(sum) : std::exp(x.at(e)) / sum;
  });
  return out;
}

double referenceCrossEntropy(const HostTensor &logits,
                             const HostTensor &labels) {
  int64_t n = logits.shape[0], c = logits.shape[1];
  double total = 0;
  for (int64_t r = 0; r < n; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < c; ++j)
      sum += std::exp(logits.at(r * c + j));
    total += std::log(sum) - logits.at(r * c + int64_t(labels.at(r)));
  }
  return total / n;
}
} // namespace

TEST_P(SoftmaxTest, ForwardAndGradsMatchDoubleReference) {
  DType dtype = GetParam();
  Shape shape{3, 5, 4};
  unsigned seed = 1;
  for (int64_t axis : {-1, 1, 0}) {
    int64_t a = axis < 0 ? axis + 3 : axis;
    AttrMap attrs = {{"axis", intsAttr({axis})}};
    HostTensor x = randomTensor(dtype, shape, -3, 3, seed++);
    HostTensor grad = randomTensor(dtype, shape, -1, 1, seed++);
    for (bool log : {false, true}) {
      std::string op = log ? "train.log_softmax" : "train.softmax";
      HostTensor y(dtype, shape);
      ASSERT_OK(runKernel(op, attrs, {&x}, {&y}));
      expectNear(y, referenceSoftmax(x, a, log), accumulateTolerance(dtype),
                 op + " axis " + std::to_string(axis));

      // The grads from the (rounded) forward output the kernel receives.
      Values want(x.size());
      forEachRow(shape, a, [&](const std::vector<int64_t> &row) {
        double sum = 0;
        for (int64_t e : row)
          sum += log ? grad.at(e) : grad.at(e) * y.at(e);
        for (int64_t e : row)
          want[e] = log ? grad.at(e) - std::exp(y.at(e)) * sum
                        : y.at(e) * (grad.at(e) - sum);
      });
      HostTensor dx(dtype, shape);
      ASSERT_OK(runKernel(op + "_grad", attrs, {&grad, &y}, {&dx}));
      expectNear(dx, want, accumulateTolerance(dtype),
                 op + "_grad axis " + std::to_string(axis));
    }
  }
}

TEST(Softmax, LargeLogitsDoNotOverflow) {
  HostTensor x = makeTensor(DType::F32, {1, 3}, {1000, 1001, -1000});
  HostTensor y(DType::F32, {1, 3}), ly(DType::F32, {1, 3});
  ASSERT_OK(runKernel("train.softmax", {{"axis", intsAttr({-1})}}, {&x}, {&y}));
  ASSERT_OK(
      runKernel("train.log_softmax", {{"axis", intsAttr({-1})}}, {&x}, {&ly}));
  double e = std::exp(-1.0);
  expectNear(y, {e / (1 + e), 1 / (1 + e), 0}, {1e-6, 1e-7}, "softmax");
  expectNear(ly, {-1 - std::log1p(e), -std::log1p(e), -2001 - std::log1p(e)},
             {1e-6, 1e-5}, "log_softmax");
}

TEST(Softmax, GradsMatchFiniteDifferences) {
  Shape shape{2, 5};
  for (bool log : {false, true}) {
    std::string op = log ? "train.log_softmax" : "train.softmax";
    AttrMap attrs = {{"axis", intsAttr({-1})}};
    HostTensor x = randomTensor(DType::F32, shape, -2, 2, 80);
    HostTensor w = randomTensor(DType::F32, shape, -1, 1, 81);
    HostTensor y(DType::F32, shape);
    auto loss = [&] {
      EXPECT_TRUE(runKernel(op, attrs, {&x}, {&y}).isOk());
      return dot(y, w);
    };
    Values numeric = numericGradient(x, loss);
    loss();
    HostTensor dx(DType::F32, shape);
    ASSERT_OK(runKernel(op + "_grad", attrs, {&w, &y}, {&dx}));
    expectNear(dx, numeric, finiteDifferenceTolerance(), op + "_grad");
  }
}

TEST_P(SoftmaxTest, CrossEntropyMatchesDoubleReference) {
  DType dtype = GetParam();
  for (DType labelType : {DType::I32, DType::I64}) {
    HostTensor logits = randomTensor(dtype, {6, 7}, -4, 4, 90);
    HostTensor labels = makeTensor(labelType, {6}, {0, 6, 3, 3, 1, 5});
    double want = referenceCrossEntropy(logits, labels);
    for (DType result : {dtype, DType::F32}) {
      HostTensor loss(result, {});
      ASSERT_OK(runKernel("train.sparse_cross_entropy", {}, {&logits, &labels},
                          {&loss}));
      expectNear(loss, {want}, accumulateTolerance(result), "cross-entropy");
    }
    for (DType seedType : {dtype, DType::F32}) {
      HostTensor gradLoss = makeTensor(seedType, {}, {1.5});
      HostTensor grad(dtype, {6, 7});
      ASSERT_OK(runKernel("train.sparse_cross_entropy_grad", {},
                          {&logits, &labels, &gradLoss}, {&grad}));
      Values wantGrad;
      for (int64_t r = 0; r < 6; ++r) {
        double sum = 0;
        for (int64_t j = 0; j < 7; ++j)
          sum += std::exp(logits.at(r * 7 + j));
        for (int64_t j = 0; j < 7; ++j)
          wantGrad.push_back((std::exp(logits.at(r * 7 + j)) / sum -
                              (j == labels.at(r) ? 1 : 0)) *
                             1.5 / 6);
      }
      expectNear(grad, wantGrad, accumulateTolerance(dtype),
                 "cross-entropy grad");
    }
  }
}

TEST(Softmax, CrossEntropyGradMatchesFiniteDifferences) {
  HostTensor logits = randomTensor(DType::F32, {4, 5}, -2, 2, 95);
  HostTensor labels = makeTensor(DType::I64, {4}, {4, 0, 2, 2});
  auto loss = [&] {
    HostTensor l(DType::F32, {});
    EXPECT_TRUE(
        runKernel("train.sparse_cross_entropy", {}, {&logits, &labels}, {&l})
            .isOk());
    return l.at(0);
  };
  Values numeric = numericGradient(logits, loss);
  HostTensor one = makeTensor(DType::F32, {}, {1});
  HostTensor grad(DType::F32, {4, 5});
  ASSERT_OK(runKernel("train.sparse_cross_entropy_grad", {},
                      {&logits, &labels, &one}, {&grad}));
  // The loss is a mean of O(1) values: its f32 rounding noise over a 2e-2
  // step is about 1e-5, well inside the tolerance.
  expectNear(grad, numeric, finiteDifferenceTolerance(), "d ce / d logits");
}

TEST(Softmax, LabelOutOfRangeIsInvalidArgument) {
  HostTensor logits(DType::F32, {3, 4}), loss(DType::F32, {}),
      grad(DType::F32, {3, 4});
  HostTensor one = makeTensor(DType::F32, {}, {1});
  for (int64_t bad : {4, -1}) {
    HostTensor labels = makeTensor(DType::I32, {3}, {0, double(bad), 1});
    expectError(runKernel("train.sparse_cross_entropy", {}, {&logits, &labels},
                          {&loss}),
                StatusCode::InvalidArgument,
                "train.sparse_cross_entropy: label " + std::to_string(bad) +
                    " in row 1 is outside [0, 4)");
    expectError(runKernel("train.sparse_cross_entropy_grad", {},
                          {&logits, &labels, &one}, {&grad}),
                StatusCode::InvalidArgument,
                "label " + std::to_string(bad) + " in row 1");
  }
  HostTensor floatLabels(DType::F32, {3});
  expectError(checkKernel("train.sparse_cross_entropy", {},
                          {&logits, &floatLabels}, {&loss}),
              StatusCode::Unimplemented, "labels of dtype i32 or i64");
}

INSTANTIATE_TEST_SUITE_P(DTypes, SoftmaxTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);
