//===- SessionCollectiveTest.cpp - a data-parallel step in one process ----===//
//
// train.all_reduce run by the session's communicator: in one process the
// identity (the mean over one rank), on every backend; what the session
// cannot run is refused when it is created. Several ranks:
// unittests/comm/CommunicatorTest.cpp under mpirun.
//
//===----------------------------------------------------------------------===//
#include "TestPlans.h"
#include "mp/runtime/Session.h"

#include <gtest/gtest.h>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

class SessionCollectiveTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SessionCollectiveTest, OneProcessReducesToItself) {
  auto session = createTestSession(makeAllReducePlan(), GetParam());
  ASSERT_TRUE(session);
  EXPECT_TRUE(session->hasCollectives());
  EXPECT_STREQ(session->communicator().name(), "single");
  std::vector<float> x = {1, -2, 3, 0.5f, 4, -1};
  const int64_t shape[] = {2, 3};
  ASSERT_TRUE(
      session->setTensor("x", DType::F32, shape, 2, x.data(), 24).isOk());
  float loss = 0;
  for (int step = 0; step < 2; ++step) {
    ASSERT_TRUE(session->runStep(&loss).isOk());
    EXPECT_EQ(readTensor<float>(*session, "r"), x);
    EXPECT_FLOAT_EQ(loss, 1 + 4 + 9 + 0.25f + 16 + 1);
  }
  // The non-finite replay runs it kernel by kernel: the identity too.
  int watched = 0;
  ASSERT_TRUE(session
                  ->runStepWatched([&](size_t) {
                    ++watched;
                    return true;
                  })
                  .isOk());
  EXPECT_EQ(watched, 3);
}

INSTANTIATE_TEST_SUITE_P(Backends, SessionCollectiveTest,
                         ::testing::ValuesIn(testBackendNames()));

/// ZeRO-1's kernels over one rank: the shard is the tensor (flat), the
/// reduce-scatter and the gather the identity, the verdict this rank's.
TEST_P(SessionCollectiveTest, OneRankZero1IsTheIdentity) {
  auto session = createTestSession(makeZero1Plan(1), GetParam());
  ASSERT_TRUE(session);
  EXPECT_EQ(session->shardedOver(), 1);
  std::vector<float> x = {1, -2, 3, 0.5f, 4};
  const int64_t shape[] = {5};
  ASSERT_TRUE(
      session->setTensor("x", DType::F32, shape, 1, x.data(), 20).isOk());
  for (uint8_t ok : {1, 0}) {
    ASSERT_TRUE(session->setTensor("ok", DType::I1, nullptr, 0, &ok, 1).isOk());
    ASSERT_TRUE(session->runStep().isOk());
    EXPECT_EQ(readTensor<float>(*session, "w"),
              (std::vector<float>{2, -4, 6, 1, 8}));
    EXPECT_EQ(readTensor<uint8_t>(*session, "all"), (std::vector<uint8_t>{ok}));
  }
}

/// A plan sharded over 2 ranks in one process: refused before its first
/// step, saying how to run it.
TEST(SessionCollectiveCreateTest, AZero1PlanRunsOnItsRanksOnly) {
  auto session = createTestSession(makeZero1Plan(2), "reference");
  ASSERT_TRUE(session);
  Status ran = session->runStep();
  EXPECT_EQ(ran.code(), StatusCode::InvalidArgument);
  EXPECT_NE(ran.message().find("over 2 ranks (data-parallel=zero1 "
                               "world-size=2) but runs on 1 process"),
            std::string::npos)
      << ran.message();
  EXPECT_NE(ran.message().find("mpirun -np 2"), std::string::npos);
  EXPECT_FALSE(session->joinLauncher("test").isOk());
}

TEST(SessionCollectiveCreateTest, ReducesF32Only) {
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(makeAllReducePlan(DType::BF16), "reference");
  ASSERT_FALSE(created.isOk());
  EXPECT_EQ(created.status().code(), StatusCode::Unimplemented);
  EXPECT_NE(created.status().message().find(
                "kernel #0 (train.all_reduce) reduces bf16 tensors"),
            std::string::npos)
      << created.status().message();
}

} // namespace
