//===- SessionBindTest.cpp - inputs read from the caller's memory ---------===//
#include "TestPlans.h"
#include "mp/runtime/Session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

class SessionBindTest : public ::testing::TestWithParam<std::string> {};

Status bindBatch(Session &session, const std::vector<float> &x,
                 const std::vector<float> &t) {
  const int64_t xShape[] = {4, 3};
  Status status = session.bindTensor("x", DType::F32, xShape, 2, x.data(),
                                     x.size() * sizeof(float));
  if (!status.isOk())
    return status;
  const int64_t shape[] = {4, 2};
  return session.bindTensor("t", DType::F32, shape, 2, t.data(),
                            t.size() * sizeof(float));
}

/// A step on bound batches is the step on the same batches copied in,
/// bit for bit, and it reads the caller's memory as it is when the step
/// runs (no copy at bind time).
TEST_P(SessionBindTest, BoundBatchesTrainAsCopiedOnes) {
  auto copied = createTestSession(makeLeastSquaresPlan(), GetParam());
  auto bound = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(copied && bound);
  for (int step = 0; step < 20; ++step) {
    std::vector<float> x = leastSquaresX(step), t = leastSquaresT(step);
    bindLeastSquaresBatch(*copied, x, t);
    std::vector<float> xb(x.size(), 0.0f), tb = t;
    ASSERT_TRUE(bindBatch(*bound, xb, tb).isOk());
    // Written after the bind, before the step: the step reads it.
    std::copy(x.begin(), x.end(), xb.begin());
    EXPECT_EQ(readTensor<float>(*bound, "x"), x);
    float a = 0, b = 0;
    ASSERT_TRUE(copied->runStep(&a).isOk());
    ASSERT_TRUE(bound->runStep(&b).isOk());
    EXPECT_EQ(a, b) << "step " << step;
  }
  EXPECT_EQ(readTensor<float>(*copied, "w"), readTensor<float>(*bound, "w"));
}

/// A binding lasts one step; the next needs the batch again, and says so.
TEST_P(SessionBindTest, ABindingLastsOneStep) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session);
  std::vector<float> x = leastSquaresX(0), t = leastSquaresT(0);
  ASSERT_TRUE(bindBatch(*session, x, t).isOk());
  ASSERT_TRUE(session->runStep().isOk());
  Status again = session->runStep();
  EXPECT_EQ(again.code(), StatusCode::InvalidArgument);
  EXPECT_NE(again.message().find("'x' (bound to the caller's memory for the "
                                 "last step only)"),
            std::string::npos)
      << again.message();
  bindLeastSquaresBatch(*session, x, t); // set (copied): kept from now on
  EXPECT_TRUE(session->runStep().isOk());
  EXPECT_TRUE(session->runStep().isOk());
}

/// A set after a bind replaces the binding: the step reads the value set.
TEST_P(SessionBindTest, ASetReplacesABinding) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  auto reference = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session && reference);
  std::vector<float> x = leastSquaresX(2), t = leastSquaresT(2);
  std::vector<float> other = leastSquaresX(3);
  ASSERT_TRUE(bindBatch(*session, other, t).isOk());
  bindLeastSquaresBatch(*session, x, t);
  bindLeastSquaresBatch(*reference, x, t);
  float a = 0, b = 0;
  ASSERT_TRUE(session->runStep(&a).isOk());
  ASSERT_TRUE(reference->runStep(&b).isOk());
  EXPECT_EQ(a, b);
  EXPECT_TRUE(session->runStep().isOk()); // set, so kept
}

/// A step that fails its gradient check keeps a copy of the bound batch:
/// the replay and a retry read the batch the failed step had.
TEST_P(SessionBindTest, AFailedStepKeepsTheBoundBatch) {
  LeastSquaresOptions options;
  options.lossScaling = false;
  options.checkFinite = true;
  auto session = createTestSession(makeLeastSquaresPlan(options), GetParam());
  ASSERT_TRUE(session);
  std::vector<float> x = leastSquaresX(1), t = leastSquaresT(1);
  x[4] = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(bindBatch(*session, x, t).isOk());
  EXPECT_FALSE(session->runStep().isOk());
  std::vector<float> kept = readTensor<float>(*session, "x");
  EXPECT_TRUE(std::isnan(kept[4]));
  kept[4] = x[4] = 0.0f;
  EXPECT_EQ(kept, x);
  Status retry = session->runStep(); // no batch given: the kept one
  EXPECT_FALSE(retry.isOk());
  EXPECT_NE(retry.message().find("the gradient of 'w'"), std::string::npos)
      << retry.message();
}

/// Bad bindings are refused like bad sets; state and results are not
/// bound.
TEST_P(SessionBindTest, ChecksWhatItBinds) {
  auto session = createTestSession(makeLeastSquaresPlan(), GetParam());
  ASSERT_TRUE(session);
  std::vector<float> x(12), w(6);
  const int64_t wrong[] = {3, 4}, weight[] = {3, 2};
  Status s = session->bindTensor("x", DType::F32, wrong, 2, x.data(), 48);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "input 'x' is f32[4, 3], got f32[3, 4]");
  s = session->bindTensor("w", DType::F32, weight, 2, w.data(), 24);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("only inputs and labels are bound"),
            std::string::npos);
  const int64_t shape[] = {4, 3};
  auto *unaligned = reinterpret_cast<const char *>(x.data()) + 1;
  s = session->bindTensor("x", DType::F32, shape, 2, unaligned, 48);
  EXPECT_EQ(s.code(), StatusCode::Unimplemented);
  EXPECT_EQ(
      session->bindTensor("nope", DType::F32, shape, 2, x.data(), 48).code(),
      StatusCode::NotFound);
}

INSTANTIATE_TEST_SUITE_P(Backends, SessionBindTest,
                         ::testing::ValuesIn(testBackendNames()));

/// An input read through a view (a reshape laid out as a view of it, no
/// kernel run): the view follows the binding.
TEST(SessionBindViewTest, ViewsOfABoundInputReadTheCallersMemory) {
  Plan plan = makeReshapeOfInputPlan().plan;
  ASSERT_TRUE(plan.kernels[0].isView());
  auto session = createTestSession(std::move(plan), "reference");
  ASSERT_TRUE(session);
  std::vector<float> zeros(6, 0.0f), xs = {1, 2, 3, -4, 5, -6};
  const int64_t shape[] = {2, 3};
  ASSERT_TRUE(
      session->setTensor("x", DType::F32, shape, 2, zeros.data(), 24).isOk());
  ASSERT_TRUE(
      session->bindTensor("x", DType::F32, shape, 2, xs.data(), 24).isOk());
  ASSERT_TRUE(session->runStep().isOk());
  std::vector<float> twice;
  for (float v : xs)
    twice.push_back(v + v);
  EXPECT_EQ(readTensor<float>(*session, "d"), twice);
  // After the step, the session's own memory again (still the zeros set
  // before: the binding copied nothing).
  ASSERT_TRUE(
      session->setTensor("x", DType::F32, shape, 2, zeros.data(), 24).isOk());
  ASSERT_TRUE(session->runStep().isOk());
  EXPECT_EQ(readTensor<float>(*session, "d"), zeros);
}

} // namespace
