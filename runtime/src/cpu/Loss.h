//===- Loss.h - softmax cross-entropy and its gradient ----------*- C++ -*-===//
//
// train.sparse_cross_entropy and train.sparse_cross_entropy_grad on own
// loops: each row of logits widened once, its exponentials taken once by the
// vector math library (cpu/VectorMath.h), rows split over the backend's
// threads. The reference's arithmetic otherwise: x - max, f32 sums along the
// row in order, the per-row losses summed in row order whatever the thread
// count; so the results are within a few ulp of the reference's, and the
// same for every thread count. ignore_index is the reference's: those rows
// have loss and gradient 0 and the mean is over the others (PyTorch's
// cross_entropy passes -100 by default); label smoothing runs on the
// reference. A label outside [0, C) that is not ignored leaves the kernel to
// the reference, which reports it.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_LOSS_H
#define MP_RUNTIME_CPU_LOSS_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <vector>

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// Runs the two cross-entropy ops (`handled` = true) when the views are
/// what the reference check admits and every label is in range; leaves
/// anything else untouched.
void runCrossEntropy(PathMode mode, const KernelDesc &kernel,
                     const std::vector<TensorView> &inputs,
                     const std::vector<TensorView> &outputs, bool &handled);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_LOSS_H
