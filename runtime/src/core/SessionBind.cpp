//===- SessionBind.cpp - Inputs read from the caller's memory -------------===//
//
// Session::bindTensor: a step's input or label read where the caller keeps
// it (a numpy array, a torch tensor), without the copy setTensor makes.
// The kernels and generated regions get their operands' pointers at
// session creation (kernelInputs_, regionOperands_); a binding points the
// ones that read the tensor's memory, views of it included (a reshape laid
// out as a view), at the caller's memory for one step, and puts them back
// after it.
//
//===----------------------------------------------------------------------===//

#include "mp/runtime/Session.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

using namespace mp::rt;

bool Session::collectBindUses(uint32_t tensor, std::vector<BindUse> &uses) {
  uint8_t *begin = views_[0][tensor].as<uint8_t>();
  uint8_t *end = begin + plan_.tensors[tensor].byteSize();
  auto inside = [&](const void *p) {
    auto *byte = static_cast<const uint8_t *>(p);
    return byte >= begin && byte < end;
  };
  for (int parity : {0, 1}) {
    if (views_[parity][tensor].data != begin)
      return false; // a double-buffered input: never laid out so
    for (size_t k = 0; k < plan_.kernels.size(); ++k) {
      // A kernel laid out as a view of its input writes nothing (its
      // output is the input's memory); a fused ReLU is written by its
      // batch norm.
      bool writes = !skipped_[k] || runsWithHost_[k];
      for (TensorView &view : kernelOutputs_[parity][k])
        if (writes && inside(view.data))
          return false; // the step writes into it
      for (TensorView &view : kernelInputs_[parity][k])
        if (inside(view.data))
          uses.push_back({&view.data, view.as<uint8_t>()});
    }
    for (size_t r = 0; r < regionOperands_[parity].size(); ++r)
      for (void *&operand : regionOperands_[parity][r])
        if (inside(operand))
          uses.push_back({&operand, static_cast<uint8_t *>(operand)});
  }
  // A region's operands are its kernels' inputs and outputs: one that
  // writes into the tensor is a kernel output, refused above.
  return true;
}

Status Session::bindTensor(const std::string &name, DType dtype,
                           const int64_t *shape, size_t rank, const void *data,
                           size_t bytes) {
  const TensorInfo *info = findTensor(name);
  if (!info)
    return notFound("the plan has no tensor named '" + name + "'");
  if (info->kind != TensorKind::Input && info->kind != TensorKind::Label)
    return invalidArgument("'" + name + "' is a " + tensorKindName(info->kind) +
                           ": only inputs and labels are bound (set it)");
  if (device_)
    return unimplemented("the " + std::string(backend_->name()) +
                         " backend keeps tensors in device memory: set '" +
                         name + "' (a copy) instead");
  if (bytes && reinterpret_cast<uintptr_t>(data) % dtypeSize(dtype) != 0)
    return unimplemented("'" + name + "': memory not aligned to its " +
                         std::to_string(dtypeSize(dtype)) +
                         "-byte elements: set it (a copy) instead");
  // The checks of setTensor (dtype, shape, size), without its copy: it
  // copies nothing when given no bytes, so it is asked with none first.
  std::vector<int64_t> given(shape, shape + rank);
  if (dtype != info->dtype || given != info->shape || bytes != info->byteSize)
    return setTensor(name, dtype, shape, rank, data, bytes);
  auto found = bindUses_.find(info->tensor);
  if (found == bindUses_.end()) {
    std::vector<BindUse> uses;
    bool bindable = collectBindUses(info->tensor, uses);
    if (!bindable)
      uses.clear();
    found = bindUses_.emplace(info->tensor, std::move(uses)).first;
    if (!bindable)
      found->second.push_back({nullptr, nullptr}); // marks "not bindable"
  }
  const std::vector<BindUse> &uses = found->second;
  if (!uses.empty() && uses.back().pointer == nullptr)
    return unimplemented("the step writes into '" + name +
                         "''s memory: set it (a copy) instead");
  const uint8_t *base = views_[0][info->tensor].as<uint8_t>();
  const auto *from = static_cast<const uint8_t *>(data);
  for (const BindUse &use : uses)
    *use.pointer = const_cast<uint8_t *>(from + (use.own - base));
  for (auto &bound : bound_)
    if (bound.first == info->tensor) {
      bound.second = from;
      return Status::ok();
    }
  bound_.emplace_back(info->tensor, from);
  for (size_t i = 0; i < unbound_.size(); ++i)
    if (unbound_[i] == info->tensor) {
      unbound_.erase(unbound_.begin() + i);
      break;
    }
  return Status::ok();
}

void Session::unbind(uint32_t tensor) {
  for (size_t i = 0; i < bound_.size(); ++i)
    if (bound_[i].first == tensor) {
      for (const BindUse &use : bindUses_[tensor])
        *use.pointer = use.own;
      bound_.erase(bound_.begin() + i);
      return;
    }
}

void Session::releaseBindings(bool stepFailed) {
  for (const auto &[tensor, from] : bound_) {
    for (const BindUse &use : bindUses_[tensor])
      *use.pointer = use.own;
    if (stepFailed) {
      // The replay of a failed step, and a retry, read the batch it had.
      std::memcpy(views_[0][tensor].data, from,
                  plan_.tensors[tensor].byteSize());
    } else {
      unbound_.push_back(tensor);
      if (std::find(released_.begin(), released_.end(), tensor) ==
          released_.end())
        released_.push_back(tensor);
    }
  }
  bound_.clear();
}
