//===- Cast.h - mp.cast between f32 and bf16, vectorizable ------*- C++ -*-===//
#ifndef MP_RUNTIME_CPU_CAST_H
#define MP_RUNTIME_CPU_CAST_H

#include "mp/runtime/Tensor.h"

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// mp.cast for the conversions mixed-precision steps are full of (f32 <->
/// bf16 / f16, vectorized: toFloats / fromFloats of Tensor.h, on the
/// backend's threads), bitwise equal to the reference kernel (one round to
/// nearest even, NaN kept and made quiet, subnormals kept). False, with
/// nothing written, for other conversions (bf16 <-> f16, same-dtype
/// copies): the reference kernel runs those.
bool castFast(PathMode mode, const TensorView &input, const TensorView &output);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_CAST_H
