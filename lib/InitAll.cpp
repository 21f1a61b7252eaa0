//===- InitAll.cpp - register everything mp-opt offers --------------------===//
#include "mp/InitAll.h"

#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/ExternalModels/PrecisionModels.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"
#include "mp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Transforms/Passes.h"

void mp::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mp::train::TrainDialect, mp::mpd::MPDialect,
                  mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::tensor::TensorDialect,
                  mlir::linalg::LinalgDialect, mlir::tosa::TosaDialect,
                  // Compilers' IR has loops and branches (issue 18).
                  mlir::scf::SCFDialect, mlir::cf::ControlFlowDialect>();
  mp::registerPrecisionExternalModels(registry);
}

void mp::registerAllPasses() {
  mlir::registerTransformsPasses();
  mp::registerMPPasses();
  mp::registerMixedPrecisionPipeline();
}
