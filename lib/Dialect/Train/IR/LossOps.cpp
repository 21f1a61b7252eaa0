//===- LossOps.cpp - verifiers of the pointwise losses --------------------===//
//
// mse_loss, bce_with_logits_loss and huber_loss (and their gradients) have
// their types matched by ODS (AllTypesMatch); Huber's delta must be finite
// and positive, or the loss is NaN or the quadratic zone empty.
//
//===----------------------------------------------------------------------===//
#include "mp/Dialect/Train/IR/TrainOps.h"

#include <cmath>

using namespace mlir;
using namespace mp::train;

static LogicalResult verifyDelta(Operation *op, double delta) {
  if (std::isfinite(delta) && delta > 0)
    return success();
  return op->emitOpError() << "needs a finite, positive 'delta', got "
                           << delta;
}

LogicalResult HuberLossOp::verify() {
  return verifyDelta(*this, getDelta().convertToDouble());
}
LogicalResult HuberLossGradOp::verify() {
  return verifyDelta(*this, getDelta().convertToDouble());
}
