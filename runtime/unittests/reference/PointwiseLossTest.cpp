//===- PointwiseLossTest.cpp - mse, bce_with_logits, huber and grads ------===//
//
// Each loss against its float64 definition (PyTorch's MSELoss,
// BCEWithLogitsLoss, HuberLoss with reduction="mean"), each gradient
// against the analytic float64 derivative and against central differences
// of the f32 loss kernel, in every float dtype; the stable forms (no
// overflow for logits of 100, bitwise-symmetric Huber branches) and the
// errors.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

struct LossDef {
  const char *op;
  double (*term)(double x, double t, double delta);
  double (*derivative)(double x, double t, double delta);
};

double mse(double x, double t, double) { return (x - t) * (x - t); }
double mseD(double x, double t, double) { return 2 * (x - t); }
double bce(double x, double t, double) {
  // The textbook form, fine in double for |x| < 30.
  double p = 1 / (1 + std::exp(-x));
  return -(t * std::log(p) + (1 - t) * std::log(1 - p));
}
double bceD(double x, double t, double) { return 1 / (1 + std::exp(-x)) - t; }
double huber(double x, double t, double delta) {
  double d = std::fabs(x - t);
  return d <= delta ? d * d / 2 : delta * (d - delta / 2);
}
double huberD(double x, double t, double delta) {
  return std::max(-delta, std::min(delta, x - t));
}

const LossDef kLosses[] = {{"train.mse_loss", mse, mseD},
                           {"train.bce_with_logits_loss", bce, bceD},
                           {"train.huber_loss", huber, huberD}};

class PointwiseLossTest : public ::testing::TestWithParam<DType> {};

TEST_P(PointwiseLossTest, MatchesFloat64) {
  DType d = GetParam();
  for (const LossDef &loss : kLosses)
    for (double delta : {1.0, 0.3}) {
      bool huber = std::string(loss.op) == "train.huber_loss";
      if (!huber && delta != 1.0)
        continue;
      AttrMap attrs;
      if (huber)
        attrs["delta"] = floatAttr(delta);
      HostTensor x = randomTensor(d, {7, 33}, -4, 4, 11);
      HostTensor t = randomTensor(d, {7, 33}, 0, 1, 12);
      HostTensor out = zerosTensor(DType::F32, {});
      ASSERT_OK(runKernel(loss.op, attrs, {&x, &t}, {&out}));
      double sum = 0;
      for (int64_t i = 0; i < x.size(); ++i)
        sum += loss.term(x.at(i), t.at(i), delta);
      expectNear(out, {sum / x.size()}, accumulateTolerance(DType::F32),
                 loss.op);

      HostTensor seed = makeTensor(DType::F32, {}, {1.5});
      HostTensor grad = zerosTensor(d, {7, 33});
      ASSERT_OK(runKernel(std::string(loss.op) + "_grad", attrs,
                          {&x, &t, &seed}, {&grad}));
      Values want(x.size());
      for (int64_t i = 0; i < x.size(); ++i)
        want[i] = loss.derivative(x.at(i), t.at(i), delta) * 1.5 / x.size();
      expectNear(grad, want, elementwiseTolerance(d),
                 std::string(loss.op) + "_grad");
    }
}

TEST(PointwiseLossGradientTest, AgreesWithFiniteDifferences) {
  for (const LossDef &loss : kLosses) {
    HostTensor x = randomTensor(DType::F32, {5, 9}, -2, 2, 3);
    HostTensor t = randomTensor(DType::F32, {5, 9}, 0, 1, 4);
    HostTensor out = zerosTensor(DType::F32, {});
    auto value = [&] {
      EXPECT_TRUE(runKernel(loss.op, {}, {&x, &t}, {&out}).isOk());
      return out.at(0);
    };
    Values numeric = numericGradient(x, value);
    HostTensor seed = makeTensor(DType::F32, {}, {1});
    HostTensor grad = zerosTensor(DType::F32, {5, 9});
    ASSERT_OK(runKernel(std::string(loss.op) + "_grad", {}, {&x, &t, &seed},
                        {&grad}));
    expectNear(grad, numeric, finiteDifferenceTolerance(), loss.op);
  }
}

TEST(PointwiseLossEdgeTest, BceOfLargeLogitsDoesNotOverflow) {
  // e^100 overflows f32: the stable form gives the losses 0 and 100 (and
  // 100, 0 for -100), mean 50.
  HostTensor x = makeTensor(DType::F32, {4}, {100, 100, -100, -100});
  HostTensor t = makeTensor(DType::F32, {4}, {1, 0, 1, 0});
  HostTensor out = zerosTensor(DType::F32, {});
  ASSERT_OK(runKernel("train.bce_with_logits_loss", {}, {&x, &t}, {&out}));
  EXPECT_FLOAT_EQ(out.at(0), 50.0f);
  HostTensor seed = makeTensor(DType::F32, {}, {4});
  HostTensor grad = zerosTensor(DType::F32, {4});
  ASSERT_OK(runKernel("train.bce_with_logits_loss_grad", {}, {&x, &t, &seed},
                      {&grad}));
  // sigmoid(x) - t, the last sigmoid(-100) = e^-100: a subnormal f32.
  EXPECT_EQ(grad.at(0), 0.0);
  EXPECT_EQ(grad.at(1), 1.0);
  EXPECT_EQ(grad.at(2), -1.0);
  EXPECT_NEAR(grad.at(3), std::exp(-100.0), 1.5e-45);
}

TEST(PointwiseLossEdgeTest, NaNPropagatesAndHuberClampsBothWays) {
  HostTensor x = makeTensor(DType::F32, {3}, {NAN, 5, -5});
  HostTensor t = makeTensor(DType::F32, {3}, {0, 0, 0});
  HostTensor seed = makeTensor(DType::F32, {}, {3});
  HostTensor grad = zerosTensor(DType::F32, {3});
  ASSERT_OK(runKernel("train.huber_loss_grad", {}, {&x, &t, &seed}, {&grad}));
  EXPECT_TRUE(std::isnan(grad.at(0)));
  EXPECT_EQ(grad.at(1), 1.0);
  EXPECT_EQ(grad.at(2), -1.0);
  HostTensor out = zerosTensor(DType::F32, {});
  ASSERT_OK(runKernel("train.mse_loss", {}, {&x, &t}, {&out}));
  EXPECT_TRUE(std::isnan(out.at(0)));
}

TEST(PointwiseLossEdgeTest, ChecksNameTheProblem) {
  HostTensor x = zerosTensor(DType::F32, {2, 3});
  HostTensor t = zerosTensor(DType::F32, {3, 2});
  HostTensor out = zerosTensor(DType::F32, {});
  expectError(checkKernel("train.mse_loss", {}, {&x, &t}, {&out}),
              StatusCode::InvalidArgument, "target");
  HostTensor t2 = zerosTensor(DType::F32, {2, 3});
  expectError(checkKernel("train.huber_loss", {{"delta", floatAttr(0)}},
                          {&x, &t2}, {&out}),
              StatusCode::InvalidArgument, "'delta'");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, PointwiseLossTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);

} // namespace
