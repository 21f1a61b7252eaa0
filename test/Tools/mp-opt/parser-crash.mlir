// MLIR 22's linalg.transpose parser crashes (a segfault in
// NamedAttrList::set) after it reports an unterminated `permutation`
// (Debian's mlir-opt 22.1.8 too). mp-opt and mp-compile run in a crash
// recovery context: the error, then their own message, exit code 1.
// RUN: not mp-opt %s 2>&1 | FileCheck %s
// RUN: not mp-compile %s -o %t.plan 2>&1 | FileCheck %s --check-prefix=COMPILE
// CHECK: error: expected ']'
// CHECK: mp-opt: error: the input crashed MLIR while it was read or processed
// COMPILE: error: expected ']'
// COMPILE: mp-compile: error: the input crashed MLIR while it was read or compiled
func.func @t(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, 0
  return %0 : tensor<3x2xf32>
}
