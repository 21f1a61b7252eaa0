//===- Gradients.cpp - where a step's gradients enter its updates ---------===//
#include "mp/Transforms/Gradients.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

using namespace mlir;

/// Whether `value` is a gradient transform's result, directly or through
/// one mp.cast.
static bool isTransformed(Value value) {
  if (auto cast = value.getDefiningOp<mp::mpd::CastOp>())
    value = cast.getInput();
  Operation *def = value.getDefiningOp();
  return def && isa<mp::train::GradientTransformOpInterface,
                    mp::train::GradientOp>(def);
}

mp::GradientEdges mp::findGradientEdges(Block &body) {
  GradientEdges out;
  for (Operation &op : body) {
    if (auto update = dyn_cast<train::OptimizerOpInterface>(op)) {
      out.consumers.push_back(&op);
      OpOperand &grad = update.getGradientOperand();
      if (!isTransformed(grad.get()))
        out.edges.push_back(&grad);
    } else if (auto marker = dyn_cast<train::GradientOp>(op)) {
      out.consumers.push_back(&op);
      if (!isTransformed(marker.getGrad()))
        out.edges.push_back(&marker.getGradMutable());
    } else if (auto transform =
                   dyn_cast<train::GradientTransformOpInterface>(op)) {
      out.consumers.push_back(&op);
      for (OpOperand &grad : transform.getGradientOperands())
        if (!isTransformed(grad.get()))
          out.edges.push_back(&grad);
    }
  }
  return out;
}
