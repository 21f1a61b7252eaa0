//===- BackendTest.cpp - the reference backend's registry and checks ------===//
#include "RefTestUtil.h"

#include <algorithm>
#include <set>

using namespace mp::rt;
using namespace mp::rt::test;

/// Every op of the train (but train.constant, which becomes a plan tensor)
/// and mp dialects; keep in sync with TrainOps.td and MPOps.td.
static const std::set<std::string> kDialectOps = {
    "train.neg",
    "train.exp",
    "train.log",
    "train.sqrt",
    "train.rsqrt",
    "train.tanh",
    "train.sigmoid",
    "train.erf",
    "train.relu",
    "train.gelu",
    "train.add",
    "train.sub",
    "train.mul",
    "train.div",
    "train.maximum",
    "train.minimum",
    "train.pow",
    "train.compare",
    "train.select",
    "train.relu_grad",
    "train.tanh_grad",
    "train.sigmoid_grad",
    "train.gelu_grad",
    "train.matmul",
    "train.bias_add",
    "train.conv2d",
    "train.conv2d_backward_data",
    "train.conv2d_backward_filter",
    "train.batch_norm",
    "train.batch_norm_grad",
    "train.layer_norm",
    "train.layer_norm_grad",
    "train.softmax",
    "train.log_softmax",
    "train.softmax_grad",
    "train.log_softmax_grad",
    "train.sparse_cross_entropy",
    "train.sparse_cross_entropy_grad",
    "train.reduce_sum",
    "train.reduce_mean",
    "train.reduce_max",
    "train.max_pool2d",
    "train.avg_pool2d",
    "train.max_pool2d_grad",
    "train.avg_pool2d_grad",
    "train.global_avg_pool2d",
    "train.global_avg_pool2d_grad",
    "train.embedding",
    "train.embedding_grad",
    "train.reshape",
    "train.transpose",
    "train.broadcast",
    "train.slice",
    "train.concat",
    "train.fill",
    "train.grad_seed",
    "train.sgd",
    "train.sgd_momentum",
    "train.adam",
    "train.adamw",
    "mp.cast",
    "mp.scale",
    "mp.unscale_and_check",
    "mp.all_finite",
    "mp.select",
    "mp.update_scale",
    "mp.matmul_epilogue"};

TEST(ReferenceBackend, RunsEveryDialectOp) {
  const std::vector<std::string> &ops = referenceBackendOps();
  std::set<std::string> registered(ops.begin(), ops.end());
  EXPECT_EQ(registered.size(), ops.size()) << "an op is registered twice";
  EXPECT_EQ(registered, kDialectOps);
  EXPECT_EQ(kDialectOps.size(), 67u); // 60 train ops + 7 mp ops
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
  expectError(createReferenceBackend()->check(kernel, plan),
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
