//===- Optimizer.h - the optimizer updates on own loops ---------*- C++ -*-===//
//
// sgd, sgd_momentum, adam and adamw in one chunked pass over param,
// gradient and state, with the reference's update rules and
// hyper-parameters (bitwise its results).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_OPTIMIZER_H
#define MP_RUNTIME_CPU_OPTIMIZER_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <vector>

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// Runs the update (`handled` = true) when the views make one; with
/// `castOut`, also narrows output #`castOutput` (f32) into it chunk by
/// chunk: mp.cast's result fused into the update.
/// train.sgd / sgd_momentum / adam / adamw on own chunked loops; `handled`
/// false when the views are not theirs (the caller runs the kernel another
/// way). With `castOut`, output #`castOutput` (f32) is also written
/// narrowed to castOut's dtype in the same pass (the session's hoisted
/// weight cast); with `allFinite`, *allFinite becomes 0 when the gradient
/// (input #1) holds an inf or NaN (a fused mp.all_finite).
Status runOptimizer(PathMode mode, const KernelDesc &kernel,
                    const std::vector<TensorView> &in,
                    const std::vector<TensorView> &out, bool &handled,
                    const TensorView *castOut = nullptr, size_t castOutput = 0,
                    uint8_t *allFinite = nullptr);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_OPTIMIZER_H
