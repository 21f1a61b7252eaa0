//===- Plan.cpp - dtypes, tensor kinds and sizes --------------------------===//
//
// The small helpers of the plan's data model. Validation, the file format
// and the kernel attribute getters live in their own files.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Plan.h"
#include "mp/runtime/Vocabulary.h"
#include "plan/Sizes.h"

using namespace mp::rt;

size_t mp::rt::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::I1:
    return 1;
  case DType::I64:
    return 8;
  }
  return 0; // not a dtype: validate() and the parser reject it
}

const char *mp::rt::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::I1:
    return "i1";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "<unknown dtype>";
}

bool mp::rt::isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
}

std::string mp::rt::formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

const char *mp::rt::tensorKindName(TensorKind kind) {
  switch (kind) {
  case TensorKind::Scratch:
    return "scratch";
  case TensorKind::Param:
    return vocab::stringify(vocab::Role::Param);
  case TensorKind::OptState:
    return vocab::stringify(vocab::Role::OptState);
  case TensorKind::Buffer:
    return vocab::stringify(vocab::Role::Buffer);
  case TensorKind::ScalerState:
    return vocab::stringify(vocab::Role::ScalerState);
  case TensorKind::Input:
    return vocab::stringify(vocab::Role::Input);
  case TensorKind::Label:
    return vocab::stringify(vocab::Role::Label);
  case TensorKind::Constant:
    return "constant";
  }
  return "<unknown kind>";
}

const char *mp::rt::resultRoleName(ResultRole role) {
  switch (role) {
  case ResultRole::Loss:
    return vocab::stringify(vocab::Role::Loss);
  case ResultRole::Param:
    return vocab::stringify(vocab::Role::Param);
  case ResultRole::OptState:
    return vocab::stringify(vocab::Role::OptState);
  case ResultRole::Buffer:
    return vocab::stringify(vocab::Role::Buffer);
  case ResultRole::ScalerState:
    return vocab::stringify(vocab::Role::ScalerState);
  case ResultRole::Output:
    return vocab::stringify(vocab::Role::Output);
  case ResultRole::Check:
    return vocab::stringify(vocab::Role::Check);
  }
  return "<unknown role>";
}

bool mp::rt::isPersistent(TensorKind kind) {
  return kind == TensorKind::Param || kind == TensorKind::OptState ||
         kind == TensorKind::Buffer || kind == TensorKind::ScalerState;
}

/// -1 for a negative dimension or a product that overflows int64, so that
/// a hostile shape can be detected (validate() rejects both) instead of
/// wrapping around.
int64_t TensorDesc::numElements() const {
  // The product of the nonzero dimensions must fit too: kernels multiply
  // subsets of the dimensions (a row's size, a plane's), and a zero-sized
  // tensor of [0, 2^40, 2^40, 2^40] would overflow those.
  int64_t count = 1, nonzero = 1;
  for (int64_t dim : shape) {
    if (dim < 0 || (dim != 0 && __builtin_mul_overflow(nonzero, dim, &nonzero)))
      return -1;
    count = dim == 0 ? 0 : count;
  }
  return count == 0 ? 0 : nonzero;
}

std::optional<uint64_t>
mp::rt::checkedByteSize(const std::vector<int64_t> &shape, DType dtype) {
  TensorDesc desc;
  desc.shape = shape;
  int64_t count = desc.numElements();
  uint64_t size = dtypeSize(dtype);
  if (count < 0 || size == 0 ||
      static_cast<uint64_t>(count) > kMaxTensorBytes / size)
    return std::nullopt;
  return static_cast<uint64_t>(count) * size;
}

bool mp::rt::isDropoutKey(const Plan &plan, uint32_t id) {
  if (!isFrozenBuffer(plan, id) || !plan.tensors[id].shape.empty() ||
      (plan.tensors[id].dtype != DType::I64 &&
       plan.tensors[id].dtype != DType::I32))
    return false;
  for (const KernelDesc &kernel : plan.kernels)
    if ((kernel.opId() == OpId::TrainDropout ||
         kernel.opId() == OpId::TrainDropoutGrad) &&
        kernel.inputs.size() > 1 && kernel.inputs[1] == id)
      return true;
  return false;
}

bool mp::rt::isFrozenBuffer(const Plan &plan, uint32_t id) {
  if (id >= plan.tensors.size() || plan.tensors[id].kind != TensorKind::Buffer)
    return false;
  for (const ResultDesc &result : plan.results)
    if (result.role == ResultRole::Buffer && result.state == id)
      return false;
  return true;
}
