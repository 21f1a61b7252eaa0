// Bad input exits non-zero with a diagnostic that names file, line and column.
// RUN: split-file %s %t
// RUN: not mp-opt %t/shape.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not mp-opt %t/unknown.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mp-opt %t/role.mlir 2>&1 | FileCheck %s --check-prefix=ROLE
// RUN: not mp-opt %t/syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not mp-opt %t/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

//--- shape.mlir
func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) -> tensor<4x16xf32> {
  %0 = train.matmul %a, %b : tensor<4x8xf32>, tensor<7x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
// SHAPE: shape.mlir:2:8: error: 'train.matmul' op contracts lhs dimension of size 8 with rhs dimension of size 7

//--- unknown.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = train.softplus %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// UNKNOWN: unknown.mlir:2:8: error: custom op 'train.softplus' is unknown

//--- role.mlir
func.func @step(%w: tensor<4xf32> {train.role = "param", train.name = "w"},
                %x: tensor<4xf32>)
    -> (tensor<f32> {train.role = "loss"},
        tensor<4xf32> {train.role = "param", train.name = "w"})
    attributes {train.step} {
  %l = train.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
// ROLE: role.mlir:1:1: error: 'func.func' op training step argument #1 has no 'train.role'

//--- syntax.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = train.relu %a : tensor<4xf32
  return %0 : tensor<4xf32>
}
// SYNTAX: syntax.mlir:2:

//--- missing.mlir
// MISSING: cannot open input file {{.*}}does-not-exist.mlir{{.*}}: No such file or directory
