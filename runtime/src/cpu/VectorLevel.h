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

/// fn() compiled for AVX-512 (16 f32 lanes), AVX2 (8) and the baseline,
/// everything it calls that the compiler can see inlined into each copy
/// (flatten), run on the copy vectorLevel() picks: how the own loops get
/// the CPU's vector width while the runtime is built for the baseline.
/// Results must not depend on the width: loops whose iterations are
/// independent IEEE operations, in files compiled with -ffp-contract=off
/// (no variant fuses a multiply-add; the AVX2 copy does not enable FMA),
/// and no reduction the compiler may reorder (it does not reassociate
/// floating-point sums without -ffast-math).
template <typename Fn>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), flatten)) void
runAvx512(const Fn &fn) {
  fn();
}
template <typename Fn>
__attribute__((target("avx2"), flatten)) void runAvx2(const Fn &fn) {
  fn();
}
template <typename Fn> __attribute__((flatten)) void runBaseline(const Fn &fn) {
  fn();
}
template <typename Fn> void runVectorized(const Fn &fn) {
  switch (vectorLevel()) {
  case VectorLevel::Avx512:
    return runAvx512(fn);
  case VectorLevel::Avx2:
    return runAvx2(fn);
  default:
    return runBaseline(fn);
  }
}

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_VECTORLEVEL_H
