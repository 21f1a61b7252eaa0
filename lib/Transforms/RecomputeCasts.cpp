//===- RecomputeCasts.cpp - casts made again for the backward pass --------===//
//
// A cast read by both the forward and the backward pass holds its copy from
// the forward pass to the backward pass. When its source is kept for the
// backward pass anyway (the step's input, which the runtime keeps for the
// whole step, or a value some later kernel reads itself: the attention
// probabilities, kept in f32 for the softmax gradient and cast to bf16 for
// probs x V), casting again where the backward pass first needs the copy
// costs one pass over the source and holds nothing extra: the same values
// (a cast is deterministic), less memory across the step. For the same
// reason a widening cast that only the backward pass reads (the f32 logits
// of the loss gradient) moves to where it is read: the 16-bit source is
// what the step holds.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"
#include "mp/Transforms/Functions.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mp {
#define GEN_PASS_DEF_RECOMPUTECASTS
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// Whether `user` (an op anywhere in the step) runs after `seed`.
bool isAfter(Operation *user, Operation *seed) {
  Operation *top = seed->getBlock()->findAncestorOpInBlock(*user);
  return top && top != seed && seed->isBeforeInBlock(top);
}

/// Whether the step keeps `source` until after `seed` whatever `cast` does.
bool keptAnyway(Value source, mpd::CastOp cast, Operation *seed,
                FunctionOpInterface fn) {
  if (auto arg = dyn_cast<BlockArgument>(source))
    return train::getArgRole(fn, arg.getArgNumber()) == train::Role::Input;
  return llvm::any_of(source.getUsers(), [&](Operation *user) {
    return user != cast.getOperation() && isAfter(user, seed);
  });
}

unsigned elementBits(Value value) {
  return getElementTypeOrSelf(value.getType()).getIntOrFloatBitWidth();
}

/// Gives the readers of `cast` after `seed` a copy of the cast made right
/// before the first of them, when the forward pass reads it too. A
/// widening cast read only after the seed moves there instead: the
/// narrower source is what stays live across the step.
void recomputeAfter(mpd::CastOp cast, Operation *seed) {
  SmallVector<OpOperand *> later;
  Operation *first = nullptr;
  size_t uses = 0;
  for (OpOperand &use : cast.getResult().getUses()) {
    ++uses;
    if (!isAfter(use.getOwner(), seed))
      continue;
    later.push_back(&use);
    Operation *top = seed->getBlock()->findAncestorOpInBlock(*use.getOwner());
    if (!first || top->isBeforeInBlock(first))
      first = top;
  }
  if (later.empty())
    return;
  if (later.size() == uses) {
    if (elementBits(cast.getInput()) < elementBits(cast.getResult()))
      cast->moveBefore(first);
    return;
  }
  OpBuilder builder(first);
  Operation *copy = builder.clone(*cast.getOperation());
  for (OpOperand *use : later)
    use->set(copy->getResult(0));
}

struct RecomputeCasts : public mp::impl::RecomputeCastsBase<RecomputeCasts> {
  void runOnOperation() override {
    for (auto fn : functionsIn(getOperation())) {
      if (!train::isTrainStep(fn) || fn.getFunctionBody().empty())
        continue;
      Block &body = fn.getFunctionBody().front();
      Operation *seed = nullptr;
      for (Operation &op : body)
        if (isa<train::GradSeedOp>(op)) {
          seed = &op;
          break;
        }
      if (!seed)
        continue;
      // Collected first: a copy adds a use of its source.
      SmallVector<mpd::CastOp> casts;
      for (Operation &op : body) {
        if (&op == seed)
          break;
        if (auto cast = dyn_cast<mpd::CastOp>(op))
          if (keptAnyway(cast.getInput(), cast, seed, fn) ||
              elementBits(cast.getInput()) < elementBits(cast.getResult()))
            casts.push_back(cast);
      }
      for (mpd::CastOp cast : casts)
        recomputeAfter(cast, seed);
    }
  }
};

} // namespace
