//===- embed-opt.cpp - mp's passes inside another compiler's pipeline -----===//
//
// What a host compiler does to run mp's mixed-precision pipeline on its own
// linalg / tosa IR: register its dialects (and, optionally, mp's precision
// models for them), parse, build a PassManager with
// mp::buildMixedPrecisionPipeline, run, and print.
//
//   mp-embed-opt INPUT.mlir ["pipeline options"]
//
// The options are the pipeline's (docs/precision.md), e.g.
// "policy=mixed_bfloat16 cast-op=arith"; the default is that pair, whose
// output has only upstream ops.
//
//===----------------------------------------------------------------------===//
#include "mp/ExternalModels/PrecisionModels.h"
#include "mp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: mp-embed-opt INPUT.mlir [\"pipeline options\"]\n";
    return 2;
  }
  // The host's own dialects: mp's passes bring the mp dialect (for its
  // casts before they are lowered) and the precision models themselves;
  // registering the models here too is harmless and lets analyses that
  // run before the pipeline see them.
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::tensor::TensorDialect,
                  mlir::linalg::LinalgDialect, mlir::tosa::TosaDialect,
                  mlir::scf::SCFDialect>();
  mp::registerPrecisionExternalModels(registry);
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1; // the parser said why

  mp::MixedPrecisionOptions options;
  llvm::StringRef text =
      argc == 3 ? argv[2] : "policy=mixed_bfloat16 cast-op=arith";
  if (mlir::failed(options.parseFromString(text))) {
    llvm::errs() << "mp-embed-opt: bad pipeline options '" << text << "'\n";
    return 2;
  }
  mlir::PassManager pm(&context);
  mp::buildMixedPrecisionPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1; // the passes said why
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
