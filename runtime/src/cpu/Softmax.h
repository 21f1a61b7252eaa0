//===- Softmax.h - softmax / log_softmax on the vector math library -*- C++ -*-===//
//
// softmax and log_softmax along the last axis (the attention and the
// classifier rows): each row widened once, its exponentials taken by the
// vector math library (cpu/VectorMath.h), rows split over the backend's
// threads. The reference's arithmetic otherwise (x - max, f32 sums in row
// order), so the results are within a few ulp of the reference's. Other
// axes stay on the row-split reference kernel (cpu/RowParallel.h).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_SOFTMAX_H
#define MP_RUNTIME_CPU_SOFTMAX_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <vector>

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

/// One row of `length` values of `dtype` at `row`: widened into `x`, and
/// `e` = exp(x - max) (the vector math library), summed in order into
/// `sum`; returns the row's max. The reference's arithmetic (softmax and
/// the cross-entropy loss, cpu/Loss.cpp).
float expRow(DType dtype, const void *row, int64_t length, float *x, float *e,
             float &sum);

/// Runs train.softmax / train.log_softmax along the last axis
/// (`handled` = true); leaves anything else untouched.
void runSoftmaxLastAxis(PathMode mode, const KernelDesc &kernel,
                        const std::vector<TensorView> &inputs,
                        const std::vector<TensorView> &outputs, bool &handled);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_SOFTMAX_H
