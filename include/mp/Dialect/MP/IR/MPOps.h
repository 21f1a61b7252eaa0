//===- MPOps.h - mp dialect ops ---------------------------------*- C++ -*-===//
#ifndef MP_DIALECT_MP_IR_MPOPS_H
#define MP_DIALECT_MP_IR_MPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/IR/Traits.h"

namespace mp::mpd {
/// Whether converting every value of float type `from` to `to` is exact.
bool isExactFloatConversion(mlir::Type from, mlir::Type to);
} // namespace mp::mpd

#define GET_OP_CLASSES
#include "mp/Dialect/MP/IR/MPOps.h.inc"

#endif // MP_DIALECT_MP_IR_MPOPS_H
