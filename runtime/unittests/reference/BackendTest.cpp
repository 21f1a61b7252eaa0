//===- BackendTest.cpp - the reference backend's registry and checks ------===//
#include "RefTestUtil.h"

#include <algorithm>
#include <set>

using namespace mp::rt;
using namespace mp::rt::test;

/// Every op of the op table (the train and mp dialects' ODS) but
/// train.constant, which becomes a plan tensor.
static std::set<std::string> dialectOps() {
  std::set<std::string> ops;
  // Not the constant (a plan tensor) nor the collectives (the session's
  // communicator runs them, docs/distributed.md).
  for (size_t i = 0; i < kNumOps; ++i)
    if (static_cast<OpId>(i) != OpId::TrainConstant &&
        !isCollectiveOp(static_cast<OpId>(i)))
      ops.insert(opName(static_cast<OpId>(i)));
  return ops;
}

TEST(ReferenceBackend, RunsEveryDialectOp) {
  const std::vector<std::string> &ops = referenceBackendOps();
  std::set<std::string> registered(ops.begin(), ops.end());
  EXPECT_EQ(registered.size(), ops.size()) << "an op is registered twice";
  EXPECT_EQ(registered, dialectOps());
  EXPECT_STREQ(createReferenceBackend()->name(), "reference");
}

TEST(ReferenceBackend, RejectsUnknownOps) {
  HostTensor x(DType::F32, {2}), y(DType::F32, {2});
  expectError(checkKernel("train.constant", {}, {}, {&y}),
              StatusCode::Unimplemented, "no kernel for 'train.constant'");
  expectError(runKernel("train.frobnicate", {}, {&x}, {&y}),
              StatusCode::Unimplemented, "train.frobnicate");
}

TEST(ReferenceBackend, CheckRejectsBadPlans) {
  Plan plan;
  plan.tensors.push_back({TensorKind::Scratch, DType::F32, {2}, "", 0, 0});
  KernelDesc kernel;
  kernel.op = "train.neg";
  kernel.inputs = {0};
  kernel.outputs = {7};
  expectError(createReferenceBackend()->prepare(kernel, plan),
              StatusCode::InvalidArgument, "refers to tensor 7");
  // Arity, dtype and shape errors name the op.
  HostTensor x(DType::F32, {2}), y(DType::F32, {2}), i(DType::I32, {2}),
      h(DType::F16, {2}), wrong(DType::F32, {3});
  expectError(checkKernel("train.neg", {}, {&x, &x}, {&y}),
              StatusCode::InvalidArgument, "train.neg: expects 1 operands");
  expectError(checkKernel("train.exp", {}, {&i}, {&i}),
              StatusCode::Unimplemented, "train.exp: expects x of dtype");
  expectError(checkKernel("train.add", {}, {&x, &h}, {&y}),
              StatusCode::Unimplemented, "train.add: expects lhs and rhs");
  expectError(checkKernel("train.add", {}, {&x, &x}, {&wrong}),
              StatusCode::InvalidArgument, "result of shape [2]");
}

TEST(ReferenceBackend, RunChecksToo) {
  // A caller that skips check() still gets an error, not a wild write.
  HostTensor x(DType::F32, {4}), y(DType::F32, {2});
  KernelDesc kernel;
  kernel.op = "train.relu";
  std::vector<TensorView> in = {x.view()}, out = {y.view()};
  expectError(createReferenceBackend()->run(kernel, in, out),
              StatusCode::InvalidArgument, "result of shape [4]");
}
