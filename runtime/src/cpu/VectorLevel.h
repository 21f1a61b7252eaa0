//===- VectorLevel.h - which vector loops the cpu backend runs --*- C++ -*-===//
//
// The instruction set of the cpu backend's own intrinsic loops
// (cpu/VectorMath.cpp, cpu/Sums.cpp): from cpuFeatureSet(), so that
// MP_MAX_CPU_ISA reaches them as it reaches oneDNN.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_VECTORLEVEL_H
#define MP_RUNTIME_CPU_VECTORLEVEL_H

#include "mp/runtime/CpuFeatures.h"

namespace mp::rt::cpu {

enum class VectorLevel { None, Avx2, Avx512 };

/// Computed once per process.
inline VectorLevel vectorLevel() {
  static const VectorLevel value = cpuFeatureSet().avx512 ? VectorLevel::Avx512
                                   : cpuFeatureSet().avx2 ? VectorLevel::Avx2
                                                          : VectorLevel::None;
  return value;
}

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_VECTORLEVEL_H
