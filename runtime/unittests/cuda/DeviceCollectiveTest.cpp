//===- DeviceCollectiveTest.cpp - collectives on device memory, no GPU ----===//
//
// The session's path for a data-parallel step on a backend whose tensors
// live in device memory (docs/distributed.md, "NCCL"), tested without a
// GPU on GuardedBackend: the collectives go to the communicator the
// backend makes over the host's (Backend::deviceCommunicator), which
// reduces on the device; the session touches none of their memory on the
// host, asks for the mean rather than dividing itself, reads a reduction
// only after waiting for it, and settles the device communicator before
// it ends each step. The two ranks are simulated: the other rank's values
// are three times this one's.
//
//===----------------------------------------------------------------------===//
#include "../core/TestPlans.h"
#include "GuardedBackend.h"
#include "mp/runtime/Session.h"
#include "mp/runtime/Tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// Two ranks on host memory; the other rank's loss is this one's.
class TwoRanksOnTheHost final : public Communicator {
public:
  const char *name() const override { return "two-on-the-host"; }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  StatusOr<Request> startAllReduce(void *data, size_t count, DType dtype,
                                   ReduceOp op) override {
    EXPECT_EQ(dtype, DType::F32);
    EXPECT_EQ(op, ReduceOp::Sum);
    for (size_t i = 0; i < count; ++i)
      static_cast<float *>(data)[i] *= 2;
    return Request(++started);
  }
  StatusOr<Request> startBroadcast(void *, size_t, int) override {
    return Request(++started);
  }
  StatusOr<Request> startReduceScatter(const float *, float *, size_t,
                                       ReduceOp) override {
    return unimplemented("reduce-scatter");
  }
  StatusOr<Request> startAllGather(const void *, void *, size_t) override {
    return unimplemented("all-gather");
  }
  void progress() override {}
  Status wait(Request) override { return Status::ok(); }
  Status agree(uint64_t, const std::string &) override { return Status::ok(); }
  int started = 0;
};

/// The device communicator: reduces on "device" memory, and only when the
/// session waits (a result read before the wait would be unreduced).
class TwoRanksOnTheDevice final : public Communicator {
public:
  explicit TwoRanksOnTheDevice(GuardedBackend &backend) : backend_(backend) {}
  const char *name() const override { return "two-on-the-device"; }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  bool onDevice() const override { return true; }

  StatusOr<Request> startAllReduce(void *data, size_t count, DType dtype,
                                   ReduceOp op) override {
    ops.push_back(op);
    if (dtype == DType::I1) {
      EXPECT_EQ(op, ReduceOp::Min);
      auto *verdict = static_cast<uint8_t *>(data);
      return track([=] { *verdict = std::min(*verdict, otherVerdict); });
    }
    float *values = static_cast<float *>(data);
    return track([=] {
      // This rank's x and the other's 3x.
      for (size_t i = 0; i < count; ++i)
        values[i] = op == ReduceOp::Mean ? 2 * values[i] : 4 * values[i];
    });
  }
  StatusOr<Request> startAllReduceBf16(float *data, size_t count,
                                       float prescale) override {
    prescales.push_back(prescale);
    return track([=] {
      for (size_t i = 0; i < count; ++i) {
        float mine = bf16(data[i] * prescale),
              other = bf16(3 * data[i] * prescale);
        data[i] = bf16(mine + other);
      }
    });
  }
  StatusOr<Request> startBroadcast(void *, size_t, int) override {
    return unimplemented("broadcast");
  }
  /// The other rank's blocks are three times this one's: the mean of
  /// block 0 (this rank's) is twice this rank's.
  StatusOr<Request> startReduceScatter(const float *send, float *recv,
                                       size_t perRank, ReduceOp op) override {
    EXPECT_EQ(op, ReduceOp::Mean);
    return track([=] {
      for (size_t i = 0; i < perRank; ++i)
        recv[i] = 2 * send[i];
    });
  }
  /// The other rank's block is this one's plus 100.
  StatusOr<Request> startAllGather(const void *send, void *recv,
                                   size_t bytesPerRank) override {
    return track([=] {
      auto *to = static_cast<float *>(recv);
      const auto *from = static_cast<const float *>(send);
      size_t n = bytesPerRank / sizeof(float);
      for (size_t i = 0; i < n; ++i) {
        to[i] = from[i];
        to[n + i] = from[i] + 100;
      }
    });
  }
  void progress() override {}
  Status wait(Request id) override {
    auto found = pending_.find(id);
    if (found == pending_.end())
      return internalError("unknown request");
    backend_.withDeviceAccess(found->second);
    pending_.erase(found);
    return Status::ok();
  }
  Status settle() override {
    ++settled;
    EXPECT_TRUE(pending_.empty()) << "a collective was never waited for";
    return Status::ok();
  }
  Status agree(uint64_t, const std::string &) override { return Status::ok(); }

  static float bf16(float value) {
    uint16_t bits;
    fromFloats(&value, DType::BF16, &bits, 1);
    float widened;
    toFloats(DType::BF16, &bits, &widened, 1);
    return widened;
  }

  std::vector<ReduceOp> ops;
  std::vector<float> prescales;
  uint8_t otherVerdict = 1;
  int settled = 0;

private:
  StatusOr<Request> track(std::function<void()> reduce) {
    pending_.emplace(next_, std::move(reduce));
    return next_++;
  }
  GuardedBackend &backend_;
  std::map<Request, std::function<void()>> pending_;
  Request next_ = 1;
};

struct DeviceSession {
  std::unique_ptr<Session> session;
  TwoRanksOnTheDevice *comm = nullptr;
};

/// A session of `plan` on GuardedBackend over two simulated ranks.
DeviceSession twoRankSession(Plan plan) {
  auto backend = std::make_unique<GuardedBackend>();
  GuardedBackend *guarded = backend.get();
  DeviceSession made;
  guarded->makeDeviceCommunicator =
      [&made,
       guarded](Communicator &host) -> StatusOr<std::unique_ptr<Communicator>> {
    EXPECT_EQ(host.size(), 2);
    auto comm = std::make_unique<TwoRanksOnTheDevice>(*guarded);
    made.comm = comm.get();
    return std::unique_ptr<Communicator>(std::move(comm));
  };
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(std::move(plan), std::move(backend));
  EXPECT_TRUE(created.isOk()) << created.status().message();
  if (!created.isOk())
    return made;
  Status set =
      (*created)->setCommunicator(std::make_unique<TwoRanksOnTheHost>());
  EXPECT_TRUE(set.isOk()) << set.message();
  EXPECT_NE(made.comm, nullptr);
  made.session = std::move(*created);
  return made;
}

const std::vector<float> kX = {1, -2, 3, 0.5f, 4, -1.25f};
const int64_t kShape[] = {2, 3};

} // namespace

TEST(DeviceCollectiveTest, AMeanRunsOnTheDeviceCommunicator) {
  DeviceSession run = twoRankSession(makeAllReducePlan());
  ASSERT_TRUE(run.session);
  Session &session = *run.session;
  EXPECT_STREQ(session.kernelCommunicator().name(), "two-on-the-device");
  EXPECT_STREQ(session.communicator().name(), "two-on-the-host");
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE(
        session.setTensor("x", DType::F32, kShape, 2, kX.data(), 24).isOk());
    float loss = 0;
    Status ran = session.runStep(&loss);
    ASSERT_TRUE(ran.isOk()) << ran.message();
    // r = mean(x, 3x) = 2x, read by the loss only after the wait.
    std::vector<float> r = readTensor<float>(session, "r");
    float expected = 0;
    for (size_t i = 0; i < kX.size(); ++i) {
      EXPECT_EQ(r[i], 2 * kX[i]) << i;
      expected += 4 * kX[i] * kX[i];
    }
    // The loss over the ranks (the host communicator's): both ranks alike.
    EXPECT_FLOAT_EQ(loss, expected);
  }
  // The mean is the communicator's (ncclAvg), once per step; each step
  // settled before it ended.
  EXPECT_EQ(run.comm->ops, std::vector<ReduceOp>(3, ReduceOp::Mean));
  EXPECT_EQ(run.comm->settled, 3);
}

TEST(DeviceCollectiveTest, ABf16ReductionIsTheCommunicators) {
  DeviceSession run = twoRankSession(makeAllReducePlan(DType::F32, "bf16"));
  ASSERT_TRUE(run.session);
  Session &session = *run.session;
  std::vector<float> x = {1.001f, -2.3f, 3.7f, 0.51f, 4.9f, -1.3f};
  ASSERT_TRUE(
      session.setTensor("x", DType::F32, kShape, 2, x.data(), 24).isOk());
  ASSERT_TRUE(session.runStep().isOk());
  // Divided by the ranks before the sum, each rank's value rounded once.
  EXPECT_EQ(run.comm->prescales, std::vector<float>{0.5f});
  std::vector<float> r = readTensor<float>(session, "r");
  for (size_t i = 0; i < x.size(); ++i) {
    float mine = TwoRanksOnTheDevice::bf16(x[i] * 0.5f),
          other = TwoRanksOnTheDevice::bf16(3 * x[i] * 0.5f);
    EXPECT_EQ(r[i], TwoRanksOnTheDevice::bf16(mine + other)) << i;
    EXPECT_NEAR(r[i], 2 * x[i], std::fabs(2 * x[i]) / 64) << i;
  }
}

// One process on a device backend: each reduction the identity, copied on
// the device; no device communicator is made.
TEST(DeviceCollectiveTest, OneProcessCopiesOnTheDevice) {
  auto backend = std::make_unique<GuardedBackend>();
  bool asked = false;
  backend->makeDeviceCommunicator =
      [&asked](Communicator &) -> StatusOr<std::unique_ptr<Communicator>> {
    asked = true;
    return unimplemented("not wanted");
  };
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(makeAllReducePlan(), std::move(backend));
  ASSERT_TRUE(created.isOk()) << created.status().message();
  Session &session = **created;
  ASSERT_TRUE(
      session.setTensor("x", DType::F32, kShape, 2, kX.data(), 24).isOk());
  ASSERT_TRUE(session.runStep().isOk());
  EXPECT_EQ(readTensor<float>(session, "r"), kX);
  EXPECT_FALSE(asked);
  EXPECT_STREQ(session.kernelCommunicator().name(), "single");
}

// ZeRO-1 over one rank on a device backend: the identity, moved on the
// device (the single-process communicator touches host memory only).
TEST(DeviceCollectiveTest, OneRankZero1CopiesOnTheDevice) {
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(makeZero1Plan(1), std::make_unique<GuardedBackend>());
  ASSERT_TRUE(created.isOk()) << created.status().message();
  Session &session = **created;
  std::vector<float> x = {1, -2, 3, 0.5f, 4};
  const int64_t shape[] = {5};
  ASSERT_TRUE(
      session.setTensor("x", DType::F32, shape, 1, x.data(), 20).isOk());
  uint8_t ok = 0;
  ASSERT_TRUE(session.setTensor("ok", DType::I1, nullptr, 0, &ok, 1).isOk());
  Status ran = session.runStep();
  ASSERT_TRUE(ran.isOk()) << ran.message();
  EXPECT_EQ(readTensor<float>(session, "w"),
            (std::vector<float>{2, -4, 6, 1, 8}));
  EXPECT_EQ(readTensor<uint8_t>(session, "all"), (std::vector<uint8_t>{0}));
}

// A device backend without a communicator of its own, over several ranks:
// refused when the communicator is set, naming the backend.
TEST(DeviceCollectiveTest, ABackendWithoutOneIsRefused) {
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(makeAllReducePlan(), std::make_unique<GuardedBackend>());
  ASSERT_TRUE(created.isOk());
  Status set =
      (*created)->setCommunicator(std::make_unique<TwoRanksOnTheHost>());
  EXPECT_EQ(set.code(), StatusCode::Unimplemented);
  EXPECT_NE(set.message().find("collectives on the guarded backend over 2 "
                               "ranks: the guarded backend keeps tensors in "
                               "device memory and has no communicator"),
            std::string::npos)
      << set.message();
}

// ZeRO-1's kernels on a device backend (makeZero1Plan(2), rank 0 of 2):
// the shards copied on the device, the padding zeroed there, the
// reduce-scatter's mean, the all-gather and the and of the verdicts asked
// of the device communicator.
TEST(DeviceCollectiveTest, Zero1RunsOnTheDeviceCommunicator) {
  DeviceSession run = twoRankSession(makeZero1Plan(2));
  ASSERT_TRUE(run.session);
  Session &session = *run.session;
  EXPECT_EQ(session.shardedOver(), 2);
  std::vector<float> x = {1, -2, 3, 0.5f, 4};
  const int64_t shape[] = {5};
  ASSERT_TRUE(
      session.setTensor("x", DType::F32, shape, 1, x.data(), 20).isOk());
  for (uint8_t other : {1, 0}) {
    run.comm->otherVerdict = other;
    uint8_t ok = 1;
    ASSERT_TRUE(session.setTensor("ok", DType::I1, nullptr, 0, &ok, 1).isOk());
    Status ran = session.runStep();
    ASSERT_TRUE(ran.isOk()) << ran.message();
    // Rank 0's shard is x[0..3): its own 3x there (x + the mean 2x); rank
    // 1's part (elements 3 and 4) is what the other rank sent, its block
    // plus 100 (of which the padding is not copied).
    EXPECT_EQ(readTensor<float>(session, "w"),
              (std::vector<float>{3, -6, 9, 103, 94}));
    EXPECT_EQ(readTensor<uint8_t>(session, "all"),
              (std::vector<uint8_t>{other}));
  }
  EXPECT_EQ(run.comm->settled, 2);
}

// Clipping by the norm of sharded gradients on a device backend: refused
// when the session is made (its partial sums are computed on the host).
TEST(DeviceCollectiveTest, ANormClipOfShardsIsRefusedOnADeviceBackend) {
  TestPlanBuilder b;
  uint32_t g = b.tensor(TensorKind::Input, DType::F32, {3}, "g");
  uint32_t r = b.scratch(DType::F32, {3}), norm = b.scratch(DType::F32, {});
  uint32_t loss = b.scratch(DType::F32, {});
  b.kernel("train.clip_grad_norm_shards", {g}, {r, norm},
           {{"world_size", ints({2})}, {"max_norm", floats({1.0})}});
  b.kernel("train.reduce_sum", {r}, {loss}, {{"dims", ints({0})}});
  b.result(ResultRole::Loss, loss, "loss");
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(b.finishLaidOut(), std::make_unique<GuardedBackend>());
  ASSERT_FALSE(created.isOk());
  EXPECT_EQ(created.status().code(), StatusCode::Unimplemented);
  EXPECT_NE(created.status().message().find(
                "clipping by the norm of sharded gradients (ZeRO-1 with "
                "clip_grad_norm) on it is not built"),
            std::string::npos)
      << created.status().message();
}
