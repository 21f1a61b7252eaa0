//===- SyncBatchNorm.h - Batch statistics over every rank -------*- C++ -*-===//
//
// mp-data-parallel's sync-batch-norm (docs/distributed.md): each training
// batch norm of a step, and its gradient, rewritten into reductions over
// the whole global batch (PyTorch's SyncBatchNorm).
//
//===----------------------------------------------------------------------===//
#ifndef MP_TRANSFORMS_SYNCBATCHNORM_H
#define MP_TRANSFORMS_SYNCBATCHNORM_H

#include "mlir/IR/Block.h"
#include "mlir/Support/LogicalResult.h"

namespace mp {

/// Rewrites every train.batch_norm of `body` (and the train.batch_norm_grad
/// reading its saved statistics) so that the mean, the variance and the
/// gradient's two per-feature means are those of the global batch:
/// per-rank means combined by train.all_reduce (every rank's part of the
/// batch is the same size), the variance in two passes (the global mean
/// first), the running variance unbiased by the global count. Fails, with
/// a diagnostic, on a gradient that does not read a rewritten batch norm's
/// statistics.
mlir::LogicalResult synchronizeBatchNorms(mlir::Block &body);

} // namespace mp

#endif // MP_TRANSFORMS_SYNCBATCHNORM_H
