//===- Normalization.h - batch_norm kernels with a parallel loop -*- C++ -*-===//
//
// batch_norm and batch_norm_grad compute each feature (channel) on its own:
// these forms take the loop over features as a parameter, so that the cpu
// backend runs the reference's own code with the features split over its
// threads (bitwise the reference's results), and the reference backend
// runs it serially.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_REFERENCE_NORMALIZATION_H
#define MP_RUNTIME_REFERENCE_NORMALIZATION_H

#include "reference/KernelSupport.h"

#include <functional>

namespace mp::rt::ref {

/// parallel(n, grain, body) calls body(begin, end) on ranges that cover
/// [0, n) once each, in any order and on any threads.
using ParallelFor = std::function<void(
    int64_t, int64_t, const std::function<void(int64_t, int64_t)> &)>;
/// The serial loop: body(0, n).
inline void serialFor(int64_t n, int64_t,
                      const std::function<void(int64_t, int64_t)> &body) {
  body(0, n);
}

/// The reference's checks of batch_norm / batch_norm_grad views and
/// attributes (for kernels of other backends that compute the same).
Status checkBatchNormKernel(const KernelDesc &k, const Views &in,
                            const Views &out);
Status checkBatchNormGradKernel(const KernelDesc &k, const Views &in,
                                const Views &out);

/// Check and run, as the reference backend does.
Status runBatchNormWith(const KernelDesc &k, const Views &in,
                        const Views &out, const ParallelFor &parallel);
Status runBatchNormGradWith(const KernelDesc &k, const Views &in,
                            const Views &out, const ParallelFor &parallel);

} // namespace mp::rt::ref

#endif // MP_RUNTIME_REFERENCE_NORMALIZATION_H
