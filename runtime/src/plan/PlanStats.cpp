//===- PlanStats.cpp - what a step's memory plan holds --------------------===//
#include "mp/runtime/Plan.h"

#include <algorithm>

using namespace mp::rt;

PlanMemoryStats mp::rt::planMemoryStats(const Plan &plan) {
  PlanMemoryStats stats;
  stats.arenaBytes = plan.arenaSize;
  for (const TensorDesc &t : plan.tensors) {
    if (t.kind == TensorKind::Param)
      stats.paramBytes += t.byteSize();
    else if (t.kind == TensorKind::OptState)
      stats.optStateBytes += t.byteSize();
    else if (t.kind == TensorKind::Buffer ||
             t.kind == TensorKind::ScalerState)
      stats.bufferBytes += t.byteSize();
  }
  size_t seed = plan.kernels.size();
  for (size_t k = 0; k < plan.kernels.size(); ++k)
    if (plan.kernels[k].opId() == OpId::TrainGradSeed) {
      seed = k;
      break;
    }
  if (seed == plan.kernels.size())
    return stats;
  size_t numTensors = plan.tensors.size();
  // Which tensors depend on the data (inputs and labels), and which are
  // read at or after the seed (the step's results count as read there).
  std::vector<bool> fromData(numTensors, false), readLater(numTensors, false);
  for (size_t t = 0; t < numTensors; ++t)
    fromData[t] = plan.tensors[t].kind == TensorKind::Input ||
                  plan.tensors[t].kind == TensorKind::Label;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const KernelDesc &kernel = plan.kernels[k];
    bool data = std::any_of(
        kernel.inputs.begin(), kernel.inputs.end(),
        [&](uint32_t t) { return t < numTensors && fromData[t]; });
    for (uint32_t t : kernel.outputs)
      if (t < numTensors && data)
        fromData[t] = true;
    if (k >= seed)
      for (uint32_t t : kernel.inputs)
        if (t < numTensors)
          readLater[t] = true;
  }
  for (const ResultDesc &result : plan.results)
    if (result.value < numTensors)
      readLater[result.value] = true;
  // Saved: written before the seed, read at or after it.
  std::vector<bool> writtenBefore(numTensors, false);
  for (size_t k = 0; k < seed; ++k)
    for (uint32_t t : plan.kernels[k].outputs)
      if (t < numTensors)
        writtenBefore[t] = true;
  // A reshape view shares its input's bytes: counted once, as the input,
  // which is saved when either is read later.
  // Backwards, so that a chain of views reaches its first buffer.
  std::vector<bool> isView(numTensors, false);
  for (size_t k = plan.kernels.size(); k-- > 0;) {
    const KernelDesc &kernel = plan.kernels[k];
    if (!kernel.isView() || kernel.inputs.size() != 1 ||
        kernel.outputs.size() != 1 || kernel.inputs[0] >= numTensors ||
        kernel.outputs[0] >= numTensors)
      continue;
    isView[kernel.outputs[0]] = true;
    readLater[kernel.inputs[0]] =
        readLater[kernel.inputs[0]] || readLater[kernel.outputs[0]];
  }
  for (size_t t = 0; t < numTensors; ++t)
    if (plan.tensors[t].kind == TensorKind::Scratch && writtenBefore[t] &&
        fromData[t] && readLater[t] && !isView[t])
      stats.savedActivationBytes += plan.tensors[t].byteSize();
  return stats;
}
