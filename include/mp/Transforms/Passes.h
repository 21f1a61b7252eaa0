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

/// Options of the whole pipeline, `--mp-mixed-precision="..."`.
struct MixedPrecisionOptions
    : public mlir::PassPipelineOptions<MixedPrecisionOptions> {
  Option<std::string> policy{*this, "policy",
                             llvm::cl::desc("float32, mixed_bfloat16 or "
                                            "mixed_float16"),
                             llvm::cl::init("mixed_bfloat16")};
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("cpu (oneDNN lists) or cuda"),
                             llvm::cl::init("cpu")};
  Option<std::string> policyFile{*this, "policy-file",
                                 llvm::cl::desc("JSON file of list edits")};
  ListOption<std::string> allowAdd{*this, "allow-add",
                                   llvm::cl::desc("ops to add to allow")};
  ListOption<std::string> allowRemove{*this, "allow-remove",
                                      llvm::cl::desc("ops off allow")};
  ListOption<std::string> denyAdd{*this, "deny-add",
                                  llvm::cl::desc("ops to add to deny")};
  ListOption<std::string> denyRemove{*this, "deny-remove",
                                     llvm::cl::desc("ops off deny")};
  ListOption<std::string> inferAdd{*this, "infer-add",
                                   llvm::cl::desc("ops to add to infer")};
  ListOption<std::string> inferRemove{*this, "infer-remove",
                                      llvm::cl::desc("ops off infer")};
  ListOption<std::string> clearAdd{*this, "clear-add",
                                   llvm::cl::desc("ops to add to clear")};
  ListOption<std::string> clearRemove{*this, "clear-remove",
                                      llvm::cl::desc("ops off clear")};
  Option<std::string> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("auto (dynamic for mixed_float16, none otherwise), "
                     "dynamic, static or none"),
      llvm::cl::init("auto")};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("initial or static loss scale"),
                           llvm::cl::init(32768.0)};
  Option<int64_t> growthInterval{*this, "growth-interval",
                                 llvm::cl::desc("finite steps per growth"),
                                 llvm::cl::init(2000)};
  Option<double> growthFactor{*this, "growth-factor",
                              llvm::cl::desc("scale growth factor"),
                              llvm::cl::init(2.0)};
  Option<double> backoffFactor{*this, "backoff-factor",
                               llvm::cl::desc("scale back-off factor"),
                               llvm::cl::init(0.5)};
  Option<double> minScale{
      *this, "min-scale",
      llvm::cl::desc("lower bound of the scale (1, as Keras: a scale that "
                     "keeps halving on non-finite gradients stops there)"),
      llvm::cl::init(1.0)};
  Option<double> maxScale{*this, "max-scale",
                          llvm::cl::desc("upper bound of the scale"),
                          llvm::cl::init(3.4028234663852886e+38)};
  Option<bool> checkFinite{
      *this, "check-finite",
      llvm::cl::desc("without loss scaling, check the gradients and fail a "
                     "step whose gradients are not finite (mp-guard-finite)"),
      llvm::cl::init(true)};
  Option<bool> foldCasts{
      *this, "fold-casts",
      llvm::cl::desc("fold widening casts into the f32-accumulating ops "
                     "that produce or consume them (mp-fold-casts)"),
      llvm::cl::init(true)};
  Option<bool> recomputeCasts{
      *this, "recompute-casts",
      llvm::cl::desc("cast again in the backward pass what the step keeps "
                     "anyway, instead of holding the copy (mp-recompute-casts)"),
      llvm::cl::init(true)};
  Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("fuse matmul + bias_add (+ relu) into "
                     "mp.matmul_epilogue (mp-fuse-epilogues)"),
      llvm::cl::init(true)};
  Option<std::string> report{*this, "report",
                             llvm::cl::desc("write the JSON report here")};
  Option<bool> summary{*this, "summary",
                       llvm::cl::desc("print the one-line summary"),
                       llvm::cl::init(false)};
};

/// assign precision, insert casts, loss scaling (per `loss-scale`), the
/// gradient check where there is no loss scaling (per `check-finite`), fold
/// casts (per `fold-casts`), canonicalize + cse, report, fuse epilogues
/// (per `fuse-epilogues`), recompute casts (per `recompute-casts`).
void buildMixedPrecisionPipeline(mlir::OpPassManager &pm,
                                 const MixedPrecisionOptions &options);
void registerMixedPrecisionPipeline();

} // namespace mp

#endif // MP_TRANSFORMS_PASSES_H
