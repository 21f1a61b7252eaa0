//===- KernelSupport.cpp - checks and f32 buffers for kernels -------------===//
#include "reference/KernelSupport.h"

#include <algorithm>

using namespace mp::rt;
using namespace mp::rt::ref;

Status ref::kernelError(const KernelDesc &kernel, const std::string &message) {
  return invalidArgument(kernel.op + ": " + message);
}

Status ref::checkArity(const KernelDesc &kernel, const Views &inputs,
                       const Views &outputs, size_t numInputs,
                       size_t numOutputs) {
  if (inputs.size() == numInputs && outputs.size() == numOutputs)
    return Status::ok();
  return kernelError(kernel, "expects " + std::to_string(numInputs) +
                                 " operands and " + std::to_string(numOutputs) +
                                 " results but got " +
                                 std::to_string(inputs.size()) + " and " +
                                 std::to_string(outputs.size()));
}

/// Unsupported dtypes are Unimplemented: the plan is well formed, this
/// backend just does not run it.
static Status dtypeError(const KernelDesc &kernel, const char *what,
                         const std::string &expected, DType actual) {
  return unimplemented(kernel.op + ": expects " + what + " of dtype " +
                       expected + " but got " + dtypeName(actual));
}

Status ref::checkFloat(const KernelDesc &kernel, const TensorView &v,
                       const char *what) {
  if (isFloat(v.dtype))
    return Status::ok();
  return dtypeError(kernel, what, "f32, bf16 or f16", v.dtype);
}

Status ref::checkDType(const KernelDesc &kernel, const TensorView &v,
                       DType dtype, const char *what) {
  if (v.dtype == dtype)
    return Status::ok();
  return dtypeError(kernel, what, dtypeName(dtype), v.dtype);
}

Status ref::checkIndex(const KernelDesc &kernel, const TensorView &v,
                       const char *what) {
  if (v.dtype == DType::I32 || v.dtype == DType::I64)
    return Status::ok();
  return dtypeError(kernel, what, "i32 or i64", v.dtype);
}

Status ref::checkShape(const KernelDesc &kernel, const TensorView &v,
                       const Shape &expected, const char *what) {
  if (v.shape == expected)
    return Status::ok();
  return kernelError(kernel, std::string("expects ") + what + " of shape " +
                                 formatShape(expected) + " but got " +
                                 formatShape(v.shape));
}

Status ref::checkRank(const KernelDesc &kernel, const TensorView &v,
                      size_t rank, const char *what) {
  if (v.shape.size() == rank)
    return Status::ok();
  return kernelError(kernel, std::string("expects ") + what + " of rank " +
                                 std::to_string(rank) + " but got shape " +
                                 formatShape(v.shape));
}

Status ref::checkSameType(const KernelDesc &kernel, const TensorView &a,
                          const char *whatA, const TensorView &b,
                          const char *whatB) {
  if (a.dtype != b.dtype)
    return unimplemented(kernel.op + ": expects " + whatA + " and " + whatB +
                         " of the same dtype but got " + dtypeName(a.dtype) +
                         " and " + dtypeName(b.dtype));
  return checkShape(kernel, b, a.shape, whatB);
}

Status ref::checkAccumulator(const KernelDesc &kernel, const TensorView &in,
                             const TensorView &out) {
  if (out.dtype == in.dtype || out.dtype == DType::F32)
    return Status::ok();
  return unimplemented(kernel.op + ": expects a result of dtype " +
                       dtypeName(in.dtype) + " or f32 (never narrower than " +
                       "the input) but got " + dtypeName(out.dtype));
}

Status ref::resolveDim(const KernelDesc &kernel, int64_t dim, int64_t rank,
                       const char *what, int64_t &resolved) {
  resolved = dim < 0 ? dim + rank : dim;
  if (resolved >= 0 && resolved < rank)
    return Status::ok();
  return kernelError(kernel, std::string(what) + " " + std::to_string(dim) +
                                 " is out of range for rank " +
                                 std::to_string(rank));
}

Status ref::getArray(const KernelDesc &kernel, AttrName name, size_t size,
                     Shape &values) {
  const Shape *attr = kernel.getInts(name);
  if (!attr)
    return kernelError(kernel, std::string("needs the integer array "
                                           "attribute '") +
                                   attrName(name) + "'");
  if (size && attr->size() != size)
    return kernelError(kernel, std::string("expects '") + attrName(name) +
                                   "' with " +
                                   std::to_string(size) + " entries but got " +
                                   std::to_string(attr->size()));
  values = *attr;
  return Status::ok();
}

int64_t ref::product(const Shape &shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i)
    n *= shape[i];
  return n;
}

Shape ref::stridesOf(const Shape &shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

namespace {
/// This thread's buffers, in use up to `depth`.
struct ScratchPool {
  std::vector<std::vector<float>> buffers;
  size_t depth = 0;
};
thread_local ScratchPool scratchPool;
} // namespace

ScratchFloats::ScratchFloats(int64_t n) {
  ScratchPool &pool = scratchPool;
  if (pool.depth == pool.buffers.size())
    pool.buffers.emplace_back();
  std::vector<float> &buffer = pool.buffers[pool.depth++];
  if (buffer.size() < static_cast<size_t>(n))
    buffer.resize(static_cast<size_t>(n));
  data_ = buffer.data();
}

ScratchFloats::~ScratchFloats() { --scratchPool.depth; }

FloatIn::FloatIn(const TensorView &view) {
  if (view.dtype == DType::F32) {
    data_ = view.as<const float>();
    return;
  }
  copy_.emplace(view.numElements());
  loadFloats(view, copy_->data());
  data_ = copy_->data();
}

FloatOut::FloatOut(const TensorView &view, bool zeroed) : view_(view) {
  int64_t n = view.numElements();
  if (view.dtype == DType::F32) {
    data_ = view.as<float>();
    if (zeroed)
      std::fill(data_, data_ + n, 0.0f);
    return;
  }
  copy_.emplace(n);
  data_ = copy_->data();
  // Kernels may leave elements unwritten (they start at 0 either way).
  std::fill(data_, data_ + n, 0.0f);
}

void FloatOut::finish() {
  if (view_.dtype == DType::F32)
    return;
  storeFloats(view_, copy_->data());
}
