//===- ElementRules.h - per-element rules shared by the backends -*- C++ -*-===//
//
// What the reference kernels and the cpu backend's loops share beyond the
// per-element rules of common/ElementMath.h (which the CUDA kernels share
// too): rounding a double constant once, and reading the optimizers'
// hyper-parameters from a kernel's attributes.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_REFERENCE_ELEMENTRULES_H
#define MP_RUNTIME_REFERENCE_ELEMENTRULES_H

#include "common/ElementMath.h"
#include "common/StepRules.h"
#include "mp/runtime/Plan.h"
#include "mp/runtime/Status.h"
#include "mp/runtime/Tensor.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mp::rt::ref {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// Rounds a double to f32 with round-to-odd. f32 has more than two bits
/// beyond bf16's and f16's precision, so rounding this result to nearest
/// even again gives the correctly rounded 16-bit value: no double rounding
/// (train.fill's value into a 16-bit tensor).
inline float roundToOdd(double value) {
  float f = static_cast<float>(value);
  if (!std::isfinite(f) || static_cast<double>(f) == value)
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 1) == 0) {
    // f is even and inexact: step one ulp towards `value`, to the odd
    // neighbour (towards zero when f overshot in magnitude).
    bool overshot = std::fabs(static_cast<double>(f)) > std::fabs(value);
    bits = overshot ? bits - 1 : bits + 1;
    std::memcpy(&f, &bits, sizeof(f));
  }
  return f;
}

//===----------------------------------------------------------------------===//
// Optimizer hyper-parameters (the rules are in common/ElementMath.h)
//===----------------------------------------------------------------------===//

/// Reads and checks the attributes of train.sgd (`withMomentum` false) or
/// train.sgd_momentum, and the learning-rate operand among `in` if any.
Status getSgdRule(const KernelDesc &k, const std::vector<TensorView> &in,
                  bool withMomentum, SgdRule &rule);

/// Reads and checks the attributes of train.adam / train.adamw
/// (`decoupled`), the learning-rate operand among `in` if any and the step
/// t (>= 1) from the scalar tensor `step`.
Status getAdamRule(const KernelDesc &k, const std::vector<TensorView> &in,
                   bool decoupled, double step, AdamRule &rule);

/// Reads and checks the attributes of train.lr_schedule (common/StepRules.h;
/// the shapes as their enum case indices).
Status getSchedule(const KernelDesc &k, Schedule &s);

/// Reads and checks train.dropout's mask_shape against x: `broadcast` is
/// false when it is absent or x's own shape (the mask is x's), else
/// `index` maps x's elements to the mask's (common/StepRules.h).
Status getMaskIndex(const KernelDesc &k, const TensorView &x, bool &broadcast,
                    MaskIndex &index);

} // namespace mp::rt::ref

#endif // MP_RUNTIME_REFERENCE_ELEMENTRULES_H
