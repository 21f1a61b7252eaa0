//===- PlanValidateTest.cpp - dtypes and Plan::validate -------------------===//
#include "TestPlans.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <functional>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

TEST(PlanTest, DtypeHelpers) {
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeSize(DType::I1), 1u);
  EXPECT_EQ(dtypeSize(DType::I32), 4u);
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
  EXPECT_EQ(dtypeSize(static_cast<DType>(17)), 0u);
  EXPECT_STREQ(dtypeName(DType::BF16), "bf16");
  EXPECT_STREQ(dtypeName(DType::I1), "i1");
  EXPECT_TRUE(isFloat(DType::F16));
  EXPECT_FALSE(isFloat(DType::I32));
  EXPECT_TRUE(isPersistent(TensorKind::ScalerState));
  EXPECT_TRUE(isPersistent(TensorKind::Buffer));
  EXPECT_FALSE(isPersistent(TensorKind::Input));
  EXPECT_FALSE(isPersistent(TensorKind::Scratch));
  EXPECT_STREQ(tensorKindName(TensorKind::OptState), "opt_state");
  EXPECT_STREQ(resultRoleName(ResultRole::Loss), "loss");
  EXPECT_EQ(formatShape({}), "[]");
  EXPECT_EQ(formatShape({2, 3}), "[2, 3]");
}

TEST(PlanTest, NumElements) {
  TensorDesc t;
  EXPECT_EQ(t.numElements(), 1); // a scalar
  t.shape = {2, 3, 4};
  EXPECT_EQ(t.numElements(), 24);
  t.dtype = DType::BF16;
  EXPECT_EQ(t.byteSize(), 48u);
  t.shape = {2, 0, 4};
  EXPECT_EQ(t.numElements(), 0);
  t.shape = {2, -1};
  EXPECT_EQ(t.numElements(), -1);
  t.shape = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_EQ(t.numElements(), -1); // overflow is reported, not wrapped
  // Empty, but the other dimensions' product overflows: a kernel's row or
  // plane size would (the window arithmetic of conv2d on such a plan did,
  // found by fuzzing): invalid too.
  t.shape = {0, int64_t(1) << 40, int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_EQ(t.numElements(), -1);
  t.shape = {0, int64_t(1) << 30, int64_t(1) << 30};
  EXPECT_EQ(t.numElements(), 0);
}

TEST(PlanTest, TestPlansAreValid) {
  for (bool scaling : {false, true}) {
    LeastSquaresOptions options;
    options.lossScaling = scaling;
    Status status = makeLeastSquaresPlan(options).validate();
    EXPECT_TRUE(status.isOk()) << status.message();
  }
}

/// One way to break the least-squares plan, and what the message must say.
struct Breakage {
  const char *what;
  std::function<void(Plan &)> edit;
  const char *message;
  friend std::ostream &operator<<(std::ostream &os, const Breakage &b) {
    return os << b.what;
  }
};

/// Tensor ids of the least-squares plan with loss scaling (see
/// makeLeastSquaresPlan): x, t, w, m, scale, count, then scratch.
enum : uint32_t {
  kX = 0,
  kT = 1,
  kW = 2,
  kM = 3,
  kScale = 4,
  kCount = 5,
  kY = 6
};

class PlanRejectionTest : public ::testing::TestWithParam<Breakage> {};

TEST_P(PlanRejectionTest, IsRejectedWithAMessage) {
  Plan plan = makeLeastSquaresPlan();
  GetParam().edit(plan);
  Status status = plan.validate();
  ASSERT_FALSE(status.isOk()) << GetParam().what;
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(status.message().find(GetParam().message), std::string::npos)
      << "message: " << status.message();
}

const Breakage kBreakages[] = {
    {"unknown kind",
     [](Plan &p) { p.tensors[kY].kind = static_cast<TensorKind>(9); },
     "tensor 6 has unknown kind 9"},
    {"unknown dtype",
     [](Plan &p) { p.tensors[kX].dtype = static_cast<DType>(9); },
     "tensor 0 'x' (input) has unknown dtype 9"},
    {"negative dim",
     [](Plan &p) {
       p.tensors[kW].shape = {3, -2};
     },
     "tensor 2 'w' (param) has an invalid shape [3, -2]"},
    {"huge shape",
     [](Plan &p) {
       p.tensors[kX].shape = {int64_t(1) << 31, int64_t(1) << 31};
     },
     "invalid shape"},
    {"unnamed input", [](Plan &p) { p.tensors[kX].name.clear(); },
     "tensor 0 (input) needs a name"},
    {"duplicate name", [](Plan &p) { p.tensors[kM].name = "w"; },
     "tensor 3 'w' (opt_state) has the same name as tensor 2 'w' (param)"},
    {"non-finite scaler init",
     [](Plan &p) { p.tensors[kScale].initialValue = NAN; },
     "'loss_scale' (scaler_state) has a non-finite initial value"},
    {"scratch past the arena", [](Plan &p) { p.arenaSize -= 64; },
     "ends past the arena"},
    {"misaligned scratch", [](Plan &p) { p.tensors[kY].offset += 2; },
     "not a multiple of its element size 4"},
    {"constant past the blob",
     [](Plan &p) {
       p.tensors.push_back({TensorKind::Constant, DType::F32, {4}, "", 8, 0});
       p.constants.resize(16);
     },
     "ends past the constants blob of 16 bytes"},
    {"input id out of range", [](Plan &p) { p.kernels[1].inputs[1] = 999; },
     "kernel #1 (train.sub): input 1 is tensor 999, but the plan has"},
    {"output id out of range", [](Plan &p) { p.kernels[0].outputs[0] = 999; },
     "kernel #0 (train.matmul): output 0 is tensor 999"},
    {"use before definition",
     [](Plan &p) { std::swap(p.kernels[0], p.kernels[1]); },
     "kernel #0 (train.sub): input 0 is tensor 6 (scratch), which no earlier "
     "kernel writes"},
    {"kernel writes a param", [](Plan &p) { p.kernels[0].outputs[0] = kW; },
     "kernel #0 (train.matmul): output 0 is tensor 2 'w' (param); kernels "
     "write scratch tensors only"},
    {"two writers", [](Plan &p) { p.kernels[1].outputs[0] = kY; },
     "output 0 is tensor 6 (scratch), already written by kernel #0 "
     "(train.matmul)"},
    {"unnamed op", [](Plan &p) { p.kernels[2].op.clear(); },
     "kernel #2 has no op name"},
    {"bad attribute kind",
     [](Plan &p) {
       p.kernels[0].attrs["transpose_lhs"].kind = static_cast<Attr::Kind>(7);
     },
     "kernel #0 (train.matmul): attribute 'transpose_lhs' has an unknown kind"},
    {"no loss", [](Plan &p) { p.results.erase(p.results.begin()); },
     "plan has 0 loss results; it needs exactly one"},
    {"two losses", [](Plan &p) { p.results.push_back(p.results[0]); },
     "the same name as result #0"},
    {"loss not a scalar", [](Plan &p) { p.results[0].value = kY; },
     "result #0 (loss 'loss') is tensor 6 (scratch) of f32[4, 2]; the loss "
     "must be one float element"},
    {"result never written",
     [](Plan &p) {
       p.tensors.push_back({TensorKind::Scratch, DType::F32, {}, "", 0, 0});
       p.results[0].value = static_cast<uint32_t>(p.tensors.size() - 1);
     },
     "which no kernel writes"},
    {"state of the wrong kind", [](Plan &p) { p.results[1].state = kM; },
     "result #1 (param 'w') updates tensor 3 'w.momentum_buffer' (opt_state), "
     "not a param tensor"},
    {"state of another shape", [](Plan &p) { p.results[3].state = kCount; },
     "computes f32[] for tensor 5 'loss_scale.growth_count' (scaler_state) of "
     "i64[]"},
    {"state updated twice",
     [](Plan &p) {
       p.results[2].state = kW;
       p.results[2].role = ResultRole::Param;
     },
     "already updated by result #1"},
    {"state id out of range", [](Plan &p) { p.results[1].state = UINT32_MAX; },
     "result #1 (param 'w') updates tensor 4294967295"},
    {"unnamed output", [](Plan &p) { p.results.back().name.clear(); },
     "needs a name: outputs are read by name"},
    {"output named like a tensor", [](Plan &p) { p.results.back().name = "x"; },
     "result #6 (output 'x') has the same name as tensor 0 'x' (input)"},
    {"unknown role",
     [](Plan &p) { p.results.back().role = static_cast<ResultRole>(11); },
     "result #6 has unknown role 11"},
    {"unknown kernel flags", [](Plan &p) { p.kernels[1].flags = 16; },
     "kernel #1 (train.sub) has unknown layout flags 16"},
    {"view of another op",
     [](Plan &p) { p.kernels[1].flags = KernelDesc::kViewKernel; },
     "kernel #1 (train.sub) is marked a view, but only a train.reshape"},
    {"hoisted cast of another op",
     [](Plan &p) { p.kernels[1].flags = KernelDesc::kHoistedCastKernel; },
     "kernel #1 (train.sub) is marked a hoisted cast, but only an mp.cast of "
     "a double-buffered state"},
    {"fused check of another op",
     [](Plan &p) { p.kernels[1].flags = KernelDesc::kFusedCheckKernel; },
     "kernel #1 (train.sub) is marked a fused check, but only an "
     "mp.all_finite whose result no kernel reads"},
    {"fused activation of another op",
     [](Plan &p) { p.kernels[1].flags = KernelDesc::kFusedActivationKernel; },
     "kernel #1 (train.sub) is marked a fused activation, but only a "
     "train.relu right after the train.batch_norm"},
    {"both a view and a hoisted cast",
     [](Plan &p) {
       p.kernels[1].flags =
           KernelDesc::kViewKernel | KernelDesc::kHoistedCastKernel;
     },
     "kernel #1 (train.sub) is marked both a view and a hoisted cast"},
    {"unknown result flags", [](Plan &p) { p.results[1].flags = 2; },
     "result #1 (param 'w') has unknown layout flags 2"},
    {"double-buffered loss",
     [](Plan &p) { p.results[0].flags = ResultDesc::kDoubleBuffered; },
     "result #0 (loss 'loss') is marked double-buffered, but only an update"},
    {"double-buffered value another result names",
     [](Plan &p) {
       p.results.push_back({ResultRole::Output, p.results[1].value,
                            UINT32_MAX, "new_w"});
     },
     "result #1 (param 'w') is marked double-buffered"},
    {"outside the arena at an offset",
     [](Plan &p) { p.tensors[p.results[1].value].offset = 64; },
     "has arena offset 64, but the plan's layout keeps it outside the arena"},
    {"live scratch tensors share bytes",
     [](Plan &p) { p.tensors[kY + 1].offset = p.tensors[kY].offset; },
     "tensor 6 (scratch) and tensor 7 (scratch) share arena bytes [0, 32) "
     "while both are live"},
};

/// The least-squares plan with its sub -> mul run (kernels #1 and #2) as a
/// fused region, before `edit` breaks it.
Plan withRegion(const std::function<void(Plan &, FusedRegion &)> &edit) {
  Plan plan = makeLeastSquaresPlan();
  FusedRegion region = leastSquaresRegion(plan);
  plan.code.library = "x.code.so";
  edit(plan, region);
  plan.code.regions.push_back(region);
  planMemory(plan);
  return plan;
}

TEST(PlanTest, FusedRegionIsValid) {
  Plan plan = withRegion([](Plan &, FusedRegion &) {});
  EXPECT_TRUE(plan.validate().isOk()) << plan.validate().message();
}

struct RegionBreakage {
  const char *what;
  std::function<void(Plan &, FusedRegion &)> edit;
  const char *message;
};

class RegionRejectionTest : public ::testing::TestWithParam<RegionBreakage> {};

TEST_P(RegionRejectionTest, IsRejectedWithAMessage) {
  Plan plan = withRegion(GetParam().edit);
  Status status = plan.validate();
  ASSERT_FALSE(status.isOk()) << GetParam().what;
  EXPECT_NE(status.message().find(GetParam().message), std::string::npos)
      << "message: " << status.message();
}

const RegionBreakage kRegionBreakages[] = {
    {"no library", [](Plan &p, FusedRegion &) { p.code.library.clear(); },
     "names no code library"},
    {"library elsewhere",
     [](Plan &p, FusedRegion &) { p.code.library = "/tmp/x.so"; },
     "is not a file name (it must lie next to the plan)"},
    {"past the end",
     [](Plan &p, FusedRegion &r) { r.count = uint32_t(p.kernels.size()); },
     "not a non-empty range"},
    {"empty", [](Plan &, FusedRegion &r) { r.count = 0; },
     "not a non-empty range"},
    {"missing output",
     [](Plan &, FusedRegion &r) { r.operands.pop_back(); },
     "is read after the region but is not among its outputs"},
    {"missing input",
     [](Plan &, FusedRegion &r) {
       r.operands.erase(r.operands.begin());
       r.numInputs = 1;
     },
     "which is not among the region's inputs"},
    {"repeated operand",
     [](Plan &, FusedRegion &r) { r.operands[1] = r.operands[0]; },
     "out of range or repeated"},
    {"output not written",
     [](Plan &, FusedRegion &r) {
       r.count = 1; // mul's result is no longer the region's
     },
     "is not written by the region's kernels"},
};

/// A test name from a breakage's description.
std::string nameOf(const char *what) {
  std::string name;
  for (const char *c = what; *c; ++c)
    name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Validate, RegionRejectionTest, ::testing::ValuesIn(kRegionBreakages),
    [](const ::testing::TestParamInfo<RegionBreakage> &info) {
      return nameOf(info.param.what);
    });

TEST(PlanTest, RegionTensorsMustNotShareBytes) {
  // sub's input y and mul's result r2 are apart in a region (planMemory);
  // placed on the same bytes, validate() names the two.
  Plan plan = withRegion([](Plan &, FusedRegion &) {});
  const FusedRegion &region = plan.code.regions[0];
  plan.tensors[region.operands[3]].offset =
      plan.tensors[region.operands[0]].offset;
  Status status = plan.validate();
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("share arena bytes"), std::string::npos)
      << status.message();
}

INSTANTIATE_TEST_SUITE_P(Validate, PlanRejectionTest,
                         ::testing::ValuesIn(kBreakages),
                         [](const ::testing::TestParamInfo<Breakage> &info) {
                           return nameOf(info.param.what);
                         });

TEST(PlanTest, DeadScratchTensorsMayShareBytes) {
  // r2 (tensor 8) dies at the reduction (kernel #3); the seed (tensor 10)
  // is born at kernel #4: they may share memory.
  Plan plan = makeLeastSquaresPlan();
  ASSERT_EQ(plan.kernels[3].op, "train.reduce_sum");
  ASSERT_EQ(plan.kernels[4].op, "train.grad_seed");
  plan.tensors[plan.kernels[4].outputs[0]].offset =
      plan.tensors[plan.kernels[2].outputs[0]].offset;
  Status status = plan.validate();
  EXPECT_TRUE(status.isOk()) << status.message();
  // ... but not with the reduction's output, alive until the step ends.
  plan.tensors[plan.kernels[4].outputs[0]].offset =
      plan.tensors[plan.kernels[3].outputs[0]].offset;
  EXPECT_FALSE(plan.validate().isOk());
}

/// A reshape flagged as a view at its input's offset: one buffer, live
/// until the last read of either; another tensor may take the bytes only
/// after that.
TEST(PlanTest, ReshapeViewsShareTheirInputsBytes) {
  TwoReshapesPlan made = makeTwoReshapesPlan();
  Plan &plan = made.plan;
  uint32_t a = made.square, c = made.twice, d = made.twiceFlat;
  plan.kernels[1].flags = KernelDesc::kViewKernel;
  plan.tensors[made.squareFlat].offset = plan.tensors[a].offset + 64;
  Status status = plan.validate();
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("kernel #1 (train.reshape) is a view, but "
                                  "its result tensor 2 (scratch) is at arena "
                                  "offset 64, its input's bytes at 0"),
            std::string::npos)
      << status.message();
  plan.tensors[made.squareFlat].offset = plan.tensors[a].offset;
  status = plan.validate();
  EXPECT_TRUE(status.isOk()) << status.message();
  // c would overwrite a's bytes while y, their view, is still to be read.
  plan.tensors[c].offset = plan.tensors[a].offset;
  status = plan.validate();
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("share arena bytes"), std::string::npos)
      << status.message();
  // Not a reshape: no view.
  plan.tensors[c].offset = plan.tensors[d].offset;
  plan.kernels[1].op = "train.neg";
  status = plan.validate();
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("kernel #1 (train.neg) is marked a view"),
            std::string::npos)
      << status.message();
}

TEST(PlanTest, ResultMayBeAStateTensor) {
  // A persistent result whose value is its own state: nothing to copy.
  Plan plan = makeLeastSquaresPlan();
  plan.results[2].value = plan.results[2].state;
  // No longer double-buffered: nothing to flip either.
  EXPECT_FALSE(plan.validate().isOk());
  layOutPlan(plan);
  EXPECT_FALSE(plan.results[2].isDoubleBuffered());
  Status status = plan.validate();
  EXPECT_TRUE(status.isOk()) << status.message();
}

} // namespace
