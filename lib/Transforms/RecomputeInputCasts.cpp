//===- RecomputeInputCasts.cpp - cast a step input again for the backward -===//
//
// The first layer's weight gradient reads the step's input, so under a
// 16-bit policy the input's 16-bit copy is held from the start of the step
// to the backward pass: an activation that mixed precision adds and the
// fp32 step does not have (its input is the buffer the step keeps anyway).
// Casting the input again where the backward pass first needs it is one
// more pass over a small tensor and gives the same values; the forward
// copy then dies with the forward pass.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mp {
#define GEN_PASS_DEF_RECOMPUTEINPUTCASTS
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// Gives the readers of `cast` that come after `seed` (in `seed`'s block)
/// a copy of the cast made right before the first of them.
void recomputeAfter(mpd::CastOp cast, Operation *seed) {
  SmallVector<OpOperand *> later;
  Operation *first = nullptr;
  for (OpOperand &use : cast.getResult().getUses()) {
    Operation *user = seed->getBlock()->findAncestorOpInBlock(*use.getOwner());
    if (!user || user == seed || !seed->isBeforeInBlock(user))
      continue;
    later.push_back(&use);
    if (!first || user->isBeforeInBlock(first))
      first = user;
  }
  // Only when the forward pass reads the copy too: otherwise nothing is
  // held across the step.
  size_t uses = 0;
  for (OpOperand &use : cast.getResult().getUses()) {
    (void)use;
    ++uses;
  }
  if (later.empty() || later.size() == uses)
    return;
  OpBuilder builder(first);
  Operation *copy = builder.clone(*cast.getOperation());
  for (OpOperand *use : later)
    use->set(copy->getResult(0));
}

struct RecomputeInputCasts
    : public mp::impl::RecomputeInputCastsBase<RecomputeInputCasts> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<FunctionOpInterface>()) {
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
      for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
        if (train::getArgRole(fn, i) != train::Role::Input)
          continue;
        // Collected first: a copy adds a use of the argument.
        SmallVector<mpd::CastOp> casts;
        for (Operation *user : body.getArgument(i).getUsers())
          if (auto cast = dyn_cast<mpd::CastOp>(user))
            if (cast->getBlock() == &body && cast->isBeforeInBlock(seed))
              casts.push_back(cast);
        for (mpd::CastOp cast : casts)
          recomputeAfter(cast, seed);
      }
    }
  }
};

} // namespace
