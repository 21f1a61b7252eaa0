//===- CApiLibrary.cpp - libmp_runtime_c.so -------------------------------===//
//
// The shared library of the C API takes the whole static runtime (CApi.cpp
// and the backends); this file only gives the target a source of its own.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/mp_runtime.h"
