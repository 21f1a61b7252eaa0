// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_float16 loss-scale=none" | FileCheck %s

// A matmul that already computes in bf16 with an f32 result (legal input:
// "bf16 x bf16 -> f32 is a product accumulated and stored in f32") is
// painted allow under mixed_float16 through its f32 result. mp-insert-casts
// leaves the bf16 operands alone (only f32 operands are cast) but retypes
// the result to f16, and the output does not verify: "'train.matmul' op
// expects a result element type of 'bf16' or f32 (never narrower than the
// input) but got 'f16'". Expected: an op whose float operands already have
// another 16-bit type is left as it is (or converted consistently); the
// pipeline must never produce invalid IR.

// CHECK-LABEL: func.func @bf16_matmul_f32_result(
// CHECK: train.matmul {{%[^ ,]+}}, {{%[^ ,]+}} : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xf32>
func.func @bf16_matmul_f32_result(%a: tensor<4x4xbf16>, %b: tensor<4x4xbf16>) -> tensor<f32> {
  %0 = train.matmul %a, %b : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xf32>
  %1 = train.reduce_sum %0 {dims = array<i64: 0, 1>} : tensor<4x4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
