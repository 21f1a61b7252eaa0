//===- Annotations.h - what the precision passes leave on ops ---*- C++ -*-===//
//
// mp-assign-precision records its decisions as attributes, so that the
// passes after it (casts, report) and tests can read them:
//   mp.precision = {category = "allow", dtype = bf16, rule = "allow",
//                   source = "default-list"}   on each painted op
//   mp.policy = "mixed_bfloat16"                on each function
// and users pin one op with mp.force = "low" | "fp32".
//
//===----------------------------------------------------------------------===//
#ifndef MP_TRANSFORMS_ANNOTATIONS_H
#define MP_TRANSFORMS_ANNOTATIONS_H

#include "mp/Analysis/PrecisionAnalysis.h"

#include "mlir/IR/Operation.h"

namespace mp {

inline constexpr llvm::StringLiteral kPrecisionAttrName = "mp.precision";
inline constexpr llvm::StringLiteral kPolicyAttrName = "mp.policy";
inline constexpr llvm::StringLiteral kForceAttrName = "mp.force";
inline constexpr llvm::StringLiteral kInitialValueAttrName = "mp.initial_value";
/// An upstream step's loss-scaling interface (docs/embedding.md): the op or
/// argument that makes the backward pass's seed, and the gradient results.
inline constexpr llvm::StringLiteral kGradSeedAttrName = "mp.grad_seed";
inline constexpr llvm::StringLiteral kGradientAttrName = "mp.gradient";
/// On a step whose batch norms mp-data-parallel synchronized over the
/// ranks (sync-batch-norm), for the report.
inline constexpr llvm::StringLiteral kSyncBatchNormAttrName =
    "mp.sync_batch_norm";
/// On an optimizer-state argument mp-data-parallel's zero1 sharded: the
/// whole tensor's shape (the plan's TensorDesc::wholeShape; checkpoints
/// keep the state whole).
inline constexpr llvm::StringLiteral kShardOfAttrName = "mp.shard_of";

/// Records `decision` on `op`; `computeType` is the policy's 16-bit type.
void setDecision(mlir::Operation *op, const PrecisionDecision &decision,
                 mlir::Type computeType);

/// The dtype recorded on `op`, or null when it was not painted.
mlir::Type getDecidedType(mlir::Operation *op);

} // namespace mp

#endif // MP_TRANSFORMS_ANNOTATIONS_H
