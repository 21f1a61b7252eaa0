//===- Passes.h - mixed-precision passes ------------------------*- C++ -*-===//
#ifndef MP_TRANSFORMS_PASSES_H
#define MP_TRANSFORMS_PASSES_H

#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mp {

#define GEN_PASS_DECL
#include "mp/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mp/Transforms/Passes.h.inc"

/// Options of the whole pipeline, `--mp-mixed-precision="..."`: the
/// passes' option records (Passes.td) reused, written by mp-tblgen
/// -gen-pipeline-options, with copyTo() into each pass's options.
#include "mp/Transforms/PipelineOptions.h.inc"

/// assign precision, insert casts, loss scaling (per `loss-scale`), the
/// gradient check where there is no loss scaling (per `check-finite`), fold
/// casts (per `fold-casts`), canonicalize + cse, report, fuse epilogues
/// (per `fuse-epilogues`), recompute casts (per `recompute-casts`).
void buildMixedPrecisionPipeline(mlir::OpPassManager &pm,
                                 const MixedPrecisionOptions &options);
void registerMixedPrecisionPipeline();

} // namespace mp

#endif // MP_TRANSFORMS_PASSES_H
