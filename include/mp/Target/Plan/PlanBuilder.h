//===- PlanBuilder.h - lower a training step to an executable plan -*- C++ -*-//
//
// Turns a `train.step` function (after the precision pipeline) into the
// runtime's Plan: one tensor per value (persistent state, batch inputs,
// constants, scratch), one kernel per op in block order, the step's
// results, and a static memory plan that reuses scratch memory by liveness.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TARGET_PLAN_PLANBUILDER_H
#define MP_TARGET_PLAN_PLANBUILDER_H

#include "mp/runtime/Plan.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"

namespace mp {

struct PlanOptions {
  /// Build the forward-only evaluation plan: the ops the loss depends on,
  /// returning the loss and the logits (the loss' first operand) as the
  /// output "logits"; no state is updated.
  bool evaluation = false;
};

/// Builds the plan of `step`; emits a located error and fails on anything
/// the runtime cannot run (an op without a kernel, a dynamic shape, an
/// unsupported dtype or attribute).
mlir::FailureOr<rt::Plan> buildPlan(mlir::FunctionOpInterface step,
                                    const PlanOptions &options);

} // namespace mp

#endif // MP_TARGET_PLAN_PLANBUILDER_H
