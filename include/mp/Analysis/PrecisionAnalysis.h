//===- PrecisionAnalysis.h - which ops compute in 16 bits -------*- C++ -*-===//
//
// Paints the ops of a function body low (16-bit) or fp32, in the spirit of
// TensorFlow's auto mixed precision, in time linear in the size of the
// graph. Ops whose convertible results the function returns stay fp32
// (TensorFlow's fetch nodes), unless forced low. Then:
//   1. allow ops are low;
//   2. deny spreads forward through infer and clear ops that lead to an
//      infer or deny op;
//   3. infer and clear ops both downstream and upstream of allow ops are low;
//   4. (bf16 only) in block order, an infer or clear op with a low input
//      and no denied input is low (TensorFlow does this for infer ops; doing
//      it for clear ops too lets low flow through a reshape into an add);
//   5. low spreads through clear ops in both directions.
// Everything else stays fp32. Only ops directly in the function body are
// painted; ops in nested regions stay as they are, and so do ops with
// regions unless their PrecisionOpInterface says how to convert them.
//
//===----------------------------------------------------------------------===//
#ifndef MP_ANALYSIS_PRECISIONANALYSIS_H
#define MP_ANALYSIS_PRECISIONANALYSIS_H

#include "mp/Analysis/PrecisionPolicy.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mp {

/// How the painting treats an op, after the policy has been applied.
enum class NodeKind {
  Allow,
  Deny,
  Infer,
  Clear,
  /// fp32 without spreading: removed from its list, forced to fp32, or
  /// without any float value to convert.
  Fixed,
};

struct PrecisionDecision {
  bool low = false;
  NodeKind kind = NodeKind::Fixed;
  /// The category before painting, or none (unlisted / no interface).
  std::optional<PrecisionCategory> category;
  /// Short name of the rule that decided (see docs/precision.md).
  llvm::StringRef rule;
  /// Where the category came from: default-list, user-list, forced-low,
  /// forced-fp32, removed-by-user, unlisted-on-target, no-interface.
  llvm::StringRef source;
};

/// Whether operand / result `index` of `op` takes the op's compute dtype:
/// the interface says so; an op without it lets every float value follow
/// (it only converts when a user puts it on a list).
bool isOperandConvertible(mlir::Operation *op, unsigned index);
bool isResultConvertible(mlir::Operation *op, unsigned index);

/// Whether every element of a float constant converts to `type` without
/// overflowing to inf or underflowing to zero.
bool constantFits(mlir::Attribute value, mlir::FloatType type);

/// Whether `type` is a ranked tensor of f32 or `computeType`: a value the
/// painting may give the compute dtype. Scalars are left alone.
bool isPaintableType(mlir::Type type, mlir::Type computeType);

class PrecisionAnalysis {
public:
  /// `residual`: ops kept fp32 as deny ops with the rule "residual" (the
  /// residual stream, mp-assign-precision's residual=f32), unless forced
  /// low.
  PrecisionAnalysis(
      mlir::FunctionOpInterface fn, const PrecisionPolicy &policy,
      const llvm::SmallPtrSetImpl<mlir::Operation *> *residual = nullptr);

  /// The decision for a painted op; nullptr for ops the painting ignored
  /// (casts, terminators, ops without float values, nested ops).
  const PrecisionDecision *lookup(mlir::Operation *op) const;
  /// Painted ops in block order.
  llvm::ArrayRef<mlir::Operation *> getNodes() const { return nodes; }

private:
  void build(mlir::FunctionOpInterface fn, const PrecisionPolicy &policy,
             mlir::Type computeType);
  void paint(bool followAllow);

  const llvm::SmallPtrSetImpl<mlir::Operation *> *residual;
  llvm::SmallVector<mlir::Operation *> nodes;
  llvm::DenseMap<mlir::Operation *, unsigned> index;
  llvm::SmallVector<PrecisionDecision> decisions;
  /// Data edges between painted ops, through convertible float values.
  llvm::SmallVector<llvm::SmallVector<unsigned, 2>> fanin, fanout;
};

} // namespace mp

#endif // MP_ANALYSIS_PRECISIONANALYSIS_H
