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

namespace mp::rt::cpu {

/// Runs the update (`handled` = true) when the views make one; with
/// `castOut`, also narrows output #`castOutput` (f32) into it chunk by
/// chunk: mp.cast's result fused into the update.
Status runOptimizer(const KernelDesc &kernel,
                    const std::vector<TensorView> &in,
                    const std::vector<TensorView> &out, bool &handled,
                    const TensorView *castOut = nullptr,
                    size_t castOutput = 0);

/// An optimizer update whose f32 output #`output` is also narrowed into
/// `castOut` (bf16 / f16) as each chunk is written: the update and mp.cast
/// of the new weight in one pass, bitwise the two kernels. Leaves anything
/// else untouched (`handled` = false).
Status runOptimizerThenCast(const KernelDesc &kernel,
                            const std::vector<TensorView> &inputs,
                            const std::vector<TensorView> &outputs,
                            size_t output, const TensorView &castOut,
                            bool &handled);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_OPTIMIZER_H
