//===- MlirFuzzer.cpp - mp-opt's parse, verify and pipeline ---------------===//
//
// MLIR text parsed with every dialect mp-opt registers, verified, and put
// through the whole mixed-precision pipeline (bf16 and fp16 with loss
// scaling) and the plan builder when it has a training step. MLIR's own
// parsers crash on some malformed input (docs/reliability.md): a long run
// uses libFuzzer's -fork mode with -ignore_crashes=1 to go on past them.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "mp/InitAll.h"
#include "mp/Target/Plan/PlanBuilder.h"
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <string>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    mp::registerAllDialects(*r);
    mp::registerAllPasses();
    return r;
  }();
  MLIRContext context(*registry);
  context.loadAllAvailableDialects();
  // Diagnostics are expected: keep them off stderr.
  context.getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  // MLIR's lexer reads the buffer's terminating NUL: the input is copied
  // into a string that has one (libFuzzer's buffer does not).
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module || failed(verify(*module)))
    return 0;
  for (const char *policy : {"policy=mixed_bfloat16", "policy=mixed_float16"}) {
    OwningOpRef<ModuleOp> copy = cast<ModuleOp>((*module)->clone());
    PassManager pm(&context);
    auto options = mp::MixedPrecisionOptions::createFromString(policy);
    if (!options)
      return 0;
    mp::buildMixedPrecisionPipeline(pm, *options);
    if (failed(pm.run(*copy)))
      continue;
    for (auto fn : copy->getOps<FunctionOpInterface>())
      if (mp::train::isTrainStep(fn))
        (void)mp::buildPlan(fn, mp::PlanOptions());
  }
  return 0;
}
