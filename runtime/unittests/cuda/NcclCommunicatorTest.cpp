//===- NcclCommunicatorTest.cpp - NCCL on one GPU
//--------------------------===//
//
// The cuda backend's NCCL communicator (cuda/NcclCommunicator.cpp) over one
// rank, the most a machine with one GPU runs (NCCL refuses two ranks on
// one device): every collective the session uses, on device memory,
// ordered after the copies queued on the backend's stream before it and
// before those queued after its wait. Skips where no GPU can run it (and,
// in a build without NCCL, checks that the backend says why). Several
// ranks: scripts/gpu-check.sh on a machine with several GPUs.
//
//===----------------------------------------------------------------------===//
#include "CudaTestSupport.h"
#include "mp/runtime/Communicator.h"
#include "mp/runtime/DeviceMemory.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// The NCCL communicator over one process, or null after a skip or failure.
struct OneRank {
  std::unique_ptr<Communicator> host = singleProcessCommunicator();
  std::unique_ptr<Communicator> nccl;
  DeviceMemory *memory = nullptr;
  std::vector<void *> allocated;

  ~OneRank() {
    if (nccl) {
      EXPECT_TRUE(nccl->settle().isOk());
    }
    nccl.reset();
    for (void *p : allocated)
      memory->release(p);
  }
  void *device(const void *host, size_t bytes) {
    StatusOr<void *> p = memory->allocate(bytes, "a test buffer");
    EXPECT_TRUE(p.isOk()) << p.status().message();
    if (!p.isOk())
      return nullptr;
    allocated.push_back(*p);
    if (host) {
      EXPECT_TRUE(memory->copyToDevice(*p, host, bytes).isOk());
    }
    return *p;
  }
  template <typename T> std::vector<T> read(const void *p, size_t n) {
    std::vector<T> out(n);
    EXPECT_TRUE(memory->copyToHost(out.data(), p, n * sizeof(T)).isOk());
    return out;
  }
};

bool makeOneRank(OneRank &rank) {
  Backend *backend = cudaBackend();
  if (!backend)
    return false;
  rank.memory = backend->deviceMemory();
  StatusOr<std::unique_ptr<Communicator>> made =
      backend->deviceCommunicator(*rank.host);
  std::string why;
  if (!ncclAvailable(&why)) {
    EXPECT_FALSE(made.isOk());
    EXPECT_NE(made.status().message().find(why), std::string::npos)
        << made.status().message();
    return false;
  }
  EXPECT_TRUE(made.isOk()) << made.status().message();
  if (!made.isOk())
    return false;
  rank.nccl = std::move(*made);
  return true;
}

#define MAKE_ONE_RANK(rank)                                                    \
  OneRank rank;                                                                \
  if (!cudaSkipReason().empty())                                               \
    GTEST_SKIP() << cudaSkipReason();                                          \
  if (!makeOneRank(rank))                                                      \
    GTEST_SKIP() << "no NCCL in this build or on this machine";

float bf16(float value) {
  uint16_t bits;
  fromFloats(&value, DType::BF16, &bits, 1);
  float widened;
  toFloats(DType::BF16, &bits, &widened, 1);
  return widened;
}

} // namespace

TEST(NcclCommunicatorTest, DescribesItself) {
  MAKE_ONE_RANK(rank);
  EXPECT_STREQ(rank.nccl->name(), "nccl");
  EXPECT_TRUE(rank.nccl->onDevice());
  EXPECT_EQ(rank.nccl->rank(), 0);
  EXPECT_EQ(rank.nccl->size(), 1);
}

TEST(NcclCommunicatorTest, ReducesOnTheDevice) {
  MAKE_ONE_RANK(rank);
  Communicator &nccl = *rank.nccl;
  std::vector<float> x = {1.5f, -2.0f, 3.25f, 1e-3f};
  std::vector<int64_t> big = {int64_t(1) << 40, -3};
  uint8_t verdict = 1;
  void *sum = rank.device(x.data(), 16), *mean = rank.device(x.data(), 16);
  void *peak = rank.device(x.data(), 16), *wide = rank.device(big.data(), 16);
  void *flag = rank.device(&verdict, 1);
  auto a = nccl.startAllReduce(sum, 4, DType::F32, ReduceOp::Sum);
  auto b = nccl.startAllReduce(mean, 4, DType::F32, ReduceOp::Mean);
  auto c = nccl.startAllReduce(peak, 4, DType::F32, ReduceOp::Max);
  auto d = nccl.startAllReduce(wide, 2, DType::I64, ReduceOp::Sum);
  auto e = nccl.startAllReduce(flag, 1, DType::I1, ReduceOp::Max);
  ASSERT_TRUE(a.isOk() && b.isOk() && c.isOk() && d.isOk() && e.isOk());
  for (auto request : {*a, *b, *c, *d, *e})
    ASSERT_TRUE(nccl.wait(request).isOk());
  ASSERT_TRUE(nccl.settle().isOk());
  // One rank: each reduction its own values.
  EXPECT_EQ(rank.read<float>(sum, 4), x);
  EXPECT_EQ(rank.read<float>(mean, 4), x);
  EXPECT_EQ(rank.read<float>(peak, 4), x);
  EXPECT_EQ(rank.read<int64_t>(wide, 2), big);
  EXPECT_EQ(rank.read<uint8_t>(flag, 1), std::vector<uint8_t>{1});
  // After settle(), a wait is for a finished collective.
  EXPECT_TRUE(nccl.wait(*a).isOk());
  EXPECT_EQ(
      nccl.startAllReduce(sum, 4, DType::I64, ReduceOp::Mean).status().code(),
      StatusCode::Unimplemented);
}

// The bf16 reduction reads the values the backend's stream wrote before it
// started (the copy is queued there, not waited for), rounds each once,
// and the widened sums are there for a copy queued after the wait.
TEST(NcclCommunicatorTest, Bf16IsOrderedWithTheBackendsStream) {
  MAKE_ONE_RANK(rank);
  Communicator &nccl = *rank.nccl;
  constexpr size_t n = 1 << 20;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = 1.0f + static_cast<float>(i) * 1e-6f;
  void *data = rank.device(nullptr, n * 4), *copy = rank.device(nullptr, n * 4);
  ASSERT_TRUE(rank.memory->copyToDevice(data, x.data(), n * 4).isOk());
  auto started = nccl.startAllReduceBf16(static_cast<float *>(data), n, 1.0f);
  ASSERT_TRUE(started.isOk()) << started.status().message();
  ASSERT_TRUE(nccl.wait(*started).isOk());
  ASSERT_TRUE(rank.memory->copyOnDevice(copy, data, n * 4).isOk());
  std::vector<float> got = rank.read<float>(copy, n);
  ASSERT_TRUE(nccl.settle().isOk());
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i)
    wrong += got[i] != bf16(x[i]);
  EXPECT_EQ(wrong, 0u);
}

TEST(NcclCommunicatorTest, BroadcastsScattersAndGathers) {
  MAKE_ONE_RANK(rank);
  Communicator &nccl = *rank.nccl;
  std::vector<float> x = {4, 5, 6};
  void *data = rank.device(x.data(), 12), *recv = rank.device(nullptr, 12),
       *gathered = rank.device(nullptr, 12);
  auto a = nccl.startBroadcast(data, 12, 0);
  auto b =
      nccl.startReduceScatter(static_cast<const float *>(data),
                              static_cast<float *>(recv), 3, ReduceOp::Mean);
  ASSERT_TRUE(a.isOk() && b.isOk());
  ASSERT_TRUE(nccl.wait(*b).isOk());
  auto c = nccl.startAllGather(recv, gathered, 12);
  ASSERT_TRUE(c.isOk());
  ASSERT_TRUE(nccl.wait(*a).isOk() && nccl.wait(*c).isOk());
  ASSERT_TRUE(nccl.settle().isOk());
  EXPECT_EQ(rank.read<float>(gathered, 3), x);
  EXPECT_EQ(nccl.startBroadcast(data, 12, 1).status().code(),
            StatusCode::InvalidArgument);
}
