//===- Pooling.h - max pooling on NCHW planes -------------------*- C++ -*-===//
//
// max_pool2d and max_pool2d_grad for NCHW images: one (image, channel)
// plane at a time, widened once, planes over the threads. The reference's
// window order and tie rule (reference/ElementRules.h: maxPoolTakes), and
// its order of accumulation into the gradient, so the results are bitwise
// the reference's. NHWC and anything invalid stay on the reference kernel.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_POOLING_H
#define MP_RUNTIME_CPU_POOLING_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <vector>

namespace mp::rt::cpu {

void runMaxPool(const KernelDesc &kernel, const std::vector<TensorView> &inputs,
                const std::vector<TensorView> &outputs, bool &handled);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_POOLING_H
