//===- InitAll.h - register everything mp-opt offers ------------*- C++ -*-===//
#ifndef MP_INITALL_H
#define MP_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mp {
/// train and mp, plus the upstream dialects mixed-precision graphs meet:
/// func, arith, math, tensor, linalg and tosa.
void registerAllDialects(mlir::DialectRegistry &registry);
/// mp's passes and the generic upstream ones (canonicalize, cse, ...).
void registerAllPasses();
} // namespace mp

#endif // MP_INITALL_H
