//===- ShardUpdates.h - ZeRO-1: each rank updates its shard -----*- C++ -*-===//
//
// mp-data-parallel's mode=zero1 (docs/distributed.md): the optimizer
// updates of a step run on each rank's shard of their parameters, the
// gradients reduce-scattered and the updated parameters gathered.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TRANSFORMS_SHARDUPDATES_H
#define MP_TRANSFORMS_SHARDUPDATES_H

#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace mp {

/// Shards every update of training step `fn` over `worldSize` ranks, with
/// `buckets` the step's gradients grouped in the order the backward pass
/// makes them: per bucket a train.reduce_scatter, a train.rank_shard of
/// the parameters, the updates and their optimizer state retyped to shards
/// (marked mp.shard_of), a train.all_gather of the new parameters. Fails,
/// with a diagnostic naming the op, on an update it cannot shard.
mlir::LogicalResult
shardUpdates(mlir::FunctionOpInterface fn,
             llvm::ArrayRef<llvm::SmallVector<mlir::Value>> buckets,
             int64_t worldSize);

} // namespace mp

#endif // MP_TRANSFORMS_SHARDUPDATES_H
