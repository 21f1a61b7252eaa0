//===- ActivationOps.cpp - verifiers of the parameterized activations -----===//
//
// leaky_relu and elu (and their gradients) take one float parameter of the
// negative side; a NaN or infinite one would make every negative input
// non-finite, so it is refused where the op is written, not at run time.
//
//===----------------------------------------------------------------------===//
#include "mp/Dialect/Train/IR/TrainOps.h"

#include <cmath>

using namespace mlir;
using namespace mp::train;

static LogicalResult verifyFinite(Operation *op, llvm::StringRef name,
                                  double value) {
  if (std::isfinite(value))
    return success();
  return op->emitOpError() << "needs a finite '" << name << "', got "
                           << value;
}

LogicalResult LeakyReluOp::verify() {
  return verifyFinite(*this, "negative_slope", getNegativeSlope().convertToDouble());
}
LogicalResult LeakyReluGradOp::verify() {
  return verifyFinite(*this, "negative_slope", getNegativeSlope().convertToDouble());
}
LogicalResult EluOp::verify() {
  return verifyFinite(*this, "alpha", getAlpha().convertToDouble());
}
LogicalResult EluGradOp::verify() {
  return verifyFinite(*this, "alpha", getAlpha().convertToDouble());
}
