//===- ArgMaxLogSumExpTest.cpp - argmax and logsumexp ---------------------===//
//
// logsumexp against float64 (including logits of 1000, where exp
// overflows f32 and double alike without the max subtracted), its infinite
// and NaN cases; argmax's first-maximum and NaN rules (torch.argmax).
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

TEST(LogSumExpTest, MatchesFloat64) {
  for (DType d : floatDTypes()) {
    HostTensor x = randomTensor(d, {5, 23}, -30, 30, 3);
    x.set(0, 1000); // row 0: far beyond exp's range
    HostTensor y = zerosTensor(DType::F32, {5});
    ASSERT_OK(runKernel("train.logsumexp", {{"dims", intsAttr({1})}}, {&x},
                        {&y}));
    Values want(5);
    for (int64_t r = 0; r < 5; ++r) {
      double m = -INFINITY, s = 0;
      for (int64_t j = 0; j < 23; ++j)
        m = std::max(m, x.at(r * 23 + j));
      for (int64_t j = 0; j < 23; ++j)
        s += std::exp(x.at(r * 23 + j) - m);
      want[r] = m + std::log(s);
    }
    expectNear(y, want, accumulateTolerance(DType::F32), "logsumexp");
  }
}

TEST(LogSumExpTest, InfiniteAndNaNRows) {
  HostTensor x = makeTensor(DType::F32, {3, 2},
                            {-INFINITY, -INFINITY, INFINITY, 1, NAN, 1});
  HostTensor y = zerosTensor(DType::F32, {3});
  ASSERT_OK(
      runKernel("train.logsumexp", {{"dims", intsAttr({1})}}, {&x}, {&y}));
  EXPECT_EQ(y.at(0), -INFINITY);
  EXPECT_EQ(y.at(1), INFINITY);
  EXPECT_TRUE(std::isnan(y.at(2)));
}

TEST(ArgMaxTest, FirstMaximumAndFirstNaN) {
  HostTensor x = makeTensor(DType::F32, {3, 4},
                            {1, 5, 5, 2, 3, NAN, 9, NAN, -1, -1, -1, -1});
  HostTensor y = zerosTensor(DType::I64, {3});
  ASSERT_OK(runKernel("train.argmax", {{"dim", intsAttr({1})}}, {&x}, {&y}));
  EXPECT_EQ(y.at(0), 1); // ties: the first
  EXPECT_EQ(y.at(1), 1); // the first NaN beats 9
  EXPECT_EQ(y.at(2), 0);
  HostTensor columns = zerosTensor(DType::I64, {1, 4});
  ASSERT_OK(runKernel("train.argmax",
                      {{"dim", intsAttr({0})}, {"keep_dims", intsAttr({1})}},
                      {&x}, {&columns}));
  EXPECT_EQ(columns.values(), (Values{1, 1, 1, 1})); // 3, NaN, 9, NaN
}

} // namespace
