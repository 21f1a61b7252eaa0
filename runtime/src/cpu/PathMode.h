//===- PathMode.h - asking a fast path whether it takes a kernel *- C++ -*-===//
//
// The cpu backend picks what runs each kernel once, in prepare(), from the
// dtypes and shapes of the plan (Backend.h). Each of its own loops decides
// whether it takes a kernel with the checks it runs anyway; called with
// PathMode::Check it stops at the point of taking it (before touching any
// element, so views without data are enough) and reports that it would.
// The decision and the run share one set of conditions, and the mode is an
// argument, not state: nothing but the call says which it is.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_PATHMODE_H
#define MP_RUNTIME_CPU_PATHMODE_H

#include <cstdint>

namespace mp::rt::cpu {

/// Check: whether the path takes the kernel (nothing read or written);
/// Run: run it where it takes it.
enum class PathMode : uint8_t { Check, Run };

/// A non-null address for the data of views asked with PathMode::Check:
/// never read or written (the checks of "data present" pass; a checked path
/// stops before any access).
void *placeholderData();

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_PATHMODE_H
