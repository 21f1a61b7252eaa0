//===- Pipeline.cpp - the --mp-mixed-precision pipeline -------------------===//
#include "mp/IR/Vocabulary.h"
#include "mp/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mp::buildMixedPrecisionPipeline(OpPassManager &pm,
                                     const MixedPrecisionOptions &options) {
  // Composite ops become what the backends run, and elementwise SGD the
  // fused update, first: the precision passes then see the ops that will
  // run, and an optimizer (an fp32 island) rather than loose arithmetic.
  pm.addPass(createDecompose());
  pm.addPass(createFuseOptimizers());
  // The gradients averaged over the ranks before the precision passes: the
  // reduction is an fp32 island, and loss scaling checks reduced gradients.
  if (options.dataParallel != "off") {
    DataParallelOptions parallel;
    parallel.mode = options.dataParallel;
    parallel.bucketMb = options.bucketMb;
    parallel.reduceDtype = options.reduceDtype;
    parallel.syncBatchNorm = options.syncBatchNorm;
    parallel.worldSize = options.worldSize;
    pm.addPass(createDataParallel(parallel));
  }
  AssignPrecisionOptions assign;
  options.copyTo(assign);
  pm.addPass(createAssignPrecision(assign));
  // float32 changes nothing: no casts, and no canonicalization that would
  // reorder the user's IR.
  std::optional<PolicyKind> policy = symbolizePolicyKind(options.policy);
  bool float32 = policy == PolicyKind::Float32;
  if (!float32)
    pm.addPass(createInsertCasts());

  std::string mode = options.lossScale;
  bool automatic = mode == "auto";
  if (automatic)
    mode = policy == PolicyKind::MixedFloat16 ? "dynamic" : "none";
  if (mode != "none") {
    LossScalingOptions scaling;
    options.copyTo(scaling);
    scaling.mode = mode;
    scaling.optional = automatic;
    pm.addPass(createLossScaling(scaling));
  }

  // Where no loss scaling checks the gradients, the check alone (no skip:
  // the runtime stops on a non-finite gradient instead of applying it).
  if (options.checkFinite)
    pm.addPass(createGuardFinite());

  if (!float32 && options.foldCasts)
    pm.addPass(createFoldCasts());

  if (!float32 || mode != "none") {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }

  PrecisionReportOptions report;
  options.copyTo(report);
  pm.addPass(createPrecisionReport(report));

  // After the report: it describes the precision decisions, made on the
  // train ops; fusion is the first lowering step and changes no dtype.
  if (options.fuseEpilogues)
    pm.addPass(createFuseEpilogues());
  // Last: a later CSE would merge the two casts again.
  if (!float32 && options.recomputeCasts)
    pm.addPass(createRecomputeCasts());
  if (options.castOp != "mp") {
    LowerToUpstreamOptions lower;
    lower.castOp = options.castOp;
    pm.addPass(createLowerToUpstream(lower));
  }
}

void mp::registerMixedPrecisionPipeline() {
  PassPipelineRegistration<MixedPrecisionOptions>(
      "mp-mixed-precision",
      "The whole mixed-precision pipeline: decompose, fuse optimizers, assign "
      "precision, "
      "insert casts, "
      "loss scaling, guard finite, fold casts, canonicalize, report, fuse "
      "epilogues, "
      "recompute casts (and with cast-op=arith, lower to upstream ops)",
      buildMixedPrecisionPipeline);
}
