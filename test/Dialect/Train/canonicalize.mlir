// RUN: mp-opt %s -canonicalize -split-input-file | FileCheck %s

// train.select folding: a condition that is one constant everywhere picks
// one operand (Keras' causal mask is where(true, tril, false)), and a
// select of one value twice is that value. A condition that varies stays.

// CHECK-LABEL: func.func @splat_conditions(
// CHECK-SAME: [[A:%[^:]+]]: tensor<2x3xf32>, [[B:%[^:]+]]: tensor<2x3xf32>
// CHECK-NOT: train.select
// CHECK: return [[A]], [[B]], [[A]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
func.func @splat_conditions(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xi1>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %t = train.constant dense<true> : tensor<2x3xi1>
  %f = train.constant dense<false> : tensor<2x3xi1>
  %x = train.select %t, %a, %b : tensor<2x3xf32>
  %y = train.select %f, %a, %b : tensor<2x3xf32>
  %z = train.select %c, %a, %a : tensor<2x3xf32>
  return %x, %y, %z : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @varying_condition
// CHECK: train.select
func.func @varying_condition(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %m = train.constant dense<[true, false]> : tensor<2xi1>
  %x = train.select %m, %a, %b : tensor<2xf32>
  return %x : tensor<2xf32>
}
