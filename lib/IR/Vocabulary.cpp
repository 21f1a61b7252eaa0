//===- Vocabulary.cpp - the shared vocabulary's generated functions -------===//
#include "mp/IR/Vocabulary.h"

#include "mp/IR/Vocabulary.cpp.inc"
