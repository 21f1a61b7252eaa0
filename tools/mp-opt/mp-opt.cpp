//===- mp-opt.cpp - the mp optimizer driver -------------------------------===//
//
// mlir-opt with the train and mp dialects and the upstream dialects that
// mixed-precision graphs meet (func, arith, math, tensor, linalg, tosa).
//
//===----------------------------------------------------------------------===//
#include "mp/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mp::registerAllDialects(registry);
  mp::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mp optimizer driver\n", registry));
}
