//===- DataParallel.cpp - gradients averaged over the ranks ---------------===//
//
// mp-data-parallel (Passes.td): the gradients a step's updates read, in
// buckets in the order the backward pass makes them, each averaged over
// the ranks by one train.all_reduce right after its last gradient, sending
// f32 or bf16 (reduce-dtype); the buffers it updates (batch norm's running
// statistics) broadcast from rank 0; with sync-batch-norm, batch norms
// normalize with the global batch's statistics (SyncBatchNorm.h).
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Annotations.h"
#include "mp/Transforms/Functions.h"
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/Transforms/Gradients.h"
#include "mp/Transforms/SyncBatchNorm.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mp {
#define GEN_PASS_DEF_DATAPARALLEL
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// Bytes of a gradient reduced in f32.
int64_t f32Bytes(Value value) {
  auto type = cast<ShapedType>(value.getType());
  return type.getNumElements() * 4;
}

/// ZeRO stage 1 of a step (mode=zero1): every optimizer update runs on
/// this rank's shard of its parameter. Per bucket of gradients (in the
/// order the backward pass makes them): one train.reduce_scatter of the
/// gradients right after the last of them, one train.rank_shard of their
/// parameters, the updates retyped to shards (their optimizer state
/// arguments and results too: the memory that falls by the world size),
/// and one train.all_gather of the updated parameter shards after the
/// bucket's last update, which the step returns as the new parameters.
/// Clipping between the gradients and the updates clips the shards:
/// clip_grad_value elementwise, clip_grad_norm as
/// train.clip_grad_norm_shards (the norm of the whole gradients).
class ShardedUpdates {
public:
  ShardedUpdates(FunctionOpInterface fn, int64_t worldSize)
      : fn(fn), body(fn.getFunctionBody().front()), worldSize(worldSize) {}

  LogicalResult shard(ArrayRef<SmallVector<Value>> buckets) {
    if (failed(findUpdates()))
      return failure();
    for (ArrayRef<Value> bucket : buckets)
      if (!bucket.empty() && failed(shardBucket(bucket)))
        return failure();
    for (Operation *clip : clips)
      if (failed(shardClip(clip)))
        return failure();
    Operation *terminator = body.getTerminator();
    fn.setFunctionTypeAttr(TypeAttr::get(
        FunctionType::get(fn->getContext(), body.getArgumentTypes(),
                          terminator->getOperandTypes())));
    return success();
  }

private:
  /// The update a gradient enters through `edge`: the optimizer that reads
  /// it, directly or through a clip; null after an error.
  Operation *updateOf(OpOperand *edge) {
    Operation *owner = edge->getOwner();
    if (isa<train::OptimizerOpInterface>(owner) &&
        edge->getOperandNumber() == 1)
      return owner;
    if (!isa<train::ClipGradNormOp, train::ClipGradValueOp>(owner)) {
      owner->emitOpError()
          << "reads the gradients before an update; under "
             "data-parallel=zero1 each rank holds only its shards of them, "
             "and "
          << (isa<train::GradientTransformOpInterface>(owner)
                  ? "this transform of them"
                  : "an optimizer written as elementwise ops")
          << " is not built over shards: use data-parallel=allreduce "
             "(docs/distributed.md)";
      return nullptr;
    }
    auto transform = cast<train::GradientTransformOpInterface>(owner);
    unsigned index = edge->getOperandNumber() - transform.getGradientOperands()
                                                    .getAsOperandRange()
                                                    .getBeginOperandIndex();
    Value clipped = owner->getResult(index);
    Operation *update =
        clipped.hasOneUse() ? clipped.getUses().begin()->getOwner() : nullptr;
    if (!update || !isa<train::OptimizerOpInterface>(update) ||
        clipped.getUses().begin()->getOperandNumber() != 1) {
      owner->emitOpError()
          << "result #" << index
          << " is read by something other than one optimizer update; "
             "data-parallel=zero1 clips the shards each update reads";
      return nullptr;
    }
    clips.insert(owner);
    return update;
  }

  /// What zero1 needs of a gradient's consumer: one fused optimizer
  /// update (after a clip or not), whose parameter and optimizer state
  /// are the step's arguments and whose new values the step only returns.
  LogicalResult findUpdates() {
    GradientEdges gradients = findGradientEdges(body);
    Operation *terminator = body.getTerminator();
    for (OpOperand *edge : gradients.edges) {
      Operation *owner = updateOf(edge);
      if (!owner)
        return failure();
      if (!edge->get().hasOneUse())
        return edge->getOwner()->emitOpError()
               << "shares its gradient with another op; data-parallel=zero1 "
                  "shards each gradient for one update";
      Value param = owner->getOperand(0);
      auto type = cast<RankedTensorType>(param.getType());
      auto arg = dyn_cast<BlockArgument>(param);
      if (!arg || arg.getOwner() != &body ||
          train::getArgRole(fn, arg.getArgNumber()) != train::Role::Param)
        return owner->emitOpError()
               << "updates a value that is not a parameter of the step; "
                  "data-parallel=zero1 shards parameters' updates only";
      Update found{edge, owner, {}};
      for (unsigned i = 2, e = owner->getNumOperands(); i < e; ++i) {
        Value state = owner->getOperand(i);
        if (state.getType() != type)
          continue;
        auto stateArg = dyn_cast<BlockArgument>(state);
        if (!stateArg || stateArg.getOwner() != &body ||
            train::getArgRole(fn, stateArg.getArgNumber()) !=
                train::Role::OptState ||
            !state.hasOneUse())
          return owner->emitOpError()
                 << "reads operand #" << i
                 << " as optimizer state, but it is not an optimizer-state "
                    "argument of the step that only this update reads; "
                    "data-parallel=zero1 cannot shard it";
        found.states.push_back(stateArg);
      }
      if (owner->getNumResults() != found.states.size() + 1)
        return owner->emitOpError()
               << "has " << owner->getNumResults() << " results for "
               << found.states.size() + 1
               << " parameter and state operands; data-parallel=zero1 "
                  "cannot pair them";
      for (Value result : owner->getResults())
        for (Operation *user : result.getUsers())
          if (user != terminator)
            return user->emitOpError()
                   << "reads an updated parameter or optimizer state inside "
                      "the step; under data-parallel=zero1 the update runs "
                      "on shards";
      Value newParam = owner->getResult(0);
      if (!newParam.hasOneUse())
        return owner->emitOpError()
               << "returns its updated parameter "
               << (newParam.use_empty() ? "nowhere" : "more than once")
               << "; data-parallel=zero1 gathers it once";
      updates[edge->get()] = found;
    }
    return success();
  }

  RankedTensorType shardType(Type whole) const {
    auto type = cast<RankedTensorType>(whole);
    return RankedTensorType::get(
        {train::shardSize(type.getNumElements(), worldSize)},
        type.getElementType());
  }

  LogicalResult shardBucket(ArrayRef<Value> bucket) {
    Operation *lastGrad = bucket.back().getDefiningOp();
    Location loc = lastGrad->getLoc();
    OpBuilder b(lastGrad->getContext());
    b.setInsertionPointAfter(lastGrad);
    SmallVector<Type> shards, paramShards, wholes;
    SmallVector<Value> params;
    for (Value grad : bucket) {
      Value param = updates.lookup(grad).op->getOperand(0);
      shards.push_back(shardType(grad.getType()));
      params.push_back(param);
      paramShards.push_back(shardType(param.getType()));
      wholes.push_back(param.getType());
    }
    auto scattered = train::ReduceScatterOp::create(
        b, loc, shards, ValueRange(bucket), worldSize);
    auto own = train::RankShardOp::create(b, loc, paramShards,
                                          ValueRange(params), worldSize);
    Operation *lastUpdate = nullptr;
    SmallVector<Value> newShards;
    SmallVector<OpOperand *> returned;
    for (auto [i, grad] : llvm::enumerate(bucket)) {
      Update update = updates.lookup(grad);
      Operation *op = update.op;
      update.edge->set(scattered.getResult(i));
      op->setOperand(0, own.getResult(i));
      for (BlockArgument state : update.states)
        state.setType(shardType(state.getType()));
      for (Value result : op->getResults())
        result.setType(shardType(result.getType()));
      if (!lastUpdate || lastUpdate->isBeforeInBlock(op))
        lastUpdate = op;
      newShards.push_back(op->getResult(0));
      returned.push_back(&*op->getResult(0).getUses().begin());
    }
    b.setInsertionPointAfter(lastUpdate);
    auto gathered = train::AllGatherOp::create(
        b, loc, wholes, ValueRange(newShards), worldSize);
    for (auto [i, use] : llvm::enumerate(returned))
      use->set(gathered.getResult(i));
    return success();
  }

  /// A clip now reading shards: its results are shards too, and the norm
  /// clip is the whole gradients' (train.clip_grad_norm_shards).
  LogicalResult shardClip(Operation *clip) {
    auto transform = cast<train::GradientTransformOpInterface>(clip);
    OperandRange grads = transform.getGradientOperands().getAsOperandRange();
    for (Value grad : grads)
      if (Operation *def = grad.getDefiningOp())
        if (!def->isBeforeInBlock(clip))
          return clip->emitOpError()
                 << "reads a gradient before the last gradient of its bucket "
                    "is computed, where data-parallel=zero1 reduce-scatters "
                    "it; use a larger bucket-mb or report this step";
    for (auto [grad, clipped] : llvm::zip(grads, clip->getResults()))
      clipped.setType(grad.getType());
    auto norm = dyn_cast<train::ClipGradNormOp>(clip);
    if (!norm)
      return success();
    OpBuilder b(clip);
    auto sharded = train::ClipGradNormShardsOp::create(
        b, clip->getLoc(), clip->getResultTypes(), norm.getGrads(),
        norm.getMaxNormAttr(), norm.getNormTypeAttr(),
        b.getI64IntegerAttr(worldSize));
    clip->replaceAllUsesWith(sharded->getResults());
    clip->erase();
    return success();
  }

  struct Update {
    OpOperand *edge = nullptr; ///< where the gradient enters
    Operation *op = nullptr;   ///< the update
    SmallVector<BlockArgument> states;
  };
  FunctionOpInterface fn;
  Block &body;
  int64_t worldSize;
  llvm::DenseMap<Value, Update> updates;
  llvm::SetVector<Operation *> clips;
};

struct DataParallelPass : public mp::impl::DataParallelBase<DataParallelPass> {
  using DataParallelBase::DataParallelBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (mode != "off" && mode != "allreduce" && mode != "zero1")
      return emitError(UnknownLoc::get(context))
             << "mp-data-parallel: unknown mode '" << mode
             << "' (expected off, allreduce or zero1)";
    if (!train::symbolizeReduceDType(reduceDtype))
      return emitError(UnknownLoc::get(context))
             << "mp-data-parallel: unknown reduce-dtype '" << reduceDtype
             << "' (expected f32 or bf16)";
    if (!(bucketMb > 0))
      return emitError(UnknownLoc::get(context))
             << "mp-data-parallel: bucket-mb must be > 0, got " << bucketMb;
    if (mode == "zero1" && worldSize < 1)
      return emitError(UnknownLoc::get(context))
             << "mp-data-parallel: mode zero1 shards the optimizer state "
                "over a number of ranks fixed when the step is compiled: "
                "give it as world-size=N (the -np of mpirun)";
    if (mode == "zero1" && reduceDtype != "f32")
      return emitError(UnknownLoc::get(context))
             << "mp-data-parallel: mode zero1 reduce-scatters in f32; "
                "reduce-dtype="
             << reduceDtype << " is built for allreduce only";
    if (mode != "zero1" && worldSize != 0)
      return emitError(UnknownLoc::get(context))
             << "mp-data-parallel: world-size is an option of mode zero1 "
                "(allreduce runs on any number of ranks)";
    return success();
  }

  void runOnOperation() override {
    if (mode == "off")
      return;
    for (auto fn : functionsIn(getOperation()))
      if (train::isTrainStep(fn) && failed(parallelize(fn)))
        return signalPassFailure();
  }

  LogicalResult parallelize(FunctionOpInterface fn) {
    Block &body = fn.getFunctionBody().front();
    if (syncBatchNorm && hasBatchNorm(body)) {
      if (failed(synchronizeBatchNorms(body)))
        return failure();
      fn->setAttr(kSyncBatchNormAttrName, UnitAttr::get(fn->getContext()));
    }
    if (failed(broadcastBuffers(fn, body)))
      return failure();
    // The gradients, in the order the backward pass makes them.
    llvm::SetVector<Value> grads;
    for (OpOperand *edge : findGradientEdges(body).edges)
      grads.insert(edge->get());
    SmallVector<Value> ordered(grads.begin(), grads.end());
    for (Value grad : ordered)
      if (!grad.getDefiningOp())
        return fn.emitOpError()
               << "a gradient is an argument of the step: nothing computes "
                  "it, and nothing would reduce it";
    llvm::stable_sort(ordered, [](Value a, Value b) {
      return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp());
    });
    int64_t limit = static_cast<int64_t>(bucketMb * 1e6);
    SmallVector<SmallVector<Value>> buckets(1);
    int64_t bytes = 0;
    for (size_t i = 0; i < ordered.size(); ++i) {
      buckets.back().push_back(ordered[i]);
      bytes += f32Bytes(ordered[i]);
      if ((bytes >= limit || i + 1 == ordered.size())) {
        if (i + 1 != ordered.size())
          buckets.emplace_back();
        bytes = 0;
      }
    }
    if (mode == "zero1")
      return ShardedUpdates(fn, worldSize).shard(buckets);
    for (ArrayRef<Value> bucket : buckets)
      if (!bucket.empty() && failed(reduce(fn, bucket)))
        return failure();
    return success();
  }

  static bool hasBatchNorm(Block &body) {
    for (Operation &op : body)
      if (isa<train::BatchNormOp>(op))
        return true;
    return false;
  }

  /// The buffers the step updates (batch norm's running statistics, from
  /// each rank's part of the batch) become rank 0's on every rank: one
  /// train.rank_broadcast after the last of them is computed, as PyTorch
  /// DDP's broadcast_buffers keeps rank 0's. With sync-batch-norm the
  /// statistics are the global batch's and every rank computes the same
  /// running statistics; the broadcast (a few bytes per feature) stays,
  /// for any other buffer.
  LogicalResult broadcastBuffers(FunctionOpInterface fn, Block &body) {
    Operation *terminator = body.getTerminator();
    SmallVector<unsigned> results;
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      if (train::getResultRole(fn, i) == train::Role::Buffer &&
          terminator->getOperand(i).getDefiningOp())
        results.push_back(i);
    if (results.empty())
      return success();
    SmallVector<Value> values;
    Operation *last = nullptr;
    for (unsigned i : results) {
      Value value = terminator->getOperand(i);
      values.push_back(value);
      Operation *def = value.getDefiningOp();
      if (!last || last->isBeforeInBlock(def))
        last = def;
    }
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    auto broadcast = train::RankBroadcastOp::create(
        b, last->getLoc(), ValueRange(values).getTypes(), ValueRange(values));
    for (auto [i, result] : llvm::zip(results, broadcast.getResults()))
      terminator->setOperand(i, result);
    return success();
  }

  /// One train.all_reduce of `bucket` after its last gradient; every later
  /// use reads the mean.
  LogicalResult reduce(FunctionOpInterface fn, ArrayRef<Value> bucket) {
    Operation *last = bucket.back().getDefiningOp();
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    auto reduced = train::AllReduceOp::create(
        b, last->getLoc(), ValueRange(bucket).getTypes(), ValueRange(bucket),
        /*mean=*/true, *train::symbolizeReduceDType(reduceDtype));
    for (auto [grad, mean] : llvm::zip(bucket, reduced.getResults())) {
      for (OpOperand &use : llvm::make_early_inc_range(grad.getUses())) {
        Operation *user = use.getOwner();
        if (user == reduced)
          continue;
        if (user->getBlock() == reduced->getBlock() &&
            user->isBeforeInBlock(reduced))
          return user->emitOpError()
                 << "reads a gradient before the last gradient of its "
                    "bucket is computed, where data-parallel=allreduce "
                    "reduces it; use a larger bucket-mb or report this step";
        use.set(mean);
      }
    }
    return success();
  }
};

} // namespace
