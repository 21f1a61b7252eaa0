//===- TrainOps.h - train dialect ops ---------------------------*- C++ -*-===//
#ifndef MP_DIALECT_TRAIN_IR_TRAINOPS_H
#define MP_DIALECT_TRAIN_IR_TRAINOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"
#include "mp/IR/Traits.h"
#include "mp/Interfaces/PrecisionOpInterface.h"

#include "mp/Dialect/Train/IR/TrainEnums.h.inc"

namespace mp::train {
/// The i1 tensor type with the shape of `type` (a ranked tensor).
mlir::Type getI1TensorLike(mlir::Type type);

/// Dimension indices of an image tensor in `layout`.
struct ImageDims {
  unsigned n, c, h, w;
};
ImageDims imageDims(Layout layout);
/// The layout of a convolution's filter: its `filter_layout`, else the
/// one of its image layout (OIHW with NCHW, HWIO with NHWC).
FilterLayout filterLayoutOf(Layout layout,
                            std::optional<FilterLayout> filterLayout);

/// Whether `op` is a train op that computes element by element, every
/// operand and its result of one type: the same-type ops without an axis
/// (softmax has one); not the seed and gradient markers.
bool isElementwise(mlir::Operation *op);

/// The elements of one rank's shard of a tensor of `elements` elements
/// cut over `worldSize` ranks (ZeRO-1): ceil(elements / worldSize), the
/// last rank's padded with zeros (train.reduce_scatter).
int64_t shardSize(int64_t elements, int64_t worldSize);

} // namespace mp::train

#include "mp/Dialect/Train/IR/TrainInterfaces.h.inc"

#define GET_OP_CLASSES
#include "mp/Dialect/Train/IR/TrainOps.h.inc"

#endif // MP_DIALECT_TRAIN_IR_TRAINOPS_H
