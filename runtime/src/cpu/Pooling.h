//===- Pooling.h - max pooling on NCHW planes -------------------*- C++ -*-===//
//
// max_pool2d and max_pool2d_grad for NCHW images: one (image, channel)
// plane at a time (float32 in place, 16-bit widened once), planes over the
// threads. Separable: a horizontal pass finds each row's first maximum per
// output column, tap by tap across all the columns the padding does not
// clip (the whole plane as one row when the windows tile the rows), and a
// vertical pass merges the rows in window order. Both use the reference's
// tie rule (common/ElementMath.h: maxPoolTakes) as vector selects, so the
// tap found is the one the reference's row-major scan picks, and the
// gradient is accumulated in its order: the results are bitwise the
// reference's. NHWC images go an (image, block of channels) at a time, the
// taps of each window in the reference's order as vector selects over the
// channels: bitwise the reference's as well. Anything invalid stays on the
// reference kernel.
//
// global_avg_pool2d and its gradient on NHWC images: an image at a time,
// the channels' f64 sums added pixel by pixel in the reference's order
// (cpu/Sums.h: addColumns), so bitwise the reference's; the gradient fills
// each pixel's row with grad / area. (NCHW runs on the reference kernel,
// rows over the threads.)
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_POOLING_H
#define MP_RUNTIME_CPU_POOLING_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <vector>

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// max_pool2d(_grad) and NHWC global_avg_pool2d(_grad); `handled` false
/// for every other op or anything these loops do not take.
void runPooling(PathMode mode, const KernelDesc &kernel,
                const std::vector<TensorView> &inputs,
                const std::vector<TensorView> &outputs, bool &handled);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_POOLING_H
