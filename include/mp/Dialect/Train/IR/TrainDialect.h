//===- TrainDialect.h - train dialect ---------------------------*- C++ -*-===//
#ifndef MP_DIALECT_TRAIN_IR_TRAINDIALECT_H
#define MP_DIALECT_TRAIN_IR_TRAINDIALECT_H

#include "mlir/IR/Dialect.h"

#include "mp/Dialect/Train/IR/TrainDialect.h.inc"

#endif // MP_DIALECT_TRAIN_IR_TRAINDIALECT_H
