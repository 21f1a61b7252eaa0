//===- Normalization.h - layer_norm_grad on the backend's threads -*- C++ -*-===//
//
// layer_norm_grad in two passes that each split over the threads: grad_x
// row by row (each row needs only its own sums), then grad_scale and
// grad_offset column by column (each column sums its rows in row order);
// batch_norm and its gradient channel by channel. Every value is computed
// with the reference kernel's expressions, its f64 sums in the reference's
// order (reference/Accumulate.h), so the results are bitwise the
// reference's.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_NORMALIZATION_H
#define MP_RUNTIME_CPU_NORMALIZATION_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <vector>

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// Runs train.layer_norm_grad when the views make a valid problem
/// (`handled` = true); otherwise leaves it to the reference kernel.
void runLayerNormGrad(PathMode mode, const KernelDesc &kernel,
                      const std::vector<TensorView> &inputs,
                      const std::vector<TensorView> &outputs, bool &handled);

/// batch_norm / batch_norm_grad with the features before contiguous runs of
/// at least 64 elements (NCHW images): each channel on one thread, its runs
/// widened one at a time (no tensor-size f32 copies); with the features
/// last (NHWC images, [N, C] activations): blocks of features on threads,
/// rows in order. Both use the reference's expressions in the reference's
/// order: bitwise its results. Other layouts (`handled` false) take the
/// reference kernel with the channels over the threads. Invalid views or
/// attributes: the reference's error.
/// batch_norm / batch_norm_grad on own loops (`handled` false: not these
/// views; the caller runs the reference). With `reluOut` (batch_norm), the
/// result is relu(y) written there and y is not written; with `reluGradIn`
/// (batch_norm_grad: the gradient and the ReLU's output), grad_y is read as
/// relu_grad of them and input #0 is not read: the fused activations of
/// Backend::FusedKernel (kRelu, kReluGrad), taken with the features last
/// only.
Status runBatchNorm(PathMode mode, const KernelDesc &kernel,
                    const std::vector<TensorView> &inputs,
                    const std::vector<TensorView> &outputs, bool &handled,
                    const TensorView *reluOut = nullptr,
                    const std::vector<TensorView> *reluGradIn = nullptr);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_NORMALIZATION_H
