//===- FusedFunctions.h - a fused region as one func.func -------*- C++ -*-===//
//
// The func.func of a fused region (FusedCodegen.cpp lowers and links it):
// one linalg.generic over [begin, end) of an elementwise region's operands,
// or a row kernel's loops over whole rows. Private to lib/Target/Cpu.
//
//===----------------------------------------------------------------------===//
#ifndef MP_LIB_TARGET_CPU_FUSEDFUNCTIONS_H
#define MP_LIB_TARGET_CPU_FUSEDFUNCTIONS_H

#include "mp/runtime/Plan.h"

#include "mlir/IR/Builders.h"

namespace mp::fused {

/// func.func @<symbol>_body(operands as memrefs, begin, end): the region's
/// kernels over [begin, end) of its extent.
void buildRegionFunction(mlir::OpBuilder &b, const mp::rt::Plan &plan,
                         const mp::rt::FusedRegion &region);

/// func.func @<symbol>_body for a region of one row kernel (isRowKernel):
/// an scf.for over the rows [begin, end), each row's sums as
/// linalg.generic reductions into a one-element buffer (f64, added with
/// reassociation allowed, so that LLVM vectorizes them: f64 sums in any
/// order of a row of f32 values keep far more than f32's precision), then
/// one generic writing the row.
void buildRowFunction(mlir::OpBuilder &b, const mp::rt::Plan &plan,
                      const mp::rt::FusedRegion &region);

} // namespace mp::fused

#endif // MP_LIB_TARGET_CPU_FUSEDFUNCTIONS_H
