//===- RmsNormTest.cpp - rms_norm and rms_norm_grad -----------------------===//
//
// The forward pass against its float64 definition (PyTorch's nn.RMSNorm) in
// every float dtype, the gradient against central differences of the f32
// forward kernel (a random linear functional of y), and the errors.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

class RmsNormTest : public ::testing::TestWithParam<DType> {};

TEST_P(RmsNormTest, MatchesFloat64) {
  DType d = GetParam();
  HostTensor x = randomTensor(d, {6, 41}, -3, 3, 7);
  HostTensor scale = randomTensor(DType::F32, {41}, 0.5, 1.5, 8);
  HostTensor y = zerosTensor(d, {6, 41}), inv = zerosTensor(DType::F32, {6});
  ASSERT_OK(runKernel("train.rms_norm", {{"epsilon", floatAttr(1e-5)}},
                      {&x, &scale}, {&y, &inv}));
  Values want(x.size()), wantInv(6);
  for (int64_t r = 0; r < 6; ++r) {
    double squares = 0;
    for (int64_t j = 0; j < 41; ++j)
      squares += x.at(r * 41 + j) * x.at(r * 41 + j);
    wantInv[r] = 1 / std::sqrt(squares / 41 + 1e-5);
    for (int64_t j = 0; j < 41; ++j)
      want[r * 41 + j] = x.at(r * 41 + j) * wantInv[r] * scale.at(j);
  }
  expectNear(y, want, elementwiseTolerance(d), "y");
  expectNear(inv, wantInv, elementwiseTolerance(DType::F32), "inv_rms");
}

INSTANTIATE_TEST_SUITE_P(DTypes, RmsNormTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);

TEST(RmsNormGradTest, AgreesWithFiniteDifferences) {
  for (int64_t axis : {-1, 1}) {
    HostTensor x = randomTensor(DType::F32, {3, 4, 5}, -2, 2, 3);
    Shape normalized = axis == -1 ? Shape{5} : Shape{4, 5};
    Shape rows = axis == -1 ? Shape{3, 4} : Shape{3};
    HostTensor scale = randomTensor(DType::F32, normalized, 0.5, 1.5, 4);
    HostTensor w = randomTensor(DType::F32, {3, 4, 5}, -1, 1, 5);
    HostTensor y = zerosTensor(DType::F32, {3, 4, 5});
    HostTensor inv = zerosTensor(DType::F32, rows);
    AttrMap attrs = {{"axis", intsAttr({axis})}};
    auto loss = [&] {
      EXPECT_TRUE(
          runKernel("train.rms_norm", attrs, {&x, &scale}, {&y, &inv}).isOk());
      return dot(y, w);
    };
    Values numericX = numericGradient(x, loss);
    Values numericScale = numericGradient(scale, loss);
    loss(); // inv_rms of the unperturbed x
    HostTensor dx = zerosTensor(DType::F32, {3, 4, 5});
    HostTensor dscale = zerosTensor(DType::F32, normalized);
    ASSERT_OK(runKernel("train.rms_norm_grad", attrs, {&w, &x, &scale, &inv},
                        {&dx, &dscale}));
    expectNear(dx, numericX, finiteDifferenceTolerance(), "grad_x");
    expectNear(dscale, numericScale, finiteDifferenceTolerance(),
               "grad_scale");
  }
}

TEST(RmsNormErrorsTest, NamesTheProblem) {
  HostTensor x = randomTensor(DType::F32, {2, 8}, -1, 1, 1);
  HostTensor scale = randomTensor(DType::F32, {7}, 0.5, 1.5, 2);
  HostTensor y = zerosTensor(DType::F32, {2, 8}), inv = zerosTensor(DType::F32, {2});
  expectError(runKernel("train.rms_norm", {}, {&x, &scale}, {&y, &inv}),
              StatusCode::InvalidArgument, "scale");
  HostTensor good = randomTensor(DType::F32, {8}, 0.5, 1.5, 2);
  expectError(runKernel("train.rms_norm", {{"epsilon", floatAttr(0)}},
                        {&x, &good}, {&y, &inv}),
              StatusCode::InvalidArgument, "positive epsilon");
}

} // namespace
