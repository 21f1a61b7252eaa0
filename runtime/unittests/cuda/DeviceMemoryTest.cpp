//===- DeviceMemoryTest.cpp - the session's device-memory path, no GPU ----===//
//
// The session's DeviceMemory path (docs/runtime-cuda.md, "Device
// residency") tested without a GPU: a backend that runs the reference
// kernels on "device" memory that is mapped PROT_NONE except while the
// backend itself runs a kernel or copies. Any host access the session makes
// to device memory outside DeviceMemory (a loss read, a state copy, a
// checkpoint write through a raw pointer) faults and kills the test. Runs
// everywhere; it checks that training, loss scaling statistics, tensor
// reads and writes, parameter initialization and checkpoints all go
// through the interface, and give the same results as the host path.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/DeviceMemory.h"
#include "../core/TestPlans.h"
#include "GuardedBackend.h"
#include "mp/runtime/Checkpoint.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mp::rt;
using namespace mp::rt::testing;

TEST(DeviceMemorySession, TrainsLikeTheHostPathAndCheckpoints) {
  LeastSquaresOptions options;
  options.initialScale = 3e38; // skipped steps and back-offs on the way
  auto guardedBackend = std::make_unique<GuardedBackend>();
  GuardedBackend *guarded = guardedBackend.get();
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(makeLeastSquaresPlan(options), std::move(guardedBackend));
  ASSERT_TRUE(created.isOk()) << created.status().message();
  Session &device = **created;
  auto host = createTestSession(makeLeastSquaresPlan(options), "reference");
  ASSERT_TRUE(host);
  EXPECT_EQ(device.tensorData(*device.findTensor("w")), nullptr);

  for (Session *s : {host.get(), &device})
    ASSERT_TRUE(s->initParams(11).isOk());
  for (int step = 0; step < 30; ++step) {
    float a = 0, b = 0;
    for (Session *s : {host.get(), &device})
      bindLeastSquaresBatch(*s, leastSquaresX(step), leastSquaresT(step));
    ASSERT_TRUE(host->runStep(&a).isOk());
    ASSERT_TRUE(device.runStep(&b).isOk());
    EXPECT_EQ(a, b) << step; // the same kernels: bitwise
  }
  EXPECT_EQ(guarded->steps, 30);
  EXPECT_GT(guarded->runs, 0);
  ScalerStats x = host->scalerStats(), y = device.scalerStats();
  EXPECT_GT(y.stepsSkipped, 0);
  EXPECT_EQ(x.stepsSkipped, y.stepsSkipped);
  EXPECT_EQ(x.lastOverflowStep, y.lastOverflowStep);
  EXPECT_EQ(x.scale, y.scale);
  EXPECT_EQ(readTensor<float>(*host, "w"), readTensor<float>(device, "w"));
  EXPECT_EQ(readTensor<float>(*host, "w.momentum_buffer"),
            readTensor<float>(device, "w.momentum_buffer"));

  // A checkpoint of the device session is the host session's, byte for byte
  // in its tensors, and loads back into a device session.
  ScopedTempDir dir;
  ASSERT_TRUE(saveCheckpoint(device, dir.path("device.safetensors")).isOk());
  ASSERT_TRUE(saveCheckpoint(*host, dir.path("host.safetensors")).isOk());
  EXPECT_EQ(readBytes(dir.path("device.safetensors")),
            readBytes(dir.path("host.safetensors")));
  StatusOr<std::unique_ptr<Session>> resumed = Session::create(
      makeLeastSquaresPlan(options), std::make_unique<GuardedBackend>());
  ASSERT_TRUE(resumed.isOk());
  Status loaded = loadCheckpoint(**resumed, dir.path("device.safetensors"));
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  for (int step = 30; step < 35; ++step) {
    float a = 0, b = 0;
    bindLeastSquaresBatch(device, leastSquaresX(step), leastSquaresT(step));
    bindLeastSquaresBatch(**resumed, leastSquaresX(step), leastSquaresT(step));
    ASSERT_TRUE(device.runStep(&a).isOk());
    ASSERT_TRUE((*resumed)->runStep(&b).isOk());
    EXPECT_EQ(a, b) << step;
  }
  EXPECT_EQ(readTensor<float>(device, "w"), readTensor<float>(**resumed, "w"));
}

// A kernel that fails mid-step: the session still ends the step on the
// device (finishStep), reports the kernel, changes no state, and the next
// step runs.
TEST(DeviceMemorySession, FailedStepFinishesAndChangesNothing) {
  auto backend = std::make_unique<GuardedBackend>();
  GuardedBackend *guarded = backend.get();
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(makeLeastSquaresPlan(), std::move(backend));
  ASSERT_TRUE(created.isOk());
  Session &session = **created;
  ASSERT_TRUE(session.initParams(1).isOk());
  bindLeastSquaresBatch(session, leastSquaresX(0), leastSquaresT(0));
  ASSERT_TRUE(session.runStep().isOk());
  std::vector<float> before = readTensor<float>(session, "w");
  std::vector<float> momentum = readTensor<float>(session, "w.momentum_buffer");
  guarded->failAtRun = guarded->runs + 5;
  Status failed = session.runStep();
  EXPECT_EQ(failed.code(), StatusCode::Internal);
  EXPECT_NE(failed.message().find("kernel #5"), std::string::npos)
      << failed.message();
  EXPECT_EQ(guarded->steps, 2) << "the failed step was not finished";
  EXPECT_EQ(readTensor<float>(session, "w"), before);
  EXPECT_EQ(readTensor<float>(session, "w.momentum_buffer"), momentum);
  EXPECT_TRUE(session.runStep().isOk());
  EXPECT_NE(readTensor<float>(session, "w"), before);
}

// Profiling waits for every kernel (finishStep after each run).
TEST(DeviceMemorySession, ProfilingWaitsForEachKernel) {
  auto backend = std::make_unique<GuardedBackend>();
  GuardedBackend *guarded = backend.get();
  Plan plan = makeLeastSquaresPlan();
  size_t kernels = plan.kernels.size();
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(std::move(plan), std::move(backend));
  ASSERT_TRUE(created.isOk());
  Session &session = **created;
  bindLeastSquaresBatch(session, leastSquaresX(0), leastSquaresT(0));
  ASSERT_TRUE(session.runStep().isOk());
  EXPECT_EQ(guarded->steps, 1);
  session.setProfiling(true);
  ASSERT_TRUE(session.runStep().isOk());
  EXPECT_EQ(guarded->steps, 1 + static_cast<int64_t>(kernels) + 1);
}

// The guard itself: the session's memory is not host-accessible between
// the backend's calls (so the tests above would crash on a direct access).
TEST(DeviceMemorySessionDeathTest, MemoryIsGuarded) {
  GuardedBackend guarded;
  StatusOr<void *> p = guarded.allocate(64, "a test block");
  ASSERT_TRUE(p.isOk());
  volatile char *bytes = static_cast<volatile char *>(*p);
  EXPECT_DEATH(bytes[0] = 1, "");
  char value = 7;
  ASSERT_TRUE(guarded.copyToDevice(*p, &value, 1).isOk());
  value = 0;
  ASSERT_TRUE(guarded.copyToHost(&value, *p, 1).isOk());
  EXPECT_EQ(value, 7);
  guarded.release(*p);
}
