//===- Parallel.h - the cpu backend's own threads ---------------*- C++ -*-===//
//
// The own kernels (casts, elementwise, reductions, optimizers) are memory
// bound and one core does not saturate the memory bandwidth: they split
// their index range over the backend's threads. Each element (or each
// output column of a reduction) is computed by exactly one thread in a fixed
// order, so results never depend on the thread count.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_PARALLEL_H
#define MP_RUNTIME_CPU_PARALLEL_H

#include <cstdint>
#include <functional>

namespace mp::rt::cpu {

/// Runs fn(begin, end) over [0, n) in contiguous parts, one per thread, as
/// many parts as the thread count allows with at least `grain` elements
/// each; part boundaries are multiples of 64 elements. The parts run on the
/// caller and on worker threads kept for the life of the process; on the
/// caller alone, in order, when one part is all there is, when called from
/// a worker (nested), or while another caller's job has the workers.
void parallelFor(int64_t n, int64_t grain,
                 const std::function<void(int64_t, int64_t)> &fn);

/// Runs fn(begin, end) over [0, items) in as many contiguous parts as there
/// are threads (at most one per item), without parallelFor's 64-element
/// boundaries: for a few large items (column blocks of a reduction) that
/// each write whole cache lines of their own.
void parallelForItems(int64_t items,
                      const std::function<void(int64_t, int64_t)> &fn);

/// The workers stay awake for a moment after a job, for the next one;
/// before work that runs on other threads (oneDNN's primitives), this sends
/// them to sleep at once, so that they leave those threads the cores.
void releaseWorkers();

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_PARALLEL_H
