//===- LossScaling.h - the loss scaler's elementwise ops --------*- C++ -*-===//
//
// The cpu backend's own loops for mp.scale, mp.unscale_and_check and
// mp.all_finite, with the reference's rules (bitwise its results). Each
// returns false, touching nothing, for views it does not take.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_LOSSSCALING_H
#define MP_RUNTIME_CPU_LOSSSCALING_H

#include "mp/runtime/Tensor.h"

#include <vector>

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// mp.scale: value * scale (an f32 scalar), one dtype in and out.
bool runScale(PathMode mode, const std::vector<TensorView> &in,
              const std::vector<TensorView> &out);

/// mp.unscale_and_check [scale, g...] -> [u..., all_finite] (`unscale`), or
/// mp.all_finite [v...] -> [i1].
bool runUnscaleAndCheck(PathMode mode, const std::vector<TensorView> &in,
                        const std::vector<TensorView> &out, bool unscale);

/// Whether every element of float tensor `v` is finite (read in place,
/// 16-bit ones too; threaded).
bool allFinite(const TensorView &v);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_LOSSSCALING_H
