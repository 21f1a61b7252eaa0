//===- ReplayTest.cpp - the non-finite replay ------------------------------===//
//
// What a 16-bit type would do with a value (the thresholds of rounding to
// inf and to 0), and the replay of a step on the least-squares model: the
// first kernel with a non-finite output from finite inputs, a batch that is
// already non-finite, a step that is healthy, an overflow in the scaled
// backward pass; the replay changes no state and no counter.
//
//===----------------------------------------------------------------------===//
#include "TestPlans.h"
#include "mp/runtime/Replay.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

TEST(ReplayRangeTest, SixteenBitThresholds) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 65519 rounds to 65504 in f16, 65520 to inf; 2^-25 rounds to 0, 2^-24
  // is f16's smallest subnormal.
  std::vector<float> v = {65519.0f, 65520.0f, -70000.0f, std::ldexp(1.0f, -25),
                          std::ldexp(1.0f, -24), 0.0f, inf, nan, -inf,
                          3.4e38f, std::ldexp(1.0f, -134), 1.0f};
  ValueRange r = measureRange(v.data(), static_cast<int64_t>(v.size()));
  EXPECT_EQ(r.elements, 12);
  EXPECT_EQ(r.inf, 2);
  EXPECT_EQ(r.nan, 1);
  EXPECT_EQ(r.zeros, 1);
  EXPECT_FALSE(r.finite());
  EXPECT_EQ(r.overF16, 3); // 65520, -70000, 3.4e38
  EXPECT_EQ(r.flushF16, 2); // 2^-25, 2^-134
  EXPECT_EQ(r.overBF16, 1); // 3.4e38 > bf16's (2 - 2^-8) 2^127
  EXPECT_EQ(r.flushBF16, 1);
  EXPECT_FLOAT_EQ(r.maxAbs, 3.4e38f);
}

class ReplayTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    session = createTestSession(makeLeastSquaresPlan(), GetParam());
    ASSERT_TRUE(session);
    std::vector<float> ones(6, 1.0f);
    ASSERT_TRUE(session->setTensor("w", DType::F32, {3, 2}, ones.data(), 24)
                    .isOk());
  }
  std::unique_ptr<Session> session;
};

TEST_P(ReplayTest, NamesTheFirstKernelThatOverflowsAndChangesNothing) {
  std::vector<float> x = leastSquaresX(0), t = leastSquaresT(0);
  x[5] = 1e38f; // finite; (x w - t)^2 is not
  bindLeastSquaresBatch(*session, x, t);
  std::vector<float> w = readTensor<float>(*session, "w");
  std::vector<float> m = readTensor<float>(*session, "w.momentum_buffer");
  StatusOr<ReplayFinding> finding = replayStep(*session);
  ASSERT_TRUE(finding.isOk()) << finding.status().message();
  ASSERT_EQ(finding->kind, ReplayFinding::Kind::Kernel);
  const KernelDesc &kernel = session->plan().kernels[finding->kernel];
  EXPECT_EQ(kernel.op, "train.mul");
  EXPECT_FALSE(finding->scaled);
  for (const ValueRange &in : finding->inputs)
    EXPECT_TRUE(in.finite());
  ASSERT_FALSE(finding->outputs.empty());
  EXPECT_GT(finding->outputs[0].inf, 0);
  // Nothing changed: state, counters, and no results to read.
  EXPECT_EQ(readTensor<float>(*session, "w"), w);
  EXPECT_EQ(readTensor<float>(*session, "w.momentum_buffer"), m);
  EXPECT_EQ(session->scalerStats().stepsRun, 0);
  float loss;
  EXPECT_FALSE(session->getTensor("loss", &loss, 4).isOk());
  Diagnosis d = diagnose(*session, *finding, 4);
  EXPECT_NE(d.text.find("first non-finite value: kernel #" +
                        std::to_string(finding->kernel) + " train.mul"),
            std::string::npos)
      << d.text;
  EXPECT_NE(d.text.find("not a precision problem"), std::string::npos);
  EXPECT_FALSE(d.precisionProblem);
  EXPECT_EQ(d.proposal, "");
  // The step itself still runs afterwards as if nothing happened.
  EXPECT_TRUE(session->runStep().isOk());
  EXPECT_EQ(session->scalerStats().stepsRun, 1);
}

TEST_P(ReplayTest, ANonFiniteBatchIsTheData) {
  std::vector<float> x = leastSquaresX(0), t = leastSquaresT(0);
  t[3] = std::numeric_limits<float>::quiet_NaN();
  bindLeastSquaresBatch(*session, x, t);
  StatusOr<ReplayFinding> finding = replayStep(*session);
  ASSERT_TRUE(finding.isOk()) << finding.status().message();
  ASSERT_EQ(finding->kind, ReplayFinding::Kind::BadInput);
  EXPECT_EQ(session->plan().tensors[finding->tensor].name, "t");
  EXPECT_EQ(finding->input.nan, 1);
  Diagnosis d = diagnose(*session, *finding, 4);
  EXPECT_NE(d.text.find("check the data"), std::string::npos) << d.text;
}

TEST_P(ReplayTest, AHealthyStepIsAllFinite) {
  bindLeastSquaresBatch(*session, leastSquaresX(0), leastSquaresT(0));
  StatusOr<ReplayFinding> finding = replayStep(*session);
  ASSERT_TRUE(finding.isOk()) << finding.status().message();
  EXPECT_EQ(finding->kind, ReplayFinding::Kind::AllFinite);
  EXPECT_NE(diagnose(*session, *finding, 4).text.find("does not reproduce"),
            std::string::npos);
}

TEST_P(ReplayTest, AnOverflowUnderTheLossScaleIsInTheBackwardPass) {
  float huge = 3e38f;
  ASSERT_TRUE(session->setTensor("loss_scale", DType::F32, {}, &huge, 4).isOk());
  bindLeastSquaresBatch(*session, leastSquaresX(0), leastSquaresT(0));
  StatusOr<ReplayFinding> finding = replayStep(*session);
  ASSERT_TRUE(finding.isOk()) << finding.status().message();
  ASSERT_EQ(finding->kind, ReplayFinding::Kind::Kernel);
  EXPECT_TRUE(finding->scaled)
      << session->plan().kernels[finding->kernel].op;
}

INSTANTIATE_TEST_SUITE_P(Backends, ReplayTest,
                         ::testing::ValuesIn(testBackendNames()));

} // namespace
