//===- VerifierSupport.h - checks shared by the train op verifiers -*- C++ -*-===//
//
// Shapes, ranks, element types and attribute arrays, each failing with a
// diagnostic that names the value; private to lib/Dialect/Train/IR.
//
//===----------------------------------------------------------------------===//
#ifndef MP_LIB_DIALECT_TRAIN_IR_VERIFIERSUPPORT_H
#define MP_LIB_DIALECT_TRAIN_IR_VERIFIERSUPPORT_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mp::train::verify {

using mlir::LogicalResult;

/// Formats a shape as [2, 3, 4] for diagnostics.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);
/// Formats a number for diagnostics (1e-05, 0.5, inf).
std::string num(double value);

llvm::ArrayRef<int64_t> shapeOf(mlir::Value v);
mlir::Type elementOf(mlir::Value v);

/// Checks that `actual` has the `expected` shape; `what` names the value.
LogicalResult checkShape(mlir::Operation *op, llvm::StringRef what,
                         llvm::ArrayRef<int64_t> expected, mlir::Value actual);
LogicalResult checkRank(mlir::Operation *op, llvm::StringRef what,
                        mlir::Value v, int64_t rank);
LogicalResult checkSameElementType(mlir::Operation *op, llvm::StringRef a,
                                   mlir::Value va, llvm::StringRef b,
                                   mlir::Value vb);
/// Ops that may accumulate into a wider result: the result element type is
/// the input's or f32 (bf16 x bf16 -> f32), never narrower.
LogicalResult checkAccumulatorType(mlir::Operation *op, mlir::Value input,
                                   mlir::Value result);
/// Resolves a possibly negative dimension index against `rank`.
mlir::FailureOr<int64_t> resolveDim(mlir::Operation *op, llvm::StringRef what,
                                    int64_t dim, int64_t rank);
/// Checks an array attribute's length and that its entries are >= `min`.
LogicalResult checkArray(mlir::Operation *op, llvm::StringRef what,
                         llvm::ArrayRef<int64_t> values, size_t size,
                         int64_t min);

} // namespace mp::train::verify

#endif // MP_LIB_DIALECT_TRAIN_IR_VERIFIERSUPPORT_H
