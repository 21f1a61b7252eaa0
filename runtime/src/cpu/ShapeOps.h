//===- ShapeOps.h - transpose, broadcast and slice as row copies -*- C++ -*-===//
//
// The cpu backend's own shape kernels (the reference gathers element by
// element): transposes that keep the last dimension (whole rows copied) or
// swap two neighbouring groups of dimensions (NCHW <-> NHWC: batched 2-D
// transposes in tiles), broadcast and slice as gathers a result row at a
// time (a row copied, one value repeated, or strided). All move bytes
// only, so they are bitwise the reference's. Each returns false, doing
// nothing, for what it does not take (the reference kernel then runs it).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_SHAPEOPS_H
#define MP_RUNTIME_CPU_SHAPEOPS_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <vector>

#include "cpu/PathMode.h"

namespace mp::rt::cpu {

bool runTranspose(PathMode mode, const KernelDesc &kernel,
                  const std::vector<TensorView> &in,
                  const std::vector<TensorView> &out);
bool runBroadcast(PathMode mode, const KernelDesc &kernel,
                  const std::vector<TensorView> &in,
                  const std::vector<TensorView> &out);
bool runPad(PathMode mode, const KernelDesc &kernel,
            const std::vector<TensorView> &in,
            const std::vector<TensorView> &out);
bool runSlice(PathMode mode, const KernelDesc &kernel,
              const std::vector<TensorView> &in,
              const std::vector<TensorView> &out);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_SHAPEOPS_H
