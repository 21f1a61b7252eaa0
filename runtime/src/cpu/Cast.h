//===- Cast.h - mp.cast between f32 and bf16, vectorizable ------*- C++ -*-===//
#ifndef MP_RUNTIME_CPU_CAST_H
#define MP_RUNTIME_CPU_CAST_H

#include "mp/runtime/Tensor.h"

namespace mp::rt::cpu {

/// mp.cast for the conversions mixed-precision steps are full of (f32 <->
/// bf16 in branch-free loops the compiler vectorizes, f32 <-> f16 with the
/// F16C instructions where the CPU has them), bitwise equal to the reference
/// kernel (one round to nearest even, NaN kept and made quiet, subnormals
/// kept). False, with nothing written, for other conversions (bf16 <-> f16,
/// same-dtype copies): the reference kernel runs those.
bool castFast(const TensorView &input, const TensorView &output);

/// `n` elements of a float dtype (f32/bf16/f16) to f32 and back, on the
/// calling thread, bitwise equal to the scalar conversions of Tensor.h.
void toFloats(DType dtype, const void *in, float *out, int64_t n);
void fromFloats(const float *in, DType dtype, void *out, int64_t n);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_CAST_H
