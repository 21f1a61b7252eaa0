//===- FuseEpilogues.cpp - bias and ReLU as a matmul's epilogue -----------===//
//
// A framework runs a linear layer as three kernels (matmul, bias add, ReLU),
// each reading and writing the whole activation and each rounding it to the
// compute dtype. A graph compiler sees the chain and can hand it to one
// GEMM with an epilogue (oneDNN post-ops, cuBLASLt epilogues): the bias and
// the activation are applied to the f32 accumulator, and the result is
// rounded once. docs/precision.md says why each rewrite is exact. A batch
// norm's ReLU (and a ReLU gradient feeding a batch norm gradient) is placed
// next to it, for the runtime to apply in the normalization's own pass.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mp {
#define GEN_PASS_DEF_FUSEEPILOGUES
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// The bias of `biasAdd` as the epilogue reads it: an f32 tensor narrowed
/// by an `mp.cast` is read before the cast (the epilogue adds in f32).
Value epilogueBias(train::BiasAddOp biasAdd) {
  Value bias = biasAdd.getBias();
  if (auto cast = bias.getDefiningOp<mpd::CastOp>())
    if (getElementTypeOrSelf(cast.getInput().getType()).isF32())
      return cast.getInput();
  return bias;
}

/// Whether the bias_add adds along the last dimension of its input.
bool onLastDim(train::BiasAddOp biasAdd) {
  int64_t rank = cast<ShapedType>(biasAdd.getX().getType()).getRank();
  int64_t dim = biasAdd.getDim();
  return dim == -1 || dim == rank - 1;
}

/// The ReLU that can be folded into the epilogue producing `pre`: `pre`'s
/// users are exactly one train.relu and any number of train.relu_grad ops
/// reading it as their forward input (never as their incoming gradient),
/// all after the relu in the same block, so that they can read the relu's
/// output instead. Null otherwise.
train::ReluOp foldableRelu(Value pre) {
  train::ReluOp relu;
  for (Operation *user : pre.getUsers()) {
    if (auto r = dyn_cast<train::ReluOp>(user)) {
      if (relu)
        return {};
      relu = r;
      continue;
    }
    auto grad = dyn_cast<train::ReluGradOp>(user);
    if (!grad || grad.getGrad() == pre)
      return {};
  }
  if (!relu)
    return {};
  for (Operation *user : pre.getUsers())
    if (user != relu &&
        (user->getBlock() != relu->getBlock() || !relu->isBeforeInBlock(user)))
      return {};
  return relu;
}

/// Fuses the epilogue of `matmul`, if any; true when it changed the IR.
bool fuse(train::MatmulOp matmul) {
  Value tail = matmul.getResult();
  SmallVector<Operation *> chain = {matmul};
  Value bias;
  if (tail.hasOneUse()) {
    auto biasAdd = dyn_cast<train::BiasAddOp>(*tail.getUsers().begin());
    if (biasAdd && biasAdd.getX() == tail && onLastDim(biasAdd) &&
        biasAdd->getBlock() == matmul->getBlock()) {
      bias = epilogueBias(biasAdd);
      tail = biasAdd.getResult();
      chain.push_back(biasAdd);
    }
  }
  train::ReluOp relu = foldableRelu(tail);
  if (relu && relu->getBlock() != matmul->getBlock())
    relu = {};
  if (!bias && !relu)
    return false;

  // The fused op replaces the last op of the chain: every operand (the
  // bias may be defined after the matmul) is defined before it.
  Operation *last = relu ? relu.getOperation() : chain.back();
  SmallVector<Location> locs;
  for (Operation *op : chain)
    locs.push_back(op->getLoc());
  if (relu)
    locs.push_back(relu.getLoc());
  OpBuilder builder(last);
  auto fused = mpd::MatmulEpilogueOp::create(
      builder, builder.getFusedLoc(locs), tail.getType(), matmul.getLhs(),
      matmul.getRhs(), bias, matmul.getTransposeLhs(), matmul.getTransposeRhs(),
      relu ? "relu" : "none");
  if (relu) {
    // relu_grad(dy, z) == relu_grad(dy, relu(z)): only z > 0 is read.
    relu.getResult().replaceAllUsesWith(fused.getResult());
    tail.replaceAllUsesWith(fused.getResult());
    relu->erase();
  } else {
    tail.replaceAllUsesWith(fused.getResult());
  }
  for (Operation *op : llvm::reverse(chain))
    op->erase();
  return true;
}

/// A batch norm's ReLU next to it, for the runtime to run as one pass
/// (the plan's fused activations, docs/plan-format.md): the relu of the
/// normalized y moves right after the batch_norm and the relu_grad ops
/// that read y read the relu's output instead (exact, as above), so that
/// y has no other reader; a relu_grad whose result only a
/// batch_norm_grad reads, as its incoming gradient, moves right before it.
/// True when it changed the IR.
bool placeNextToNorm(train::BatchNormOp norm) {
  train::ReluOp relu = foldableRelu(norm.getY());
  if (!relu || relu->getBlock() != norm->getBlock())
    return false;
  for (Operation *user : llvm::make_early_inc_range(norm.getY().getUsers()))
    if (user != relu)
      user->replaceUsesOfWith(norm.getY(), relu.getResult());
  if (relu->getPrevNode() != norm.getOperation())
    relu->moveAfter(norm);
  return true;
}
bool placeNextToNormGrad(train::ReluGradOp reluGrad) {
  Value result = reluGrad.getResult();
  if (!result.hasOneUse())
    return false;
  auto normGrad = dyn_cast<train::BatchNormGradOp>(*result.getUsers().begin());
  if (!normGrad || normGrad.getGradY() != result ||
      normGrad->getBlock() != reluGrad->getBlock())
    return false;
  if (reluGrad->getNextNode() != normGrad.getOperation())
    reluGrad->moveBefore(normGrad);
  return true;
}

struct FuseEpilogues : public mp::impl::FuseEpiloguesBase<FuseEpilogues> {
  void runOnOperation() override {
    getOperation()->walk([](train::BatchNormOp norm) { placeNextToNorm(norm); });
    getOperation()->walk(
        [](train::ReluGradOp reluGrad) { placeNextToNormGrad(reluGrad); });
    SmallVector<train::MatmulOp> matmuls;
    getOperation()->walk([&](train::MatmulOp op) { matmuls.push_back(op); });
    SmallVector<mpd::CastOp> biasCasts;
    for (train::MatmulOp matmul : matmuls) {
      // The bias cast, if any, may become dead once the bias_add is gone.
      mpd::CastOp cast;
      if (matmul.getResult().hasOneUse())
        if (auto biasAdd = dyn_cast<train::BiasAddOp>(
                *matmul.getResult().getUsers().begin()))
          cast = biasAdd.getBias().getDefiningOp<mpd::CastOp>();
      if (fuse(matmul) && cast && cast->use_empty())
        cast->erase();
    }
  }
};

} // namespace
