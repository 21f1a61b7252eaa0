//===- PrecisionModels.h - PrecisionOpInterface for upstream ops -*- C++ -*-===//
//
// Attaches PrecisionOpInterface to upstream ops so that mp's precision
// passes run inside other MLIR compilers: linalg contractions, convolutions,
// softmax and fill; arith float ops; math ops; tosa matmul, elementwise
// ops, reductions and data movement; tensor.empty.
//
//===----------------------------------------------------------------------===//
#ifndef MP_EXTERNALMODELS_PRECISIONMODELS_H
#define MP_EXTERNALMODELS_PRECISIONMODELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mp {
void registerArithPrecisionModels(mlir::DialectRegistry &registry);
void registerLinalgPrecisionModels(mlir::DialectRegistry &registry);
void registerMathPrecisionModels(mlir::DialectRegistry &registry);
void registerTensorPrecisionModels(mlir::DialectRegistry &registry);
void registerTosaPrecisionModels(mlir::DialectRegistry &registry);

/// All of the above.
void registerPrecisionExternalModels(mlir::DialectRegistry &registry);
} // namespace mp

#endif // MP_EXTERNALMODELS_PRECISIONMODELS_H
