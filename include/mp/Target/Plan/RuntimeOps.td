//===- RuntimeOps.td - every op a plan can run ---------------*- tablegen -*-===//
//
// What mp-tblgen reads to write the runtime's op table
// (runtime/include/mp/runtime/OpTable.h): the train and mp dialects.
//
//===----------------------------------------------------------------------===//

include "mp/IR/Vocabulary.td"
include "mp/Dialect/Train/IR/TrainOps.td"
include "mp/Dialect/MP/IR/MPOps.td"
