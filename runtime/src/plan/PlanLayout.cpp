//===- PlanLayout.cpp - the layout decisions mp-compile records -----------===//
//
// Which persistent updates are double-buffered, which weight casts are
// hoisted out of the step, which reshapes are views, which gradient checks
// the optimizer updates may make, which ReLUs run with their batch norm
// (Plan.h, layOutPlan),
// and what follows from those flags for storage: the roots of views and
// the scratch tensors kept outside the arena. The compiler decides once;
// validate() checks the flags and the session executes them as written.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Plan.h"

using namespace mp::rt;

bool mp::rt::isStateUpdate(const ResultDesc &result) {
  return result.role != ResultRole::Loss &&
         result.role != ResultRole::Output &&
         result.role != ResultRole::Check && result.value != result.state;
}

std::vector<uint32_t> mp::rt::storageRoots(const Plan &plan) {
  size_t count = plan.tensors.size();
  std::vector<uint32_t> root(count);
  for (uint32_t t = 0; t < count; ++t)
    root[t] = t;
  // In schedule order: a view's input is defined before it, so its root
  // is final when the view is reached.
  for (const KernelDesc &kernel : plan.kernels)
    if (kernel.isView() && kernel.inputs.size() == 1 &&
        kernel.outputs.size() == 1 && kernel.inputs[0] < count &&
        kernel.outputs[0] < count)
      root[kernel.outputs[0]] = root[kernel.inputs[0]];
  return root;
}

std::vector<bool> mp::rt::outsideArena(const Plan &plan) {
  size_t count = plan.tensors.size();
  std::vector<bool> outside(count, false);
  for (const ResultDesc &result : plan.results)
    if (result.isDoubleBuffered() && result.value < count)
      outside[result.value] = true;
  for (const KernelDesc &kernel : plan.kernels)
    if (kernel.isHoistedCast())
      for (uint32_t t : kernel.outputs)
        if (t < count)
          outside[t] = true;
  std::vector<uint32_t> root = storageRoots(plan);
  for (uint32_t t = 0; t < count; ++t)
    if (root[t] != t)
      outside[t] = outside[root[t]] ||
                   plan.tensors[root[t]].kind != TensorKind::Scratch;
  return outside;
}

bool mp::rt::isOptimizerUpdate(OpId op) {
  return op == OpId::TrainSgd || op == OpId::TrainSgdMomentum ||
         op == OpId::TrainAdam || op == OpId::TrainAdamw;
}

bool KernelDesc::isCollective() const { return isCollectiveOp(opId()); }

bool mp::rt::isCollectiveOp(OpId op) {
  return op == OpId::TrainAllReduce || op == OpId::TrainRankBroadcast ||
         op == OpId::TrainReduceScatter || op == OpId::TrainRankShard ||
         op == OpId::TrainAllGather || op == OpId::TrainAllRanks ||
         op == OpId::TrainClipGradNormShards;
}

std::vector<uint32_t> mp::rt::gradientCheckers(const Plan &plan,
                                               size_t check) {
  size_t count = plan.tensors.size();
  const KernelDesc &kernel = plan.kernels[check];
  if (kernel.opId() != OpId::MpAllFinite || kernel.outputs.size() != 1 ||
      kernel.outputs[0] >= count)
    return {};
  uint32_t verdict = kernel.outputs[0];
  for (const KernelDesc &other : plan.kernels)
    for (uint32_t t : other.inputs)
      if (t == verdict)
        return {};
  std::vector<uint32_t> checkers;
  for (uint32_t t : kernel.inputs) {
    if (t >= count)
      return {};
    uint32_t found = UINT32_MAX;
    for (size_t k = check + 1; k < plan.kernels.size() && found == UINT32_MAX;
         ++k) {
      const KernelDesc &update = plan.kernels[k];
      if (isOptimizerUpdate(update.opId()) && update.inputs.size() > 1 &&
          update.inputs[1] == t && update.inputs[0] < count &&
          plan.tensors[update.inputs[0]].numElements() ==
              plan.tensors[t].numElements())
        found = static_cast<uint32_t>(k);
    }
    if (found == UINT32_MAX)
      return {};
    checkers.push_back(found);
  }
  return checkers;
}

int64_t mp::rt::fusedActivationHost(const Plan &plan, size_t k) {
  size_t count = plan.tensors.size();
  const std::vector<KernelDesc> &kernels = plan.kernels;
  OpId op = kernels[k].opId();
  bool forward = op == OpId::TrainRelu;
  if (!forward && op != OpId::TrainReluGrad)
    return -1;
  if (forward ? k == 0 : k + 1 >= kernels.size())
    return -1;
  size_t host = forward ? k - 1 : k + 1;
  const KernelDesc &activation = kernels[k], &norm = kernels[host];
  if (norm.opId() !=
          (forward ? OpId::TrainBatchNorm : OpId::TrainBatchNormGrad) ||
      activation.inputs.size() != (forward ? 1u : 2u) ||
      activation.outputs.size() != 1 || norm.inputs.empty() ||
      norm.outputs.empty())
    return -1;
  // The tensor between them: the norm's y, or the relu_grad's result.
  uint32_t between = forward ? norm.outputs[0] : activation.outputs[0];
  if ((forward ? activation.inputs[0] : norm.inputs[0]) != between ||
      between >= count || plan.tensors[between].kind != TensorKind::Scratch)
    return -1;
  for (const ResultDesc &result : plan.results)
    if (result.value == between)
      return -1;
  size_t readers = 0;
  for (const KernelDesc &other : kernels)
    for (uint32_t t : other.inputs)
      readers += t == between;
  return readers == 1 ? static_cast<int64_t>(host) : -1;
}

void mp::rt::layOutPlan(Plan &plan, uint64_t alignment) {
  size_t count = plan.tensors.size();
  const std::vector<TensorDesc> &tensors = plan.tensors;
  std::vector<int> valueUses(count, 0);
  for (const ResultDesc &result : plan.results)
    if (result.value < count)
      ++valueUses[result.value];

  // Double-buffered: the value is the step's own scratch tensor, read by
  // nothing after the step, and the state is no result's value (else the
  // flip would move a buffer another result still names).
  std::vector<int64_t> newValue(count, -1);
  for (ResultDesc &result : plan.results) {
    result.flags = 0;
    if (!isStateUpdate(result) || result.value >= count ||
        result.state >= count)
      continue;
    if (tensors[result.value].kind == TensorKind::Scratch &&
        valueUses[result.value] == 1 && valueUses[result.state] == 0) {
      result.flags |= ResultDesc::kDoubleBuffered;
      newValue[result.state] = result.value;
    }
  }

  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    KernelDesc &kernel = plan.kernels[k];
    kernel.flags = 0;
    if (fusedActivationHost(plan, k) >= 0) {
      kernel.flags |= KernelDesc::kFusedActivationKernel;
      continue;
    }
    if (kernel.opId() == OpId::MpAllFinite) {
      if (!gradientCheckers(plan, k).empty())
        kernel.flags |= KernelDesc::kFusedCheckKernel;
      continue;
    }
    if (kernel.inputs.size() != 1 || kernel.outputs.size() != 1 ||
        kernel.inputs[0] >= count || kernel.outputs[0] >= count)
      continue;
    const TensorDesc &x = tensors[kernel.inputs[0]],
                     &y = tensors[kernel.outputs[0]];
    // Either way the result is a scratch tensor the step does not return:
    // a result keeps its own bytes until the step's end.
    if (y.kind != TensorKind::Scratch || valueUses[kernel.outputs[0]] != 0)
      continue;
    OpId op = kernel.opId();
    if (op == OpId::MpCast && newValue[kernel.inputs[0]] >= 0)
      kernel.flags |= KernelDesc::kHoistedCastKernel;
    else if (op == OpId::TrainReshape && x.dtype == y.dtype &&
             x.numElements() == y.numElements())
      kernel.flags |= KernelDesc::kViewKernel;
  }
  planMemory(plan, alignment);
}
