//===- Pipeline.cpp - the --mp-mixed-precision pipeline -------------------===//
#include "mp/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mp::buildMixedPrecisionPipeline(OpPassManager &pm,
                                     const MixedPrecisionOptions &options) {
  AssignPrecisionOptions assign;
  assign.policy = options.policy;
  assign.target = options.target;
  assign.policyFile = options.policyFile;
  assign.allowAdd.assign(options.allowAdd.begin(), options.allowAdd.end());
  assign.allowRemove.assign(options.allowRemove.begin(), options.allowRemove.end());
  assign.denyAdd.assign(options.denyAdd.begin(), options.denyAdd.end());
  assign.denyRemove.assign(options.denyRemove.begin(), options.denyRemove.end());
  assign.inferAdd.assign(options.inferAdd.begin(), options.inferAdd.end());
  assign.inferRemove.assign(options.inferRemove.begin(), options.inferRemove.end());
  assign.clearAdd.assign(options.clearAdd.begin(), options.clearAdd.end());
  assign.clearRemove.assign(options.clearRemove.begin(), options.clearRemove.end());
  pm.addPass(createAssignPrecision(assign));
  // float32 changes nothing: no casts, and no canonicalization that would
  // reorder the user's IR.
  bool float32 = options.policy == "float32";
  if (!float32)
    pm.addPass(createInsertCasts());

  std::string mode = options.lossScale;
  bool automatic = mode == "auto";
  if (automatic)
    mode = options.policy == "mixed_float16" ? "dynamic" : "none";
  if (mode != "none") {
    LossScalingOptions scaling;
    scaling.mode = mode;
    scaling.initScale = options.initScale;
    scaling.growthInterval = options.growthInterval;
    scaling.growthFactor = options.growthFactor;
    scaling.backoffFactor = options.backoffFactor;
    scaling.minScale = options.minScale;
    scaling.maxScale = options.maxScale;
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
  report.summary = options.summary;
  report.jsonFile = options.report;
  pm.addPass(createPrecisionReport(report));

  // After the report: it describes the precision decisions, made on the
  // train ops; fusion is the first lowering step and changes no dtype.
  if (options.fuseEpilogues)
    pm.addPass(createFuseEpilogues());
  // Last: a later CSE would merge the two casts again.
  if (!float32 && options.recomputeCasts)
    pm.addPass(createRecomputeCasts());
}

void mp::registerMixedPrecisionPipeline() {
  PassPipelineRegistration<MixedPrecisionOptions>(
      "mp-mixed-precision",
      "The whole mixed-precision pipeline: assign precision, insert casts, "
      "loss scaling, guard finite, fold casts, canonicalize, report, fuse "
      "epilogues, "
      "recompute casts",
      buildMixedPrecisionPipeline);
}
