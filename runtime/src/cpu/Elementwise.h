//===- Elementwise.h - the cpu backend's own fused loops --------*- C++ -*-===//
//
// Ops oneDNN has no fused form for in a training step, on own loops: the
// elementwise float ops (unary, binary of one shape, activation gradients),
// bias_add, sums and means over leading dimensions (bias gradients), fill,
// row-preserving transposes; and, through runOwnKernel, the loss scaler's
// ops (cpu/LossScaling.h) and the optimizer updates (cpu/Optimizer.h).
// Each loop reads 16-bit operands a chunk at a time into f32 (no tensor-size
// temporaries), computes with the reference's own per-element rules
// (common/ElementMath.h), rounds once when it stores, and splits the
// elements over the backend's threads: the results are bitwise those of the
// reference kernels, whatever the thread count.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_ELEMENTWISE_H
#define MP_RUNTIME_CPU_ELEMENTWISE_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <vector>

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// Runs `kernel` when it is one of the ops above and the views make a
/// valid problem (`handled` = true); otherwise leaves everything untouched
/// for the reference kernel, which also reports invalid views. A bad
/// hyper-parameter is reported as the reference reports it.
Status runOwnKernel(PathMode mode, const KernelDesc &kernel,
                    const std::vector<TensorView> &inputs,
                    const std::vector<TensorView> &outputs, bool &handled);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_ELEMENTWISE_H
