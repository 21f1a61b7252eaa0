//===- MPPlugin.cpp - mp for mlir-opt-style tools -------------------------===//
//
// One shared object, two plugin entry points: as a dialect plugin it adds
// the train and mp dialects and the precision models of the upstream ops
// (linalg, arith, math, tensor, tosa) to the tool's registry; as a pass
// plugin it registers mp's passes and the --mp-mixed-precision pipeline.
// Both are needed: without the models the passes see no upstream op as
// paintable (docs/embedding.md).
//
//===----------------------------------------------------------------------===//
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"
#include "mp/ExternalModels/PrecisionModels.h"
#include "mp/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "mp", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            // The host tool has the upstream dialects already; the models
            // attach to them when they load.
            registry->insert<mp::train::TrainDialect, mp::mpd::MPDialect>();
            mp::registerPrecisionExternalModels(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "mp", LLVM_VERSION_STRING, [] {
            // mp's passes only: the host has the upstream ones.
            mp::registerMPPasses();
            mp::registerMixedPrecisionPipeline();
          }};
}
