//===- CudaSessionTest.cpp - sessions and mp-run on the cuda backend ------===//
//
// With a GPU: whole training steps on device memory (the least-squares
// model with dynamic loss scaling, a softmax classifier) agree with the
// reference backend step for step; checkpoints copy the state out and back
// in; a resumed run continues bit for bit. Without one: the backend says
// why it is unavailable, a session asking for it fails with that reason,
// and `mp-run --backend cuda` trains on the CPU instead, saying so.
//
//===----------------------------------------------------------------------===//
#include "../core/TestPlans.h"
#include "CudaTestSupport.h"
#include "mp/runtime/Checkpoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sys/wait.h>

#ifndef MP_RUN_TOOL
#error "MP_RUN_TOOL must name the mp-run binary"
#endif

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// Softmax regression: logits = x @ w + b; mean cross-entropy; sgd.
/// x: input f32[8, 4]; y: label i32[8]; w: param f32[4, 10]; b: f32[10].
Plan makeClassifierPlan() {
  TestPlanBuilder p;
  p.plan.policy = "float32";
  const DType f32 = DType::F32;
  uint32_t x = p.tensor(TensorKind::Input, f32, {8, 4}, "x");
  uint32_t y = p.tensor(TensorKind::Label, DType::I32, {8}, "y");
  uint32_t w = p.tensor(TensorKind::Param, f32, {4, 10}, "w");
  uint32_t b = p.tensor(TensorKind::Param, f32, {10}, "b");
  uint32_t xw = p.scratch(f32, {8, 10});
  p.kernel("train.matmul", {x, w}, {xw});
  uint32_t logits = p.scratch(f32, {8, 10});
  p.kernel("train.bias_add", {xw, b}, {logits});
  uint32_t loss = p.scratch(f32, {});
  p.kernel("train.sparse_cross_entropy", {logits, y}, {loss});
  uint32_t seed = p.scratch(f32, {});
  p.kernel("train.grad_seed", {loss}, {seed});
  uint32_t dlogits = p.scratch(f32, {8, 10});
  p.kernel("train.sparse_cross_entropy_grad", {logits, y, seed}, {dlogits});
  uint32_t dw = p.scratch(f32, {4, 10});
  p.kernel("train.matmul", {x, dlogits}, {dw}, {{"transpose_lhs", ints({1})}});
  uint32_t db = p.scratch(f32, {10});
  p.kernel("train.reduce_sum", {dlogits}, {db}, {{"dims", ints({0})}});
  uint32_t nw = p.scratch(f32, {4, 10});
  p.kernel("train.sgd", {w, dw}, {nw}, {{"lr", floats({0.5})}});
  uint32_t nb = p.scratch(f32, {10});
  p.kernel("train.sgd", {b, db}, {nb}, {{"lr", floats({0.5})}});
  p.result(ResultRole::Loss, loss, "loss");
  p.result(ResultRole::Param, nw, "w", w);
  p.result(ResultRole::Param, nb, "b", b);
  return p.finish();
}

std::vector<float> classifierX(int step) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i)
    x[i] = std::sin(0.37f * (i + 1) + 0.11f * step);
  return x;
}
std::vector<int32_t> classifierY(int step) {
  std::vector<int32_t> y(8);
  for (int i = 0; i < 8; ++i)
    y[i] = (i * 3 + step) % 10;
  return y;
}

int runCommand(const std::string &command, std::string &output) {
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

TEST(CudaSession, UnavailableBackendSaysWhy) {
  if (cudaSkipReason().empty())
    GTEST_SKIP() << "a GPU is present: the cuda backend is available";
  Status status = cudaBackendStatus();
  EXPECT_EQ(status.code(), StatusCode::Unimplemented);
  EXPECT_FALSE(status.message().empty());
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(makeClassifierPlan(), "cuda");
  ASSERT_FALSE(session.isOk());
  EXPECT_EQ(session.status().message(), status.message());
}

// mp-run --backend cuda: on the GPU where there is one, else on the CPU with
// a message saying why; either way it trains (exit 0).
TEST(CudaSession, MpRunFallsBackToTheCpu) {
  ScopedTempDir dir;
  std::string plan = dir.path("classifier.mpplan");
  ASSERT_TRUE(writePlanFile(makeClassifierPlan(), plan).isOk());
  std::string output;
  int status = runCommand(std::string(MP_RUN_TOOL) + " " + plan +
                              " --synthetic --synthetic-samples 64 --steps 4 "
                              "--plain --log-every 2 --backend cuda --verbose",
                          output);
  EXPECT_EQ(status, 0) << output;
  if (cudaSkipReason().empty()) {
    EXPECT_NE(output.find("backend: cuda ("), std::string::npos) << output;
    EXPECT_EQ(output.find("falling back"), std::string::npos) << output;
  } else {
    EXPECT_NE(output.find("mp-run: the cuda backend is unavailable (" +
                          cudaBackendStatus().message() +
                          "); falling back to the CPU"),
              std::string::npos)
        << output;
    EXPECT_EQ(output.find("backend: cuda"), std::string::npos) << output;
  }
}

/// The least-squares model with dynamic loss scaling on `backend` and on the
/// reference backend, step for step.
static void leastSquaresMatchesReference(const std::string &backend) {
  LeastSquaresOptions options;
  // Overflows at first (skipped steps, back-off), and again after growths.
  options.initialScale = 3e38;
  options.growthInterval = 3;
  auto reference =
      createTestSession(makeLeastSquaresPlan(options), "reference");
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(makeLeastSquaresPlan(options), backend);
  ASSERT_TRUE(created.isOk()) << created.status().message();
  Session &cuda = **created;
  ASSERT_TRUE(reference);
  for (Session *s : {reference.get(), &cuda})
    ASSERT_TRUE(s->initParams(7).isOk());
  for (int step = 0; step < 40; ++step) {
    float lossRef = 0, lossCuda = 0;
    for (Session *s : {reference.get(), &cuda})
      bindLeastSquaresBatch(*s, leastSquaresX(step), leastSquaresT(step));
    ASSERT_TRUE(reference->runStep(&lossRef).isOk());
    Status ran = cuda.runStep(&lossCuda);
    ASSERT_TRUE(ran.isOk()) << ran.message();
    EXPECT_NEAR(lossCuda, lossRef, 1e-4 * std::fabs(lossRef) + 1e-6)
        << "step " << step;
  }
  ScalerStats a = reference->scalerStats(), b = cuda.scalerStats();
  EXPECT_EQ(a.stepsRun, b.stepsRun);
  EXPECT_EQ(a.stepsSkipped, b.stepsSkipped);
  EXPECT_GT(b.stepsSkipped, 0);
  EXPECT_EQ(a.lastOverflowStep, b.lastOverflowStep);
  EXPECT_EQ(a.scale, b.scale);
  std::vector<float> wRef = readTensor<float>(*reference, "w");
  std::vector<float> wCuda = readTensor<float>(cuda, "w");
  for (size_t i = 0; i < wRef.size(); ++i)
    EXPECT_NEAR(wCuda[i], wRef[i], 1e-4 * std::fabs(wRef[i]) + 1e-6);
}

/// The classifier on `backend` against the reference; a checkpoint resumed
/// in a second session; a data error that changes no state.
static void classifierMatchesReference(const std::string &backend) {
  auto reference = createTestSession(makeClassifierPlan(), "reference");
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(makeClassifierPlan(), backend);
  ASSERT_TRUE(created.isOk()) << created.status().message();
  Session &cuda = **created;
  if (backend == "cuda") {
    EXPECT_EQ(cuda.tensorData(*cuda.findTensor("w")), nullptr)
        << "device tensors have no host pointer";
  }
  auto bind = [](Session &s, int step) {
    std::vector<float> x = classifierX(step);
    std::vector<int32_t> y = classifierY(step);
    ASSERT_TRUE(s.setTensor("x", DType::F32, {8, 4}, x.data(), 128).isOk());
    ASSERT_TRUE(s.setTensor("y", DType::I32, {8}, y.data(), 32).isOk());
  };
  for (Session *s : {reference.get(), &cuda})
    ASSERT_TRUE(s->initParams(3).isOk());
  for (int step = 0; step < 20; ++step) {
    float lossRef = 0, lossCuda = 0;
    bind(*reference, step);
    bind(cuda, step);
    ASSERT_TRUE(reference->runStep(&lossRef).isOk());
    Status ran = cuda.runStep(&lossCuda);
    ASSERT_TRUE(ran.isOk()) << ran.message();
    EXPECT_NEAR(lossCuda, lossRef, 1e-4 * std::fabs(lossRef)) << step;
  }

  // Checkpoint on the device, resume in a second cuda session: the next
  // steps are bitwise those of the first session.
  ScopedTempDir dir;
  std::string path = dir.path("ckpt.safetensors");
  Status saved = saveCheckpoint(cuda, path);
  ASSERT_TRUE(saved.isOk()) << saved.message();
  StatusOr<std::unique_ptr<Session>> resumed =
      Session::create(makeClassifierPlan(), backend);
  ASSERT_TRUE(resumed.isOk());
  Status loaded = loadCheckpoint(**resumed, path);
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  EXPECT_EQ(readTensor<float>(**resumed, "w"), readTensor<float>(cuda, "w"));
  for (int step = 20; step < 25; ++step) {
    float a = 0, b = 0;
    bind(cuda, step);
    bind(**resumed, step);
    ASSERT_TRUE(cuda.runStep(&a).isOk());
    ASSERT_TRUE((*resumed)->runStep(&b).isOk());
    EXPECT_EQ(a, b) << step;
  }
  EXPECT_EQ(readTensor<float>(**resumed, "w"), readTensor<float>(cuda, "w"));
  EXPECT_EQ(readTensor<float>(**resumed, "b"), readTensor<float>(cuda, "b"));

  // A label out of range fails the step, naming the op, and changes no
  // state.
  std::vector<float> before = readTensor<float>(cuda, "w");
  std::vector<int32_t> bad(8, 42);
  ASSERT_TRUE(cuda.setTensor("y", DType::I32, {8}, bad.data(), 32).isOk());
  Status failed = cuda.runStep();
  EXPECT_EQ(failed.code(), StatusCode::InvalidArgument);
  EXPECT_NE(failed.message().find("label 42 in row 0 is outside [0, 10)"),
            std::string::npos)
      << failed.message();
  EXPECT_EQ(readTensor<float>(cuda, "w"), before);
}

TEST(CudaSession, LeastSquaresWithLossScalingMatchesReference) {
  MP_REQUIRE_GPU();
  leastSquaresMatchesReference("cuda");
}

TEST(CudaSession, ClassifierMatchesReferenceAndResumesBitwise) {
  MP_REQUIRE_GPU();
  classifierMatchesReference("cuda");
}

// The two tests above on a host backend: checks the tests' own logic (the
// overflow schedule, the resume, the failed step) where there is no GPU, so
// that GPU time is not spent on a broken test.
TEST(CudaSession, SessionTestsHoldOnTheCpu) {
  std::string backend = cpuBackendStatus().isOk() ? "cpu" : "reference";
  leastSquaresMatchesReference(backend);
  classifierMatchesReference(backend);
}
