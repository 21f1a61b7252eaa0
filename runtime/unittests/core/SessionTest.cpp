//===- SessionTest.cpp - binding tensors and running steps ----------------===//
#include "mp/runtime/Session.h"
#include "TestPlans.h"

#include <gtest/gtest.h>

#include <limits>

#include <cmath>
#include <cstring>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

void setBatch(Session &session, int step) {
  bindLeastSquaresBatch(session, leastSquaresX(step), leastSquaresT(step));
}

/// Runs on the fake backend and on the reference one.
class SessionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SessionTest, ListsNamedTensors) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session);
  EXPECT_STREQ(session->backendName(), GetParam().c_str());
  std::vector<std::string> names;
  for (const TensorInfo &info : session->tensors())
    names.push_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "x", "t", "w", "w.momentum_buffer", "loss_scale",
                       "loss_scale.growth_count", "loss", "all_finite", "y"}));
  const TensorInfo *w = session->findTensor("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, TensorKind::Param);
  EXPECT_FALSE(w->isOutput);
  EXPECT_EQ(w->shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(w->byteSize, 24u);
  const TensorInfo *y = session->findTensor("y");
  ASSERT_NE(y, nullptr);
  EXPECT_TRUE(y->isOutput);
  EXPECT_EQ(session->findTensor("nope"), nullptr);
}

TEST_P(SessionTest, InitialState) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session);
  EXPECT_EQ(readTensor<float>(*session, "w"), std::vector<float>(6, 0));
  EXPECT_EQ(readTensor<float>(*session, "loss_scale"), std::vector<float>{4});
  EXPECT_EQ(readTensor<int64_t>(*session, "loss_scale.growth_count"),
            std::vector<int64_t>{0});
  ScalerStats stats = session->scalerStats();
  EXPECT_TRUE(stats.enabled);
  EXPECT_TRUE(stats.dynamicScale);
  EXPECT_EQ(stats.stepsRun, 0);
  EXPECT_EQ(stats.lastOverflowStep, -1);
  EXPECT_EQ(stats.scale, 4.0f);
}

TEST_P(SessionTest, SetTensorChecksEverything) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session);
  std::vector<float> data(12, 1);
  Status s = session->setTensor("nope", DType::F32, {4, 3}, data.data(), 48);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_NE(s.message().find("'nope'"), std::string::npos);

  s = session->setTensor("x", DType::F32, {3, 4}, data.data(), 48);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "input 'x' is f32[4, 3], got f32[3, 4]");

  s = session->setTensor("x", DType::BF16, {4, 3}, data.data(), 24);
  EXPECT_EQ(s.message(), "input 'x' is f32[4, 3], got bf16[4, 3]");

  s = session->setTensor("x", DType::F32, {4, 3}, data.data(), 44);
  EXPECT_EQ(s.message(), "input 'x' (f32[4, 3]) has 48 bytes, got 44");

  s = session->setTensor("y", DType::F32, {4, 2}, data.data(), 32);
  EXPECT_EQ(s.message(), "'y' is a result of the step; it cannot be set");

  s = session->setTensor("x", DType::F32, {4, 3}, nullptr, 48);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);

  // Params can be set too.
  std::vector<float> w = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(session->setTensor("w", DType::F32, {3, 2}, w.data(), 24).isOk());
  EXPECT_EQ(readTensor<float>(*session, "w"), w);
}

TEST_P(SessionTest, GetTensorChecksTheBuffer) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session);
  float buffer[8];
  Status s = session->getTensor("w", buffer, 20);
  EXPECT_EQ(s.message(), "'w' (f32[3, 2]) has 24 bytes, the buffer 20");
  s = session->getTensor("y", buffer, 32);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("result 'y' has no value"), std::string::npos);
}

TEST_P(SessionTest, StepNeedsEveryInput) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session);
  Status s = session->runStep();
  EXPECT_EQ(s.message(), "cannot run a step: never set 'x', 't'; set every "
                         "input and label first");
  std::vector<float> x = leastSquaresX(0);
  ASSERT_TRUE(session->setTensor("x", DType::F32, {4, 3}, x.data(), 48).isOk());
  s = session->runStep();
  EXPECT_NE(s.message().find("never set 't'"), std::string::npos);
  EXPECT_EQ(session->scalerStats().stepsRun, 0);
}

TEST_P(SessionTest, TrainingReducesTheLoss) {
  for (bool scaling : {false, true}) {
    LeastSquaresOptions options;
    options.lossScaling = scaling;
    auto session = createTestSession(makeLeastSquaresPlan(options), GetParam());
    ASSERT_TRUE(session);
    float first = 0, loss = 0;
    for (int step = 0; step < 200; ++step) {
      setBatch(*session, step);
      Status s = session->runStep(&loss);
      ASSERT_TRUE(s.isOk()) << s.message();
      if (step == 0)
        first = loss;
    }
    EXPECT_GT(first, 1.0f);
    EXPECT_LT(loss, first * 1e-3f) << "scaling " << scaling;
    EXPECT_EQ(session->lastLoss(), loss);
    ScalerStats stats = session->scalerStats();
    EXPECT_EQ(stats.stepsRun, 200);
    EXPECT_EQ(stats.enabled, scaling);
    EXPECT_EQ(stats.stepsSkipped, 0);
    // The weights approach the target of leastSquaresT.
    std::vector<float> w = readTensor<float>(*session, "w");
    EXPECT_NEAR(w[0], 1.0f, 0.05f);
    EXPECT_NEAR(w[1], -2.0f, 0.05f);
  }
}

TEST_P(SessionTest, OutputsHoldTheLastStep) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session);
  std::vector<float> w = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(session->setTensor("w", DType::F32, {3, 2}, w.data(), 24).isOk());
  setBatch(*session, 0);
  float loss;
  ASSERT_TRUE(session->runStep(&loss).isOk());
  // y = x @ w with the weights before the update.
  std::vector<float> x = leastSquaresX(0), y = readTensor<float>(*session, "y");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) {
      float expected = 0;
      for (int k = 0; k < 3; ++k)
        expected += x[i * 3 + k] * w[k * 2 + j];
      EXPECT_NEAR(y[i * 2 + j], expected, 1e-5f);
    }
  EXPECT_EQ(readTensor<float>(*session, "loss"), std::vector<float>{loss});
  EXPECT_EQ(readTensor<uint8_t>(*session, "all_finite"),
            std::vector<uint8_t>{1});
  EXPECT_NE(readTensor<float>(*session, "w"), w);
}

INSTANTIATE_TEST_SUITE_P(Backends, SessionTest,
                         ::testing::ValuesIn(testBackendNames()));

/// A Check result (mp-guard-finite's finite_gradients) that is false fails
/// the step with an error naming the non-finite gradient by its param,
/// and the state stays as it was; on both parities of the double
/// buffering, and on the fake and reference backends.
TEST_P(SessionTest, FailedCheckFailsTheStepAndKeepsTheState) {
  LeastSquaresOptions options;
  options.lossScaling = false;
  options.checkFinite = true;
  auto session = createTestSession(makeLeastSquaresPlan(options), GetParam());
  ASSERT_TRUE(session);
  for (int parity = 0; parity < 2; ++parity) {
    setBatch(*session, parity);
    ASSERT_TRUE(session->runStep().isOk());
    std::vector<float> w = readTensor<float>(*session, "w");
    std::vector<float> m = readTensor<float>(*session, "w.momentum_buffer");
    std::vector<float> x = leastSquaresX(parity + 1);
    x[4] = std::numeric_limits<float>::quiet_NaN();
    bindLeastSquaresBatch(*session, x, leastSquaresT(parity + 1));
    Status failed = session->runStep();
    ASSERT_FALSE(failed.isOk());
    EXPECT_EQ(failed.code(), StatusCode::InvalidArgument);
    EXPECT_NE(failed.message().find("step " + std::to_string(parity + 2) +
                                    ": the gradient of 'w' has "),
              std::string::npos)
        << failed.message();
    EXPECT_NE(failed.message().find("the step was not applied"),
              std::string::npos);
    EXPECT_EQ(readTensor<float>(*session, "w"), w);
    EXPECT_EQ(readTensor<float>(*session, "w.momentum_buffer"), m);
    EXPECT_EQ(session->scalerStats().stepsRun, parity + 1);
  }
}

/// A plan with an empty param (a [0, 4] weight): initialization, setting
/// and reading it copy nothing, and never from a null pointer (UBSan found
/// memcpy(p, nullptr, 0) from ParamInit through Session::copyIn).
TEST(SessionEdgeTest, EmptyParamIsInitializedWithoutCopying) {
  TestPlanBuilder b;
  uint32_t w = b.tensor(TensorKind::Param, DType::F32, {0, 4}, "w");
  uint32_t loss = b.scratch(DType::F32, {});
  b.kernel("train.reduce_sum", {w}, {loss}, {{"dims", ints({0, 1})}});
  b.result(ResultRole::Loss, loss, "loss");
  auto session = createTestSession(b.finish(), "reference");
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->initParams(3).isOk());
  EXPECT_TRUE(session->setTensor("w", DType::F32, {0, 4}, nullptr, 0).isOk());
  EXPECT_TRUE(session->getTensor("w", nullptr, 0).isOk());
  ASSERT_TRUE(session->runStep().isOk());
  EXPECT_EQ(session->lastLoss(), 0.0f);
}

TEST(SessionFailureTest, FailedStepChangesNoState) {
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend *fake = backend.get();
  Plan plan = makeLeastSquaresPlan();
  size_t kernels = plan.kernels.size();
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(std::move(plan), std::move(backend));
  ASSERT_TRUE(created.isOk());
  Session &session = **created;
  setBatch(session, 0);
  ASSERT_TRUE(session.runStep().isOk());
  std::vector<float> w = readTensor<float>(session, "w");
  std::vector<float> m = readTensor<float>(session, "w.momentum_buffer");
  std::vector<int64_t> count =
      readTensor<int64_t>(session, "loss_scale.growth_count");

  // Fail the second to last kernel of the second step (the select).
  fake->failAtRun = static_cast<int64_t>(2 * kernels - 2);
  setBatch(session, 1);
  Status s = session.runStep();
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "step 1, kernel #" + std::to_string(kernels - 2) +
                             " (mp.select): injected failure");
  EXPECT_EQ(readTensor<float>(session, "w"), w);
  EXPECT_EQ(readTensor<float>(session, "w.momentum_buffer"), m);
  EXPECT_EQ(readTensor<int64_t>(session, "loss_scale.growth_count"), count);
  EXPECT_EQ(session.scalerStats().stepsRun, 1);
  float y[8];
  EXPECT_FALSE(session.getTensor("y", y, sizeof(y)).isOk());

  // The session goes on.
  ASSERT_TRUE(session.runStep().isOk());
  EXPECT_EQ(session.scalerStats().stepsRun, 2);

  // The updates are double-buffered (no copy after a step): a failure
  // leaves the state in place whichever slot holds it. Step 2 reads the
  // slots step 0 read; step 1 read the others.
  EXPECT_GT(session.doubleBufferedBytes(), 0u);
  w = readTensor<float>(session, "w");
  m = readTensor<float>(session, "w.momentum_buffer");
  count = readTensor<int64_t>(session, "loss_scale.growth_count");
  fake->failAtRun = static_cast<int64_t>(4 * kernels - 3);
  Status failed = session.runStep();
  ASSERT_FALSE(failed.isOk());
  EXPECT_EQ(failed.message(), "step 2, kernel #" + std::to_string(kernels - 2) +
                                  " (mp.select): injected failure");
  EXPECT_EQ(readTensor<float>(session, "w"), w);
  EXPECT_EQ(readTensor<float>(session, "w.momentum_buffer"), m);
  EXPECT_EQ(readTensor<int64_t>(session, "loss_scale.growth_count"), count);
  ASSERT_TRUE(session.runStep().isOk());
  EXPECT_NE(readTensor<float>(session, "w"), w);
}

TEST(SessionCreateTest, RejectsInvalidPlans) {
  Plan plan = makeLeastSquaresPlan();
  plan.kernels[1].inputs[0] = 99;
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(plan), std::make_unique<FakeBackend>());
  ASSERT_FALSE(session.isOk());
  EXPECT_NE(session.status().message().find("kernel #1 (train.sub)"),
            std::string::npos);
}

TEST(SessionCreateTest, ChecksEveryKernelWithTheBackend) {
  Plan plan = makeLeastSquaresPlan();
  plan.kernels[2].op = "train.pow"; // an op the fake backend lacks
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(plan), std::make_unique<FakeBackend>());
  ASSERT_FALSE(session.isOk());
  EXPECT_EQ(session.status().code(), StatusCode::Unimplemented);
  EXPECT_EQ(session.status().message(),
            "backend 'fake' cannot run kernel #2 (train.pow): the fake "
            "backend has no kernel for 'train.pow'");
}

TEST(SessionCreateTest, NamesEveryKernelTheBackendDeclinesAtOnce) {
  Plan plan = makeLeastSquaresPlan();
  plan.kernels[1].op = "train.pow";
  plan.kernels[2].op = "train.maximum";
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(plan), std::make_unique<FakeBackend>());
  ASSERT_FALSE(session.isOk());
  EXPECT_EQ(session.status().code(), StatusCode::Unimplemented);
  EXPECT_EQ(session.status().message(),
            "backend 'fake' cannot run 2 kernels of the plan: kernel #1 "
            "(train.pow): the fake backend has no kernel for 'train.pow'; "
            "kernel #2 (train.maximum): the fake backend has no kernel for "
            "'train.maximum'");
}

TEST(SessionCreateTest, OpsOutsideTheOpTableAreRejectedByName) {
  Plan plan = makeLeastSquaresPlan();
  plan.kernels[2].op = "train.frobnicate";
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(plan), std::make_unique<FakeBackend>());
  ASSERT_FALSE(session.isOk());
  EXPECT_EQ(session.status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(session.status().message(),
            "kernel #2 (train.frobnicate): 'train.frobnicate' is not an op of "
            "this runtime (a plan from a newer mp, or a mistyped name: "
            "recompile it)");
}

TEST(SessionCreateTest, BackendsByName) {
  for (const char *name : {"", "default", "reference"}) {
    StatusOr<std::unique_ptr<Session>> session =
        Session::create(makeLeastSquaresPlan(), name);
    ASSERT_TRUE(session.isOk()) << name << ": " << session.status().message();
    // The default is the cpu backend where oneDNN loads.
    bool cpuDefault = *name != 'r' && cpuBackendStatus().isOk();
    EXPECT_STREQ((*session)->backendName(), cpuDefault ? "cpu" : "reference");
  }
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(makeLeastSquaresPlan(), "tpu");
  ASSERT_FALSE(session.isOk());
  EXPECT_EQ(session.status().code(), StatusCode::NotFound);
  EXPECT_NE(session.status().message().find("unknown backend 'tpu'"),
            std::string::npos);
  EXPECT_FALSE(
      Session::create(makeLeastSquaresPlan(), std::unique_ptr<Backend>())
          .isOk());
}

TEST(SessionCreateTest, HugeArenaIsAnErrorNotACrash) {
  // No persistent updates: the session takes the plan's arena as it is.
  Plan plan = makeTwoReshapesPlan().plan;
  plan.arenaSize = uint64_t(1) << 55;
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(plan), "reference");
  ASSERT_FALSE(session.isOk());
  EXPECT_EQ(session.status().code(), StatusCode::Internal);
  EXPECT_NE(session.status().message().find("out of memory"),
            std::string::npos);
}

/// The session executes the plan's layout as written: with the compiled
/// layout w and m are double-buffered and the arena is the plan's; without
/// flags the same plan copies its state after each step. Both train alike.
TEST(SessionCreateTest, ExecutesThePlansLayoutAsWritten) {
  LeastSquaresOptions compiled, plain;
  plain.compiledLayout = false;
  Plan laidOut = makeLeastSquaresPlan(compiled);
  Plan unflagged = makeLeastSquaresPlan(plain);
  uint64_t arena = laidOut.arenaSize;
  auto flipping = createTestSession(laidOut, "reference");
  auto copying = createTestSession(unflagged, "reference");
  ASSERT_TRUE(flipping && copying);
  EXPECT_EQ(flipping->plan().arenaSize, arena);
  // w, m and the two scaler states, 64 bytes each (aligned).
  EXPECT_EQ(flipping->doubleBufferedBytes(), 4u * 64u);
  EXPECT_EQ(copying->doubleBufferedBytes(), 0u);
  for (int step = 0; step < 4; ++step) {
    float a, b;
    for (Session *session : {flipping.get(), copying.get()})
      bindLeastSquaresBatch(*session, leastSquaresX(step),
                            leastSquaresT(step));
    ASSERT_TRUE(flipping->runStep(&a).isOk());
    ASSERT_TRUE(copying->runStep(&b).isOk());
    EXPECT_EQ(a, b) << "step " << step;
  }
  EXPECT_EQ(readTensor<float>(*flipping, "w"),
            readTensor<float>(*copying, "w"));
}

TEST(SessionCreateTest, MeaningfulNamesMustLookThePart) {
  Plan plan = makeLeastSquaresPlan();
  plan.results.back().name = "all_finite";
  plan.results[plan.results.size() - 2].name = "finite";
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(plan), std::make_unique<FakeBackend>());
  ASSERT_FALSE(session.isOk());
  EXPECT_EQ(session.status().message(),
            "output 'all_finite' must be one i1 element (the loss scaler's "
            "verdict), not f32[4, 2]");
}

/// Results that swap two params: each value is the other's state, so the
/// copies after the step must go through a staging buffer.
TEST(SessionStateTest, SwappedStateIsStaged) {
  TestPlanBuilder b;
  uint32_t a = b.tensor(TensorKind::Param, DType::F32, {2}, "a");
  uint32_t c = b.tensor(TensorKind::Param, DType::F32, {2}, "b");
  uint32_t s = b.tensor(TensorKind::Param, DType::F32, {}, "s");
  b.result(ResultRole::Loss, s, "loss");
  b.result(ResultRole::Param, c, "a", a);
  b.result(ResultRole::Param, a, "b", c);
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(b.finish(), std::make_unique<FakeBackend>());
  ASSERT_TRUE(created.isOk()) << created.status().message();
  Session &session = **created;
  float av[2] = {1, 2}, bv[2] = {3, 4}, sv = 7;
  ASSERT_TRUE(session.setTensor("a", DType::F32, {2}, av, 8).isOk());
  ASSERT_TRUE(session.setTensor("b", DType::F32, {2}, bv, 8).isOk());
  ASSERT_TRUE(session.setTensor("s", DType::F32, {}, &sv, 4).isOk());
  float loss;
  ASSERT_TRUE(session.runStep(&loss).isOk());
  EXPECT_EQ(loss, 7.0f);
  EXPECT_EQ(readTensor<float>(session, "a"), (std::vector<float>{3, 4}));
  EXPECT_EQ(readTensor<float>(session, "b"), (std::vector<float>{1, 2}));
  ASSERT_TRUE(session.runStep().isOk());
  EXPECT_EQ(readTensor<float>(session, "a"), (std::vector<float>{1, 2}));
  ScalerStats stats = session.scalerStats();
  EXPECT_FALSE(stats.enabled);
  EXPECT_FALSE(stats.dynamicScale);
  EXPECT_EQ(stats.scale, 1.0f);
}

/// w's bf16 copy, made by an mp.cast at the start of the step, is hoisted
/// after the optimizer: each step must still read bf16(w) of the w it
/// starts with, also after setTensor and after a step that failed once the
/// update (and the next copy) had been written.
TEST(SessionStateTest, HoistedWeightCastReadsTheCurrentWeights) {
  TestPlanBuilder b;
  const DType f32 = DType::F32;
  uint32_t x = b.tensor(TensorKind::Input, f32, {4}, "x");
  uint32_t logits = b.tensor(TensorKind::Input, f32, {1, 3}, "logits");
  uint32_t labels = b.tensor(TensorKind::Label, DType::I64, {1}, "labels");
  uint32_t w = b.tensor(TensorKind::Param, f32, {4}, "w");
  uint32_t wb = b.scratch(DType::BF16, {4}), wf = b.scratch(f32, {4});
  uint32_t p = b.scratch(f32, {4}), loss = b.scratch(f32, {});
  uint32_t nw = b.scratch(f32, {4}), ce = b.scratch(f32, {});
  b.kernel("mp.cast", {w}, {wb});
  b.kernel("mp.cast", {wb}, {wf});
  b.kernel("train.mul", {wf, x}, {p});
  b.kernel("train.reduce_sum", {p}, {loss}, {{"dims", ints({0})}});
  b.kernel("train.sgd", {w, x}, {nw}, {{"lr", floats({0.25})}});
  // After the update: fails for a label out of range.
  b.kernel("train.sparse_cross_entropy", {logits, labels}, {ce});
  b.result(ResultRole::Loss, loss, "loss");
  b.result(ResultRole::Output, ce, "ce");
  b.result(ResultRole::Param, nw, "w", w);
  Plan plan = b.finishLaidOut();
  ASSERT_TRUE(plan.kernels[0].isHoistedCast());
  ASSERT_FALSE(plan.kernels[1].isHoistedCast()); // of scratch, not state
  auto session = createTestSession(std::move(plan), "reference");
  ASSERT_TRUE(session);
  session->setProfiling(true);

  // sum(bf16(w) * x) with x = 1: values with bits below bf16's mantissa.
  auto bf16Sum = [](const std::vector<float> &values) {
    float sum = 0;
    for (float v : values) {
      uint16_t bits;
      storeFloat({DType::BF16, {}, &bits}, 0, v);
      sum += loadFloat({DType::BF16, {}, &bits}, 0);
    }
    return sum;
  };
  std::vector<float> ws = {1.00390625f + 0.001f, 2.0078125f + 0.002f,
                           -3.015625f - 0.003f, 0.5f + 1e-4f};
  std::vector<float> ones(4, 1.0f), z(3, 0.0f);
  int64_t label = 1;
  ASSERT_TRUE(session->setTensor("w", f32, {4}, ws.data(), 16).isOk());
  ASSERT_TRUE(session->setTensor("x", f32, {4}, ones.data(), 16).isOk());
  ASSERT_TRUE(session->setTensor("logits", f32, {1, 3}, z.data(), 12).isOk());
  ASSERT_TRUE(session->setTensor("labels", DType::I64, {1}, &label, 8).isOk());
  for (int step = 0; step < 3; ++step) {
    float got;
    ASSERT_TRUE(session->runStep(&got).isOk());
    EXPECT_EQ(got, bf16Sum(ws)) << "step " << step;
    for (float &v : ws)
      v -= 0.25f;
    EXPECT_EQ(readTensor<float>(*session, "w"), ws);
  }
  // A failed step (after the update wrote the next copy) changes nothing.
  label = 3;
  ASSERT_TRUE(session->setTensor("labels", DType::I64, {1}, &label, 8).isOk());
  ASSERT_FALSE(session->runStep().isOk());
  EXPECT_EQ(readTensor<float>(*session, "w"), ws);
  label = 0;
  ASSERT_TRUE(session->setTensor("labels", DType::I64, {1}, &label, 8).isOk());
  float got;
  ASSERT_TRUE(session->runStep(&got).isOk());
  EXPECT_EQ(got, bf16Sum(ws));
  // Weights set from outside are what the next step casts.
  ws = {0.1f, 0.2f, 0.3f, 0.4f};
  ASSERT_TRUE(session->setTensor("w", f32, {4}, ws.data(), 16).isOk());
  ASSERT_TRUE(session->runStep(&got).isOk());
  EXPECT_EQ(got, bf16Sum(ws));
  EXPECT_GT(session->doubleBufferedBytes(), 0u);
  bool fused = false;
  for (const Session::ProfileEntry &entry : session->profile())
    fused |= entry.name == "train.sgd+mp.cast";
  EXPECT_TRUE(fused);
}

/// A reshape flagged as a view is not run and its result is its input's
/// bytes; an unflagged one runs. layOutPlan makes every reshape whose
/// result the step does not return a view, of scratch or of an input.
TEST(SessionStateTest, ReshapeViewsAreNotRun) {
  auto reshapeCalls = [](Plan plan, const std::vector<float> &xs,
                         std::vector<float> &d) {
    auto session = createTestSession(std::move(plan), "reference");
    if (!session)
      return int64_t(-1);
    session->setProfiling(true);
    EXPECT_TRUE(
        session->setTensor("x", DType::F32, {2, 3}, xs.data(), 24).isOk());
    EXPECT_TRUE(session->runStep().isOk());
    d = readTensor<float>(*session, "d");
    int64_t calls = 0;
    for (const Session::ProfileEntry &entry : session->profile())
      if (entry.name == "train.reshape")
        calls = entry.calls;
    return calls;
  };
  std::vector<float> xs = {1, 2, 3, -4, 5, -6}, want, d;
  for (float v : xs)
    want.push_back(v * v + (v + v));

  TwoReshapesPlan made = makeTwoReshapesPlan();
  Plan oneView = made.plan;
  oneView.kernels[3].flags = KernelDesc::kViewKernel;
  oneView.tensors[made.twiceFlat].offset = oneView.tensors[made.twice].offset;
  EXPECT_EQ(reshapeCalls(oneView, xs, d), 1);
  EXPECT_EQ(d, want);

  Plan compiled = made.plan;
  layOutPlan(compiled);
  EXPECT_TRUE(compiled.kernels[1].isView() && compiled.kernels[3].isView());
  EXPECT_EQ(reshapeCalls(compiled, xs, d), 0);
  EXPECT_EQ(d, want);

  // d = reshape(x) + reshape(x): views of the input, outside the arena.
  ReshapeOfInputPlan made2 = makeReshapeOfInputPlan();
  Plan ofInput = made2.plan;
  EXPECT_TRUE(ofInput.kernels[0].isView());
  EXPECT_TRUE(outsideArena(ofInput)[made2.flat]);
  EXPECT_EQ(reshapeCalls(ofInput, xs, d), 0);
  std::vector<float> twice;
  for (float v : xs)
    twice.push_back(v + v);
  EXPECT_EQ(d, twice);
}

TEST(SessionStateTest, RestoreCountersChecksConsistency) {
  auto session = createTestSession(makeLeastSquaresPlan(), "fake");
  ASSERT_TRUE(session);
  EXPECT_TRUE(session->restoreCounters(10, 2, 7).isOk());
  EXPECT_EQ(session->scalerStats().lastOverflowStep, 7);
  EXPECT_FALSE(session->restoreCounters(10, 2, -1).isOk());
  EXPECT_FALSE(session->restoreCounters(10, 0, 3).isOk());
  EXPECT_FALSE(session->restoreCounters(10, 11, 9).isOk());
  EXPECT_FALSE(session->restoreCounters(10, 1, 10).isOk());
  EXPECT_FALSE(session->restoreCounters(-1, 0, -1).isOk());
  EXPECT_EQ(session->scalerStats().stepsRun, 10);
}

} // namespace
