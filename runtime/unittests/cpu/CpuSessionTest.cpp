//===- CpuSessionTest.cpp - whole steps on the cpu backend ----------------===//
//
// Plans run by a session on the cpu backend against the reference backend:
// a least-squares step with and without loss scaling, step for step; the
// layout's fusions as the cpu backend runs them (a gradient check in the
// optimizer update's pass, a batch norm's ReLU as it writes) against the
// kernels they replace.
//
//===----------------------------------------------------------------------===//
#include "../core/TestPlans.h"
#include "CpuKernelTestSupport.h"
#include "mp/runtime/Backend.h"
#include "mp/runtime/Session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace mp::rt;

namespace {

class CpuSessionTest : public test::CpuBackendAvailable {};

TEST_F(CpuSessionTest, WholePlanMatchesReference) {
  for (bool lossScaling : {false, true}) {
    SCOPED_TRACE(lossScaling ? "with loss scaling" : "without loss scaling");
    mp::rt::testing::LeastSquaresOptions options;
    options.lossScaling = lossScaling;
    StatusOr<std::unique_ptr<Session>> ref = Session::create(
        mp::rt::testing::makeLeastSquaresPlan(options), "reference");
    StatusOr<std::unique_ptr<Session>> cpu =
        Session::create(mp::rt::testing::makeLeastSquaresPlan(options), "cpu");
    ASSERT_TRUE(ref.isOk()) << ref.status().message();
    ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
    EXPECT_STREQ((*cpu)->backendName(), "cpu");
    Session *sessions[] = {ref->get(), cpu->get()};
    for (Session *s : sessions)
      ASSERT_TRUE(s->initParams(7).isOk());
    for (int step = 0; step < 20; ++step) {
      std::vector<float> x = mp::rt::testing::leastSquaresX(step);
      std::vector<float> t = mp::rt::testing::leastSquaresT(step);
      float losses[2];
      int i = 0;
      for (Session *s : sessions) {
        ASSERT_TRUE(
            s->setTensor("x", DType::F32, {4, 3}, x.data(), x.size() * 4)
                .isOk());
        ASSERT_TRUE(
            s->setTensor("t", DType::F32, {4, 2}, t.data(), t.size() * 4)
                .isOk());
        Status status = s->runStep(&losses[i++]);
        ASSERT_TRUE(status.isOk()) << status.message();
      }
      EXPECT_NEAR(losses[1], losses[0], 1e-5 * std::fabs(losses[0]) + 1e-6)
          << "step " << step;
      EXPECT_EQ((*cpu)->scalerStats().stepsSkipped,
                (*ref)->scalerStats().stepsSkipped);
      EXPECT_EQ((*cpu)->scalerStats().scale, (*ref)->scalerStats().scale);
    }
    float wRef[6], wCpu[6];
    ASSERT_TRUE((*ref)->getTensor("w", wRef, sizeof wRef).isOk());
    ASSERT_TRUE((*cpu)->getTensor("w", wCpu, sizeof wCpu).isOk());
    for (int i = 0; i < 6; ++i)
      EXPECT_NEAR(wCpu[i], wRef[i], 1e-5 * std::fabs(wRef[i]) + 1e-6);
  }
}

/// A plan's mp.all_finite over the gradients its optimizer updates read
/// (mp-guard-finite's check of a float32 / bf16 step) is marked fused by
/// layOutPlan, and the cpu backend checks in the update's pass: the check
/// kernel is not run (its verdict set, then cleared by the update), a
/// finite step is applied, and a non-finite gradient fails the step on
/// either parity with the state kept, as on the reference backend, which
/// runs the check as a kernel.
TEST_F(CpuSessionTest, FusedGradientCheckFailsTheStepLikeTheKernel) {
  mp::rt::testing::LeastSquaresOptions options;
  options.lossScaling = false;
  options.checkFinite = true;
  Plan plan = mp::rt::testing::makeLeastSquaresPlan(options);
  size_t check = plan.kernels.size();
  for (size_t k = 0; k < plan.kernels.size(); ++k)
    if (plan.kernels[k].op == "mp.all_finite")
      check = k;
  ASSERT_LT(check, plan.kernels.size());
  EXPECT_TRUE(plan.kernels[check].isFusedCheck());
  for (const char *backend : {"reference", "cpu"}) {
    SCOPED_TRACE(backend);
    StatusOr<std::unique_ptr<Session>> created = Session::create(plan, backend);
    ASSERT_TRUE(created.isOk()) << created.status().message();
    Session &session = **created;
    ASSERT_TRUE(session.initParams(3).isOk());
    std::string ran = session.kernelImplementations()[check];
    if (std::string(backend) == "cpu")
      EXPECT_EQ(ran, "checked by the optimizer updates as they read the "
                     "gradients");
    else
      EXPECT_EQ(ran.find("checked by the optimizer"), std::string::npos);
    for (int parity = 0; parity < 2; ++parity) {
      std::vector<float> x = mp::rt::testing::leastSquaresX(parity),
                         t = mp::rt::testing::leastSquaresT(parity);
      mp::rt::testing::bindLeastSquaresBatch(session, x, t);
      ASSERT_TRUE(session.runStep().isOk());
      float w[6], m[6], wAfter[6], mAfter[6];
      ASSERT_TRUE(session.getTensor("w", w, sizeof w).isOk());
      ASSERT_TRUE(session.getTensor("w.momentum_buffer", m, sizeof m).isOk());
      x[4] = std::numeric_limits<float>::infinity();
      mp::rt::testing::bindLeastSquaresBatch(session, x, t);
      Status failed = session.runStep();
      ASSERT_FALSE(failed.isOk());
      EXPECT_NE(failed.message().find("the gradient of 'w' has "),
                std::string::npos)
          << failed.message();
      ASSERT_TRUE(session.getTensor("w", wAfter, sizeof wAfter).isOk());
      ASSERT_TRUE(
          session.getTensor("w.momentum_buffer", mAfter, sizeof mAfter).isOk());
      EXPECT_EQ(std::memcmp(w, wAfter, sizeof w), 0);
      EXPECT_EQ(std::memcmp(m, mAfter, sizeof m), 0);
    }
  }
}

/// A watched step (the non-finite replay, mp-run --ranges) runs a fused
/// batch norm + ReLU as its two kernels, so that the watcher reads the
/// batch norm's y (a fused pass does not write it) and the ReLU's result
/// after each: relu(y) == r, element for element; a plain step fuses.
TEST_F(CpuSessionTest, WatchedStepRunsFusedActivationsInTheirPlace) {
  using mp::rt::testing::floats;
  using mp::rt::testing::ints;
  using mp::rt::testing::TestPlanBuilder;
  TestPlanBuilder b;
  const DType f32 = DType::F32;
  uint32_t x = b.tensor(TensorKind::Input, f32, {64, 16}, "x");
  uint32_t scale = b.tensor(TensorKind::Param, f32, {16}, "scale");
  uint32_t offset = b.tensor(TensorKind::Param, f32, {16}, "offset");
  uint32_t mean = b.tensor(TensorKind::Buffer, f32, {16}, "mean");
  uint32_t var = b.tensor(TensorKind::Buffer, f32, {16}, "var");
  uint32_t y = b.scratch(f32, {64, 16}), newMean = b.scratch(f32, {16}),
           newVar = b.scratch(f32, {16}), saved = b.scratch(f32, {16}),
           inv = b.scratch(f32, {16}), r = b.scratch(f32, {64, 16}),
           loss = b.scratch(f32, {});
  b.kernel("train.batch_norm", {x, scale, offset, mean, var},
           {y, newMean, newVar, saved, inv}, {{"feature_dim", ints({1})}});
  b.kernel("train.relu", {y}, {r});
  b.kernel("train.reduce_sum", {r}, {loss}, {{"dims", ints({0, 1})}});
  b.result(ResultRole::Loss, loss, "loss");
  b.result(ResultRole::Buffer, newMean, "mean", mean);
  b.result(ResultRole::Buffer, newVar, "var", var);
  Plan plan = b.finishLaidOut();
  ASSERT_TRUE(plan.kernels[1].isFusedActivation());
  StatusOr<std::unique_ptr<Session>> created = Session::create(plan, "cpu");
  ASSERT_TRUE(created.isOk()) << created.status().message();
  Session &session = **created;
  ASSERT_TRUE(session.initParams(5).isOk());
  std::vector<float> ones(16, 1.0f), zeros(16, 0.0f);
  ASSERT_TRUE(session.setTensor("scale", f32, {16}, ones.data(), 64).isOk());
  ASSERT_TRUE(session.setTensor("offset", f32, {16}, zeros.data(), 64).isOk());
  std::vector<float> input(64 * 16);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = std::sin(0.37f * static_cast<float>(i)) * 3.0f;
  ASSERT_TRUE(
      session.setTensor("x", f32, {64, 16}, input.data(), input.size() * 4)
          .isOk());
  float plainLoss = 0;
  ASSERT_TRUE(session.runStep(&plainLoss).isOk());
  EXPECT_EQ(session.kernelImplementations()[0],
            "own loop over channels, the ReLU applied as it writes");
  std::vector<float> yValues(64 * 16), rValues(64 * 16);
  std::vector<size_t> watched;
  Status status = session.runStepWatched([&](size_t kernel) {
    watched.push_back(kernel);
    if (kernel == 0) {
      EXPECT_TRUE(
          session.readTensor(y, yValues.data(), yValues.size() * 4).isOk());
    }
    if (kernel == 1) {
      EXPECT_TRUE(
          session.readTensor(r, rValues.data(), rValues.size() * 4).isOk());
    }
    return true;
  });
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(watched, (std::vector<size_t>{0, 1, 2}));
  size_t positive = 0;
  for (size_t i = 0; i < yValues.size(); ++i) {
    ASSERT_EQ(rValues[i], yValues[i] < 0 ? 0.0f : yValues[i]) << i;
    positive += yValues[i] > 0;
  }
  EXPECT_GT(positive, 0u);
  EXPECT_LT(positive, yValues.size());
}

} // namespace
