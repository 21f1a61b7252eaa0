//===- Sizes.h - overflow-checked tensor sizes ------------------*- C++ -*-===//
//
// Shapes come from files (plans, checkpoints) that may be hostile: sizes
// are computed with overflow checks and capped, so that offset + size
// arithmetic after them cannot wrap.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_PLAN_SIZES_H
#define MP_RUNTIME_PLAN_SIZES_H

#include "mp/runtime/Plan.h"

#include <optional>

namespace mp::rt {

/// No tensor is larger than 2^56 bytes (64 PiB): far above any real one,
/// and small enough that adding two sizes or offsets never overflows.
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 56;

/// The byte size of a `dtype` tensor of `shape`, or none when a dimension
/// is negative, the dtype unknown or the size above kMaxTensorBytes.
std::optional<uint64_t> checkedByteSize(const std::vector<int64_t> &shape,
                                        DType dtype);

} // namespace mp::rt

#endif // MP_RUNTIME_PLAN_SIZES_H
