//===- Functions.h - the functions a module's passes visit ------*- C++ -*-===//
//
// mp's passes run on a module and visit every function-like op in it
// (FunctionOpInterface: func.func and others), also those in nested
// modules (a host compiler's executables or device modules), in pre-order;
// a function nested inside another function's body is not one of them.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TRANSFORMS_FUNCTIONS_H
#define MP_TRANSFORMS_FUNCTIONS_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"

namespace mp {

llvm::SmallVector<mlir::FunctionOpInterface>
functionsIn(mlir::Operation *root);

} // namespace mp

#endif // MP_TRANSFORMS_FUNCTIONS_H
