//===- PolicyFuzzer.cpp - the JSON policy file of mp-assign-precision -----===//
//
// parsePolicyText, and the edits it returns applied to a policy (every op
// name checked against the registered dialects).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "mp/Analysis/PrecisionPolicy.h"
#include "mp/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

using namespace mp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    auto *ctx = new mlir::MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto edits = PrecisionPolicy::parsePolicyText(text, "fuzz.json");
  if (!edits) {
    llvm::consumeError(edits.takeError());
    return 0;
  }
  PrecisionPolicy policy(PolicyKind::MixedBFloat16, PrecisionTarget::CPU);
  llvm::consumeError(policy.applyEdits(context, *edits));
  return 0;
}
