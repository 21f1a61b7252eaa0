//===- ShardUpdates.cpp - ZeRO-1: each rank updates its shard -------------===//
//
// mode=zero1 of mp-data-parallel (ShardUpdates.h). A tensor of n elements
// is seen flat and cut into world-size shards of ceil(n / N) elements, the
// last padded with zeros; rank r owns [r s, (r + 1) s).
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/ShardUpdates.h"
#include "mp/Transforms/Annotations.h"
#include "mp/Transforms/Gradients.h"

#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mp;

namespace {

/// ZeRO stage 1 of a step (mode=zero1): every optimizer update runs on
/// this rank's shard of its parameter. Per bucket of gradients (in the
/// order the backward pass makes them): one train.reduce_scatter of the
/// gradients right after the last of them, one train.rank_shard of their
/// parameters, the updates retyped to shards (their optimizer state
/// arguments and results too: the memory that falls by the world size),
/// and one train.all_gather of the updated parameter shards after the
/// bucket's last update, which the step returns as the new parameters.
/// An update is a fused optimizer op, or elementwise ops from a
/// train.gradient marker (Keras' optimizers, RMSprop, Lion, ...), which
/// are sharded as they are, element by element. Clipping between the
/// gradients and the updates clips the shards: clip_grad_value
/// elementwise, clip_grad_norm as train.clip_grad_norm_shards (the norm
/// of the whole gradients).
class ShardedUpdates {
public:
  ShardedUpdates(FunctionOpInterface fn, int64_t worldSize)
      : fn(fn), body(fn.getFunctionBody().front()), worldSize(worldSize) {}

  LogicalResult shard(ArrayRef<SmallVector<Value>> buckets) {
    Operation *terminator = body.getTerminator();
    for (OpOperand *edge : findGradientEdges(body).edges) {
      if (!edge->get().hasOneUse())
        return edge->getOwner()->emitOpError()
               << "shares its gradient with another op; data-parallel=zero1 "
                  "shards each gradient for one update";
      Update update;
      update.edge = edge;
      if (isa<train::GradientOp>(edge->getOwner())) {
        if (failed(findElementwise(update)))
          return failure();
      } else if (failed(findFused(update))) {
        return failure();
      }
      updates[edge->get()] = std::move(update);
    }
    for (ArrayRef<Value> bucket : buckets)
      if (!bucket.empty() && failed(shardBucket(bucket)))
        return failure();
    for (Operation *clip : clips)
      if (failed(shardClip(clip)))
        return failure();
    // The splats each update now reads a copy of, where nothing else does.
    for (Operation *splat : splats)
      if (splat->use_empty())
        splat->erase();
    fn.setFunctionTypeAttr(TypeAttr::get(
        FunctionType::get(fn->getContext(), body.getArgumentTypes(),
                          terminator->getOperandTypes())));
    // An update's ops may precede the reduce-scatter of its bucket (an
    // elementwise update's decay of its state before the last gradient):
    // each op after what it reads, the order otherwise kept.
    if (!sortTopologically(&body, body.without_terminator()))
      return fn.emitOpError() << "data-parallel=zero1 left a cycle in the "
                                 "step; report this step";
    return success();
  }

private:
  /// What zero1 shards per gradient: the update's ops (their results of
  /// the parameter's type become shards), the parameter's uses in them
  /// (which read its shard), its optimizer state arguments (now shards),
  /// the splat values they read (remade as shards) and the terminator
  /// operand that returns the new parameter (gathered whole).
  struct Update {
    OpOperand *edge = nullptr;
    BlockArgument param;
    SmallVector<Operation *> ops;
    SmallVector<OpOperand *> paramUses, splatUses;
    SmallVector<BlockArgument> states;
    OpOperand *returned = nullptr;
  };

  bool isArgument(Value value, train::Role role, BlockArgument &arg) {
    arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner() == &body &&
           train::getArgRole(fn, arg.getArgNumber()) == role;
  }

  /// The update a gradient enters through `edge`: a fused optimizer, or
  /// one after a clip of the gradients.
  LogicalResult findFused(Update &update) {
    OpOperand *edge = update.edge;
    Operation *owner = edge->getOwner();
    if (!(isa<train::OptimizerOpInterface>(owner) &&
          edge->getOperandNumber() == 1)) {
      if (!isa<train::ClipGradNormOp, train::ClipGradValueOp>(owner))
        return owner->emitOpError()
               << "reads the gradients before an update; under "
                  "data-parallel=zero1 each rank holds only its shards of "
                  "them, and this transform of them is not built over "
                  "shards: use data-parallel=allreduce (docs/distributed.md)";
      auto transform = cast<train::GradientTransformOpInterface>(owner);
      unsigned index =
          edge->getOperandNumber() - transform.getGradientOperands()
                                         .getAsOperandRange()
                                         .getBeginOperandIndex();
      Value clipped = owner->getResult(index);
      Operation *user =
          clipped.hasOneUse() ? clipped.getUses().begin()->getOwner() : nullptr;
      if (!user || !isa<train::OptimizerOpInterface>(user) ||
          clipped.getUses().begin()->getOperandNumber() != 1)
        return owner->emitOpError()
               << "result #" << index
               << " is read by something other than one optimizer update; "
                  "data-parallel=zero1 clips the shards each update reads";
      clips.insert(owner);
      owner = user;
    }
    Value param = owner->getOperand(0);
    if (!isArgument(param, train::Role::Param, update.param))
      return owner->emitOpError()
             << "updates a value that is not a parameter of the step; "
                "data-parallel=zero1 shards parameters' updates only";
    Type type = param.getType();
    for (unsigned i = 2, e = owner->getNumOperands(); i < e; ++i) {
      Value state = owner->getOperand(i);
      if (state.getType() != type)
        continue;
      BlockArgument stateArg;
      if (!isArgument(state, train::Role::OptState, stateArg) ||
          !state.hasOneUse())
        return owner->emitOpError()
               << "reads operand #" << i
               << " as optimizer state, but it is not an optimizer-state "
                  "argument of the step that only this update reads; "
                  "data-parallel=zero1 cannot shard it";
      update.states.push_back(stateArg);
    }
    if (owner->getNumResults() != update.states.size() + 1)
      return owner->emitOpError()
             << "has " << owner->getNumResults() << " results for "
             << update.states.size() + 1
             << " parameter and state operands; data-parallel=zero1 "
                "cannot pair them";
    Operation *terminator = body.getTerminator();
    for (Value result : owner->getResults())
      if (!result.hasOneUse() ||
          result.getUses().begin()->getOwner() != terminator)
        return owner->emitOpError()
               << "its new parameter or state is read inside the step or "
                  "returned twice; under data-parallel=zero1 the update "
                  "runs on shards";
    update.ops.push_back(owner);
    update.paramUses.push_back(&owner->getOpOperand(0));
    update.returned = &*owner->getResult(0).getUses().begin();
    return success();
  }

  /// An update written as elementwise ops on a train.gradient marker: the
  /// ops that read the marked gradient, their state arguments, or ops of
  /// its type computed from the parameter, the state and splat values
  /// only; every one elementwise, every value of the parameter's type,
  /// read only by each other and the step's results.
  LogicalResult findElementwise(Update &update) {
    Operation *marker = update.edge->getOwner();
    Type type = marker->getResult(0).getType();
    Operation *terminator = body.getTerminator();
    auto refuse = [&](Operation *op, const Twine &why) {
      return op->emitOpError()
             << why
             << "; data-parallel=zero1 shards an optimizer written as "
                "elementwise ops when it is elementwise on its parameter's "
                "shape throughout (docs/distributed.md)";
    };
    llvm::SetVector<Operation *> slice;
    SmallVector<Operation *> work = {marker};
    slice.insert(marker);
    // Forward from the marker and from every state the slice reads;
    // backward into elementwise ops computed from the parameter and
    // splats (weight decay).
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (user != terminator && slice.insert(user))
            work.push_back(user);
      if (op == marker)
        continue;
      if (!train::isElementwise(op) || op->getResult(0).getType() != type)
        return refuse(op, "is not elementwise on the parameter's type");
      for (OpOperand &use : op->getOpOperands()) {
        Value value = use.get();
        BlockArgument arg;
        if (isArgument(value, train::Role::Param, arg)) {
          if (update.param && update.param != arg)
            return refuse(op, "reads two parameters");
          update.param = arg;
          update.paramUses.push_back(&use);
        } else if (isArgument(value, train::Role::OptState, arg)) {
          if (!llvm::is_contained(update.states, arg))
            update.states.push_back(arg);
          for (Operation *user : arg.getUsers())
            if (slice.insert(user))
              work.push_back(user);
        } else if (Operation *def = value.getDefiningOp()) {
          if (slice.contains(def))
            continue;
          if (isSplat(def)) {
            update.splatUses.push_back(&use);
          } else if (train::isElementwise(def)) {
            if (slice.insert(def))
              work.push_back(def);
          } else {
            return refuse(op, "reads a value the update does not compute");
          }
        } else {
          return refuse(op, "reads an argument that is neither its "
                            "parameter nor its optimizer state");
        }
      }
    }
    if (!update.param)
      return refuse(marker, "starts an update that reads no parameter");
    for (Operation *op : slice)
      for (OpOperand &use : op->getResult(0).getUses())
        if (use.getOwner() == terminator) {
          unsigned i = use.getOperandNumber();
          auto role = train::getResultRole(fn, i);
          if (role == train::Role::Param &&
              train::getResultName(fn, i) ==
                  train::getArgName(fn, update.param.getArgNumber())) {
            if (update.returned)
              return refuse(op, "returns its parameter twice");
            update.returned = &use;
          } else if (role != train::Role::OptState) {
            return refuse(op, "is returned as neither the parameter nor "
                              "optimizer state");
          }
        } else if (!slice.contains(use.getOwner())) {
          return refuse(use.getOwner(), "reads a value of an update");
        }
    for (BlockArgument state : update.states)
      for (Operation *user : state.getUsers())
        if (!slice.contains(user))
          return refuse(user, "reads an optimizer state the update owns");
    if (!update.returned)
      return refuse(marker, "starts an update whose parameter the step "
                            "does not return");
    update.ops.assign(slice.begin(), slice.end());
    return success();
  }

  /// A value the same everywhere: a fill, or a broadcast of a 0-d value.
  static bool isSplat(Operation *def) {
    if (isa<train::FillOp>(def))
      return true;
    auto broadcast = dyn_cast<train::BroadcastOp>(def);
    return broadcast &&
           cast<ShapedType>(broadcast->getOperand(0).getType()).getRank() == 0;
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
      Value param = updates.lookup(grad).param;
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
      const Update &update = updates.find(grad)->second;
      Type whole = update.param.getType();
      update.edge->set(scattered.getResult(i));
      for (OpOperand *use : update.paramUses)
        use->set(own.getResult(i));
      for (BlockArgument state : update.states) {
        // The whole shape, for the plan (checkpoints keep it whole).
        fn.setArgAttr(state.getArgNumber(), kShardOfAttrName,
                      DenseI64ArrayAttr::get(
                          fn->getContext(),
                          cast<ShapedType>(state.getType()).getShape()));
        state.setType(shardType(state.getType()));
      }
      for (OpOperand *use : update.splatUses) {
        // Its own copy, of the shard's type, right before its reader.
        OpBuilder at(use->getOwner());
        splats.insert(use->get().getDefiningOp());
        Operation *copy = at.clone(*use->get().getDefiningOp());
        copy->getResult(0).setType(shardType(whole));
        use->set(copy->getResult(0));
      }
      for (Operation *op : update.ops) {
        for (Value result : op->getResults())
          if (result.getType() == whole)
            result.setType(shardType(whole));
        if (!lastUpdate || lastUpdate->isBeforeInBlock(op))
          lastUpdate = op;
      }
      newShards.push_back(update.returned->get());
      returned.push_back(update.returned);
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

  FunctionOpInterface fn;
  Block &body;
  int64_t worldSize;
  llvm::DenseMap<Value, Update> updates;
  llvm::SetVector<Operation *> clips, splats;
};

} // namespace

LogicalResult mp::shardUpdates(FunctionOpInterface fn,
                               ArrayRef<SmallVector<Value>> buckets,
                               int64_t worldSize) {
  return ShardedUpdates(fn, worldSize).shard(buckets);
}
