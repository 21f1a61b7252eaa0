//===- FoldCasts.cpp - widening casts folded into their neighbours --------===//
//
// After mp-insert-casts, a 16-bit op whose result only feeds f32 ops is
// followed by `mp.cast ... to f32`, and an f32 op reading a 16-bit value
// reads it through such a cast. For ops that accumulate in f32 anyway the
// cast is a kernel (and a tensor) for nothing: the producer can store its
// f32 accumulator, the consumer can widen while it reads. Whether an op
// accepts the mixed types is its verifier's call, so the pass needs no list
// of ops and never builds IR that does not verify.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Interfaces/PrecisionOpInterface.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

namespace mp {
#define GEN_PASS_DEF_FOLDCASTS
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

bool isLowFloat(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isBF16() || element.isF16();
}

/// An op of ours that accumulates in f32: storing f32 or reading 16 bits
/// changes no arithmetic but the final rounding.
bool accumulatesWide(Operation *op) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  return precision && isa<train::TrainDialect>(op->getDialect()) &&
         precision.needsWideAccumulator() && op->getNumRegions() == 0;
}

/// Whether `op` verifies as it is now, without reporting anything.
bool verifiesQuietly(Operation *op) {
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  return succeeded(mlir::verify(op, /*verifyRecursively=*/false));
}

/// A 16-bit result whose users are all casts to one f32 type becomes that
/// type; the casts go.
bool foldIntoProducer(Operation *op) {
  bool changed = false;
  for (OpResult result : op->getResults()) {
    if (!isLowFloat(result.getType()) || result.use_empty())
      continue;
    Type wide;
    bool allCasts = llvm::all_of(result.getUsers(), [&](Operation *user) {
      auto cast = dyn_cast<mpd::CastOp>(user);
      if (!cast || !getElementTypeOrSelf(cast.getType()).isF32())
        return false;
      if (wide && wide != cast.getType())
        return false;
      wide = cast.getType();
      return true;
    });
    if (!allCasts)
      continue;
    Type narrow = result.getType();
    result.setType(wide);
    if (!verifiesQuietly(op)) {
      result.setType(narrow);
      continue;
    }
    for (Operation *user : llvm::make_early_inc_range(result.getUsers())) {
      user->getResult(0).replaceAllUsesWith(result);
      user->erase();
    }
    changed = true;
  }
  return changed;
}

/// An f32 operand that is a widening cast of a 16-bit value is read in 16
/// bits; the cast goes when nothing else reads it.
bool foldIntoConsumer(Operation *op) {
  bool changed = false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto cast = operand.get().getDefiningOp<mpd::CastOp>();
    if (!cast || !getElementTypeOrSelf(cast.getType()).isF32() ||
        !isLowFloat(cast.getInput().getType()))
      continue;
    operand.set(cast.getInput());
    if (!verifiesQuietly(op)) {
      operand.set(cast.getResult());
      continue;
    }
    if (cast->use_empty())
      cast->erase();
    changed = true;
  }
  return changed;
}

struct FoldCasts : public mp::impl::FoldCastsBase<FoldCasts> {
  void runOnOperation() override {
    // Producers first: a cast a producer absorbs is no longer there for a
    // consumer to read through (one fold per cast, never two).
    SmallVector<Operation *> candidates;
    getOperation()->walk([&](Operation *op) {
      if (accumulatesWide(op))
        candidates.push_back(op);
    });
    for (Operation *op : candidates)
      foldIntoProducer(op);
    for (Operation *op : candidates)
      foldIntoConsumer(op);
  }
};

} // namespace
