//===- FusedRegions.cpp - which runs of kernels generated code takes -----===//
//
// A fused region is a run of consecutive kernels of the laid-out plan, each
// computing its outputs element by element from elements at the same
// position (or, for bias_add, from the bias at the element's column), over
// one iteration space: every full-size tensor of the run has the same
// element count. The run's inputs are what it reads from before it, its
// outputs what it writes that is read after it (or returned); what it
// makes and consumes itself never reaches memory. Kernels the layout runs
// on its own (views, hoisted casts) end a run. A row kernel (layer_norm,
// rms_norm, softmax and log_softmax along the last axis and their
// gradients) is a region of its own, over its rows.
//
//===----------------------------------------------------------------------===//
#include "mp/Target/Cpu/FusedCode.h"

#include <algorithm>

using namespace mp;
using rt::OpId;

/// The most operands one generated function takes: past it a run ends.
static constexpr size_t kMaxOperands = 24;

/// The product of shape[from, to).
static int64_t dimsProduct(const std::vector<int64_t> &shape, int64_t from,
                           int64_t to) {
  int64_t p = 1;
  for (int64_t d = from; d < to; ++d)
    p *= shape[d];
  return p;
}

/// How a region reads a train.broadcast's operand, and the row length it
/// needs of the region (1: any): a scalar; the trailing dimensions of the
/// result copied (Column, the row those dimensions make); the leading ones
/// (Row, the rest of the result a row); the whole result (Full, the
/// identity). False for any other broadcast (a middle run of dimensions:
/// batch norm's statistics over N, H, W of NCHW).
static bool classifyBroadcast(const rt::Plan &plan,
                              const rt::KernelDesc &kernel, OperandKind &kind,
                              int64_t &rowLength) {
  if (kernel.inputs.size() != 1 || kernel.outputs.size() != 1)
    return false;
  const rt::TensorDesc &source = plan.tensors[kernel.inputs[0]];
  const std::vector<int64_t> &result = plan.tensors[kernel.outputs[0]].shape;
  const std::vector<int64_t> *dims = kernel.getInts(rt::AttrName::dims);
  int64_t rank = static_cast<int64_t>(result.size());
  if (!dims || dims->size() != source.shape.size() ||
      source.dtype != plan.tensors[kernel.outputs[0]].dtype)
    return false;
  rowLength = 1;
  if (source.numElements() == 1) {
    kind = OperandKind::Scalar;
    return true;
  }
  // The result dimensions the source copies (its others have size 1).
  std::vector<int64_t> copied;
  for (size_t i = 0; i < dims->size(); ++i) {
    int64_t d = (*dims)[i];
    if (d < 0 || d >= rank || (!copied.empty() && d <= copied.back()))
      return false;
    if (source.shape[i] == result[d])
      copied.push_back(d);
    else if (source.shape[i] != 1)
      return false;
  }
  int64_t n = static_cast<int64_t>(copied.size());
  if (n == 0)
    return false;
  bool leading = copied.front() == 0 && copied.back() == n - 1;
  bool trailing = copied.back() == rank - 1 && copied.front() == rank - n;
  if (leading && trailing) {
    kind = OperandKind::Full;
    return true;
  }
  if (trailing) {
    kind = OperandKind::Column;
    rowLength = dimsProduct(result, rank - n, rank);
    return true;
  }
  if (leading) {
    kind = OperandKind::Row;
    rowLength = dimsProduct(result, n, rank);
    return true;
  }
  return false;
}

bool mp::isFusibleKernel(const rt::Plan &plan, size_t k, int64_t &rowLength) {
  const rt::KernelDesc &kernel = plan.kernels[k];
  if (kernel.flags != 0 || kernel.outputs.size() != 1)
    return false;
  // Float operands, but select's condition (i1, one byte per element).
  for (size_t i = 0; i < kernel.inputs.size(); ++i)
    if (!rt::isFloat(plan.tensors[kernel.inputs[i]].dtype) &&
        !(kernel.opId() == OpId::TrainSelect && i == 0 &&
          plan.tensors[kernel.inputs[i]].dtype == rt::DType::I1))
      return false;
  const rt::TensorDesc &result = plan.tensors[kernel.outputs[0]];
  if (!rt::isFloat(result.dtype) || result.numElements() <= 0)
    return false;
  rowLength = 1;
  size_t arity = 0;
  switch (kernel.opId()) {
  case OpId::TrainSelect:
    if (kernel.inputs.size() != 3 ||
        plan.tensors[kernel.inputs[0]].dtype != rt::DType::I1)
      return false;
    arity = 3;
    break;
  case OpId::TrainFill:
    arity = 0;
    break;
  case OpId::MpCast:
  case OpId::TrainNeg:
  case OpId::TrainAbs:
  case OpId::TrainExp:
  case OpId::TrainLog:
  case OpId::TrainSqrt:
  case OpId::TrainRsqrt:
  case OpId::TrainTanh:
  case OpId::TrainSigmoid:
  case OpId::TrainRelu:
  case OpId::TrainSilu:
  case OpId::TrainLeakyRelu:
    arity = 1;
    break;
  case OpId::TrainErf:
  case OpId::TrainGelu:
  case OpId::TrainGeluGrad:
    // erf on MLIR's approximation measured slower than the cpu backend's
    // libmvec loop (gelu over [16, 128, 2048] bf16: 4.1 against 2.7 ms,
    // docs/codegen.md): the exact GELU stays a kernel of its own.
    if (kernel.opId() == OpId::TrainErf ||
        !kernel.getFlag(rt::AttrName::tanh_approx))
      return false;
    arity = kernel.opId() == OpId::TrainGeluGrad ? 2 : 1;
    break;
  case OpId::TrainAdd:
  case OpId::TrainSub:
  case OpId::TrainMul:
  case OpId::TrainDiv:
  case OpId::TrainMaximum:
  case OpId::TrainMinimum:
  case OpId::TrainReluGrad:
  case OpId::TrainTanhGrad:
  case OpId::TrainSigmoidGrad:
  case OpId::TrainSiluGrad:
  case OpId::TrainLeakyReluGrad:
    arity = 2;
    break;
  case OpId::TrainBroadcast: {
    OperandKind kind;
    return classifyBroadcast(plan, kernel, kind, rowLength);
  }
  case OpId::TrainBiasAdd: {
    if (kernel.inputs.size() != 2)
      return false;
    const std::vector<int64_t> &shape = plan.tensors[kernel.inputs[0]].shape;
    int64_t rank = static_cast<int64_t>(shape.size());
    int64_t dim = kernel.getInt(rt::AttrName::dim, -1);
    if (rank == 0 || (dim != -1 && dim != rank - 1))
      return false;
    rowLength = shape.back();
    if (plan.tensors[kernel.inputs[1]].numElements() != rowLength ||
        rowLength <= 0)
      return false;
    arity = 2;
    break;
  }
  default:
    return false;
  }
  if (kernel.inputs.size() != arity)
    return false;
  // Every operand but a bias is the result's size.
  for (size_t i = 0; i < arity; ++i)
    if (!(kernel.opId() == OpId::TrainBiasAdd && i == 1) &&
        plan.tensors[kernel.inputs[i]].numElements() != result.numElements())
      return false;
  return true;
}

bool mp::isRowKernel(const rt::Plan &plan, size_t k, int64_t &rows,
                     int64_t &length) {
  const rt::KernelDesc &kernel = plan.kernels[k];
  if (kernel.flags != 0 || kernel.inputs.empty())
    return false;
  for (uint32_t id : kernel.inputs)
    if (!rt::isFloat(plan.tensors[id].dtype))
      return false;
  for (uint32_t id : kernel.outputs)
    if (!rt::isFloat(plan.tensors[id].dtype))
      return false;
  // The same tensor twice: operands are positional and distinct.
  std::vector<uint32_t> ids = kernel.inputs;
  ids.insert(ids.end(), kernel.outputs.begin(), kernel.outputs.end());
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
    return false;
  const std::vector<int64_t> &shape = plan.tensors[kernel.inputs[0]].shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t axis = kernel.getInt(rt::AttrName::axis, -1);
  if (axis < 0)
    axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank)
    return false;
  switch (kernel.opId()) {
  case OpId::TrainLayerNorm:
  case OpId::TrainRmsNorm:
    // Rows of shape[axis:] elements.
    rows = dimsProduct(shape, 0, axis);
    length = dimsProduct(shape, axis, rank);
    return kernel.outputs.size() ==
           (kernel.opId() == OpId::TrainLayerNorm ? 3u : 2u);
  case OpId::TrainSoftmax:
  case OpId::TrainLogSoftmax:
  case OpId::TrainSoftmaxGrad:
  case OpId::TrainLogSoftmaxGrad:
    // Along the last axis only: a row is contiguous.
    if (axis != rank - 1)
      return false;
    rows = dimsProduct(shape, 0, axis);
    length = shape[axis];
    return kernel.outputs.size() == 1;
  default:
    return false;
  }
}

bool mp::fusedOperandKinds(const rt::Plan &plan, const rt::FusedRegion &region,
                           std::vector<OperandKind> &kinds) {
  kinds.assign(region.operands.size(), OperandKind::Full);
  std::vector<char> known(region.operands.size(), 0);
  for (size_t k = region.first; k < region.first + region.count; ++k) {
    const rt::KernelDesc &kernel = plan.kernels[k];
    for (size_t i = 0; i < kernel.inputs.size(); ++i) {
      auto at = std::find(region.operands.begin(),
                          region.operands.begin() + region.numInputs,
                          kernel.inputs[i]);
      if (at == region.operands.begin() + region.numInputs)
        continue; // made inside the region
      size_t o = static_cast<size_t>(at - region.operands.begin());
      OperandKind kind = OperandKind::Full;
      int64_t rowLength = 1;
      if (kernel.opId() == OpId::TrainBiasAdd && i == 1)
        kind = OperandKind::Column;
      else if (kernel.opId() == OpId::TrainBroadcast &&
               !classifyBroadcast(plan, kernel, kind, rowLength))
        return false;
      // A column or row of one element, where the region's rows are as
      // long as its space (or one element long), is one value.
      int64_t elements = plan.tensors[kernel.inputs[i]].numElements();
      if (kind != OperandKind::Full && elements == 1)
        kind = OperandKind::Scalar;
      if (known[o] && kinds[o] != kind)
        return false;
      known[o] = 1;
      kinds[o] = kind;
    }
  }
  return true;
}

namespace {
/// A run being grown: its kernels and iteration space.
struct Run {
  size_t first = 0, count = 0;
  int64_t elements = 0, rowLength = 1;
};
} // namespace

/// Operands of `run`, or false when it has too many to be worth a call.
static bool collectOperands(const rt::Plan &plan, const Run &run,
                            const std::vector<size_t> &lastRead,
                            rt::FusedRegion &region) {
  size_t end = run.first + run.count;
  std::vector<char> made(plan.tensors.size(), 0), seen(plan.tensors.size(), 0);
  std::vector<uint32_t> inputs, outputs;
  for (size_t k = run.first; k < end; ++k) {
    for (uint32_t id : plan.kernels[k].inputs)
      if (!made[id] && !seen[id]) {
        seen[id] = 1;
        inputs.push_back(id);
      }
    for (uint32_t id : plan.kernels[k].outputs) {
      made[id] = 1;
      if (lastRead[id] >= end)
        outputs.push_back(id);
    }
  }
  if (inputs.size() + outputs.size() > kMaxOperands || outputs.empty())
    return false;
  region.first = static_cast<uint32_t>(run.first);
  region.count = static_cast<uint32_t>(run.count);
  region.numInputs = static_cast<uint32_t>(inputs.size());
  region.operands = inputs;
  region.operands.insert(region.operands.end(), outputs.begin(), outputs.end());
  region.rowLength = run.rowLength;
  region.extent = run.elements / run.rowLength;
  // One tensor read two ways (a column and a row of a square space): left
  // to the kernels.
  std::vector<OperandKind> kinds;
  return fusedOperandKinds(plan, region, kinds);
}

std::vector<rt::FusedRegion> mp::findFusedRegions(const rt::Plan &plan) {
  size_t numKernels = plan.kernels.size();
  // The last kernel reading each tensor; the step's results count as read
  // after every kernel.
  std::vector<size_t> lastRead(plan.tensors.size(), 0);
  for (size_t k = 0; k < numKernels; ++k)
    for (uint32_t id : plan.kernels[k].inputs)
      lastRead[id] = std::max(lastRead[id], k);
  for (const rt::ResultDesc &result : plan.results)
    lastRead[result.value] = numKernels;

  std::vector<rt::FusedRegion> regions;
  Run run;
  auto close = [&] {
    rt::FusedRegion region;
    if (run.count >= 2 && collectOperands(plan, run, lastRead, region)) {
      region.symbol = "mp_fused_" + std::to_string(regions.size());
      regions.push_back(std::move(region));
    }
    run = Run();
  };
  for (size_t k = 0; k < numKernels; ++k) {
    int64_t rowLength = 1, rows = 0;
    if (isRowKernel(plan, k, rows, rowLength)) {
      // A row kernel is a region of its own: its operands in its order.
      close();
      if (rows <= 0 || rowLength <= 0)
        continue;
      const rt::KernelDesc &kernel = plan.kernels[k];
      rt::FusedRegion region;
      region.symbol = "mp_fused_" + std::to_string(regions.size());
      region.first = static_cast<uint32_t>(k);
      region.count = 1;
      region.operands = kernel.inputs;
      region.operands.insert(region.operands.end(), kernel.outputs.begin(),
                             kernel.outputs.end());
      region.numInputs = static_cast<uint32_t>(kernel.inputs.size());
      region.extent = rows;
      region.rowLength = rowLength;
      regions.push_back(std::move(region));
      continue;
    }
    if (!isFusibleKernel(plan, k, rowLength)) {
      close();
      continue;
    }
    int64_t elements = plan.tensors[plan.kernels[k].outputs[0]].numElements();
    bool fits = run.count > 0 && elements == run.elements &&
                (rowLength == 1 || run.rowLength == 1 ||
                 rowLength == run.rowLength) &&
                elements % std::max(rowLength, run.rowLength) == 0;
    if (!fits) {
      close();
      run.first = k;
      run.elements = elements;
    }
    ++run.count;
    run.rowLength = std::max(run.rowLength, rowLength);
  }
  close();
  return regions;
}
