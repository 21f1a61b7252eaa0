//===- LossScalerTest.cpp - skipped steps and the dynamic loss scale ------===//
//
// Injects inf and NaN into the batch at chosen steps and checks what the
// plan (as the compiler lowers loss scaling) and the session do together:
// the scale sequence of GradScaler, skipped steps that leave params and
// optimizer state bitwise unchanged, and the session's statistics.
//
//===----------------------------------------------------------------------===//
#include "TestPlans.h"
#include "mp/runtime/Session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

class LossScalerTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LossScalerTest, OverflowsSkipStepsAndBackOff) {
  LeastSquaresOptions options; // scale 4, growth every 3 finite steps
  auto created = createTestSession(makeLeastSquaresPlan(options), GetParam());
  ASSERT_TRUE(created);
  Session &session = *created;

  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> expectedScale = {4, 4, 2, 2, 2, 4, 2, 2, 2, 4};
  const std::vector<int64_t> expectedCount = {1, 2, 0, 1, 2, 0, 0, 1, 2, 0};
  for (int step = 0; step < 10; ++step) {
    std::vector<float> x = leastSquaresX(step), t = leastSquaresT(step);
    bool overflow = step == 2 || step == 6;
    if (step == 2)
      x[5] = inf;
    if (step == 6)
      t[3] = nan;
    bindLeastSquaresBatch(session, x, t);
    std::vector<float> w = readTensor<float>(session, "w");
    std::vector<float> m = readTensor<float>(session, "w.momentum_buffer");

    float loss;
    Status status = session.runStep(&loss);
    ASSERT_TRUE(status.isOk()) << status.message();
    EXPECT_EQ(std::isfinite(loss), !overflow) << "step " << step;
    EXPECT_EQ(readTensor<uint8_t>(session, "all_finite")[0], !overflow);
    EXPECT_EQ(readTensor<float>(session, "loss_scale")[0], expectedScale[step])
        << "step " << step;
    EXPECT_EQ(readTensor<int64_t>(session, "loss_scale.growth_count")[0],
              expectedCount[step])
        << "step " << step;
    if (overflow) {
      // Bitwise unchanged (EXPECT_EQ on vectors of floats compares values;
      // compare the bytes to be exact about -0 and NaN payloads).
      std::vector<float> w2 = readTensor<float>(session, "w");
      std::vector<float> m2 = readTensor<float>(session, "w.momentum_buffer");
      EXPECT_EQ(std::memcmp(w.data(), w2.data(), 24), 0) << "step " << step;
      EXPECT_EQ(std::memcmp(m.data(), m2.data(), 24), 0) << "step " << step;
    } else {
      EXPECT_NE(readTensor<float>(session, "w"), w) << "step " << step;
    }

    ScalerStats stats = session.scalerStats();
    EXPECT_EQ(stats.stepsRun, step + 1);
    EXPECT_EQ(stats.stepsSkipped, step >= 6 ? 2 : step >= 2 ? 1 : 0);
    EXPECT_EQ(stats.lastOverflowStep, step >= 6 ? 6 : step >= 2 ? 2 : -1);
    EXPECT_EQ(stats.scale, expectedScale[step]);
  }
}

TEST_P(LossScalerTest, WithoutScalerNoStatistics) {
  LeastSquaresOptions options;
  options.lossScaling = false;
  auto created = createTestSession(makeLeastSquaresPlan(options), GetParam());
  ASSERT_TRUE(created);
  Session &session = *created;
  std::vector<float> x = leastSquaresX(0), t = leastSquaresT(0);
  x[0] = std::numeric_limits<float>::infinity();
  bindLeastSquaresBatch(session, x, t);
  ASSERT_TRUE(session.runStep().isOk());
  ScalerStats stats = session.scalerStats();
  EXPECT_FALSE(stats.enabled);
  EXPECT_FALSE(stats.dynamicScale);
  EXPECT_EQ(stats.stepsRun, 1);
  EXPECT_EQ(stats.stepsSkipped, 0); // nobody said so: no scaler, no verdict
  EXPECT_EQ(stats.lastOverflowStep, -1);
  EXPECT_EQ(stats.scale, 1.0f);
}

INSTANTIATE_TEST_SUITE_P(Backends, LossScalerTest,
                         ::testing::ValuesIn(testBackendNames()));

} // namespace
