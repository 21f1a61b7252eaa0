//===- PlanStatsTest.cpp - planMemoryStats --------------------------------===//
#include "TestPlans.h"

#include <gtest/gtest.h>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// x -> h = relu(x @ w16) with w16 = cast(w); loss; seed; backward reads h
/// and w16. Saved: h (from the data, read after the seed). Not saved: w16
/// (a parameter copy), a forward temporary read only before the seed, and
/// the backward's own tensors.
TEST(PlanStatsTest, CountsDataTensorsLiveAcrossTheSeed) {
  TestPlanBuilder b;
  uint32_t x = b.tensor(TensorKind::Input, DType::F32, {8, 4}, "x");
  uint32_t w = b.tensor(TensorKind::Param, DType::F32, {4, 4}, "w");
  uint32_t w16 = b.scratch(DType::BF16, {4, 4});
  uint32_t x16 = b.scratch(DType::BF16, {8, 4});
  uint32_t h = b.scratch(DType::BF16, {8, 4});
  uint32_t loss = b.scratch(DType::F32, {});
  uint32_t seed = b.scratch(DType::F32, {});
  uint32_t grad = b.scratch(DType::BF16, {8, 4});
  b.kernel("mp.cast", {w}, {w16});
  b.kernel("mp.cast", {x}, {x16});
  b.kernel("train.matmul", {x16, w16}, {h});
  b.kernel("train.reduce_sum", {h}, {loss}, {{"dims", ints({0, 1})}});
  b.kernel("train.grad_seed", {loss}, {seed});
  b.kernel("train.broadcast", {seed}, {grad});
  b.kernel("train.relu_grad", {grad, h}, {grad});
  b.result(ResultRole::Loss, loss, "loss");
  Plan plan = b.finish(); // every scratch tensor side by side
  planMemory(plan);
  PlanMemoryStats stats = planMemoryStats(plan);
  // The planned arena holds at least what the matmul needs at once (x16, w16 and
  // h, 64-byte aligned: 192 bytes) and reuses memory: less than every
  // scratch tensor side by side (6 x 64).
  EXPECT_GE(stats.arenaBytes, 192u);
  EXPECT_LT(stats.arenaBytes, 6u * 64);
  // h (8x4 bf16) and the loss itself (a result, read after the seed).
  EXPECT_EQ(8u * 4 * 2 + 4, stats.savedActivationBytes);
}

TEST(PlanStatsTest, ForwardOnlyPlansSaveNothing) {
  TestPlanBuilder b;
  uint32_t x = b.tensor(TensorKind::Input, DType::F32, {2, 3}, "x");
  uint32_t y = b.scratch(DType::F32, {2, 3});
  b.kernel("train.relu", {x}, {y});
  b.result(ResultRole::Output, y, "y");
  Plan plan = b.finish();
  EXPECT_EQ(0u, planMemoryStats(plan).savedActivationBytes);
  // y alone (24 bytes, one 64-byte slot).
  EXPECT_EQ(64u, planMemoryStats(plan).arenaBytes);
}

} // namespace
