//===- ElementAccess.h - f32 / bf16 elements in own loops -*- C++ -*-===//
//
// The own loops that read bf16 tensors in place widen each element where
// they use it, so that the loop vectorizes without chunk buffers: `F32Elems`
// and `Bf16Elems` say how to load (and store) element i. bf16 stores round
// as fromFloats does (core/FloatConvert.cpp: to nearest even, NaN quiet);
// loads are the bare widening: toFloats also quiets a signalling NaN, which
// the loops using these put through arithmetic that quiets it anyway (to
// the same NaN), so results are the same bits as the buffered loops'.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_ELEMENTACCESS_H
#define MP_RUNTIME_CPU_ELEMENTACCESS_H

#include "mp/runtime/Tensor.h"

#include <cstdint>
#include <cstring>

namespace mp::rt::cpu {

struct F32Elems {
  using T = float;
  static inline __attribute__((always_inline)) float load(const float *p,
                                                          int64_t i) {
    return p[i];
  }
  static inline __attribute__((always_inline)) void store(float *p, int64_t i,
                                                          float v) {
    p[i] = v;
  }
};

struct Bf16Elems {
  using T = uint16_t;
  static inline __attribute__((always_inline)) float load(const uint16_t *p,
                                                          int64_t i) {
    uint32_t wide = static_cast<uint32_t>(p[i]) << 16;
    float v;
    std::memcpy(&v, &wide, sizeof v);
    return v;
  }
  static inline __attribute__((always_inline)) void store(uint16_t *p,
                                                          int64_t i, float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    uint32_t quietNan = (bits >> 16) | 0x40u;
    p[i] = static_cast<uint16_t>(
        (bits & 0x7fffffffu) > 0x7f800000u ? quietNan : rounded);
  }
};

/// fn(Bf16Elems()) for a bf16 `dtype`, else fn(F32Elems()): the in-place
/// loops' two instantiations, chosen once per kernel.
template <typename Fn> void withElems(DType dtype, const Fn &fn) {
  if (dtype == DType::BF16)
    fn(Bf16Elems());
  else
    fn(F32Elems());
}

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_ELEMENTACCESS_H
