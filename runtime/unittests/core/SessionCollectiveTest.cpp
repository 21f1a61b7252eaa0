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
