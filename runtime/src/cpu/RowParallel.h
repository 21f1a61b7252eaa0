//===- RowParallel.h - reference kernels split over batch rows --*- C++ -*-===//
//
// Ops whose every row (along dimension 0) is computed from that row alone:
// softmax, log_softmax and their gradients (axis not 0), layer_norm (axis
// not 0), reductions that keep dimension 0 (a mean over the sequence), and
// the pooling ops (one image per row). The cpu backend runs the
// reference kernel on contiguous row ranges on its threads: each row is
// computed by exactly the reference's code, so the result is bitwise the
// reference's whatever the thread count, and large 16-bit operands are
// widened a slice at a time instead of whole.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_ROWPARALLEL_H
#define MP_RUNTIME_CPU_ROWPARALLEL_H

#include "mp/runtime/Backend.h"

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// Runs `kernel` on `reference` in row slices when it is one of the ops
/// above and has more than one row (`handled` = true); otherwise does
/// nothing. Errors are the reference kernel's (the first slice's to fail).
Status runRowParallel(PathMode mode, Backend &reference,
                      const KernelDesc &kernel,
                      const std::vector<TensorView> &inputs,
                      const std::vector<TensorView> &outputs, bool &handled);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_ROWPARALLEL_H
