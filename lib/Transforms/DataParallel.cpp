//===- DataParallel.cpp - gradients averaged over the ranks ---------------===//
//
// mp-data-parallel (Passes.td): the gradients a step's updates read, in
// buckets in the order the backward pass makes them, each averaged over
// the ranks by one train.all_reduce right after its last gradient, sending
// f32 or bf16 (reduce-dtype); the buffers it updates (batch norm's running
// statistics) broadcast from rank 0; with sync-batch-norm, batch norms
// normalize with the global batch's statistics (SyncBatchNorm.h); with
// mode=zero1, the updates sharded over the ranks instead (ShardUpdates.h).
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Annotations.h"
#include "mp/Transforms/Functions.h"
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/Transforms/Gradients.h"
#include "mp/Transforms/ShardUpdates.h"
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
      return shardUpdates(fn, buckets, worldSize);
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
