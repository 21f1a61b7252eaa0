//===- Gradients.h - where a step's gradients enter its updates -*- C++ -*-===//
//
// The gradients of a step flow into optimizer updates
// (train::OptimizerOpInterface, or elementwise ops reading a
// `train.gradient` marker), possibly through gradient transforms
// (train::GradientTransformOpInterface: clipping). Loss scaling unscales
// and checks the gradients where they enter this chain, not where they
// leave it, so that a clip sees true gradients and a skipped step runs
// none of it; the finiteness guard checks the same values.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TRANSFORMS_GRADIENTS_H
#define MP_TRANSFORMS_GRADIENTS_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/SmallVector.h"

namespace mp {

struct GradientEdges {
  /// Every operand that carries a gradient into a transform or an update
  /// and that no transform computed (looking through one mp.cast), in the
  /// block order of their owners.
  llvm::SmallVector<mlir::OpOperand *> edges;
  /// The transforms, updates and markers, in block order.
  llvm::SmallVector<mlir::Operation *> consumers;
};

GradientEdges findGradientEdges(mlir::Block &body);

} // namespace mp

#endif // MP_TRANSFORMS_GRADIENTS_H
