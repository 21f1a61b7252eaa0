// A matmul the input already writes as bf16 x bf16 -> f32 keeps its f32
// result under mixed_bfloat16 (narrowing it would undo the user's choice);
// ordinary f32 matmuls around it are converted as usual; the second one,
// read only by an f32 exp, then stores its f32 accumulator itself
// (mp-fold-casts) instead of rounding to bf16 and casting back.
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16" | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK: train.matmul %{{.*}}, %{{.*}} : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xf32>
// CHECK: %[[LHS:.*]] = mp.cast %{{.*}} : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK: train.matmul %[[LHS]], %{{.*}} : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xf32>
// CHECK-NOT: mp.cast
// CHECK: train.exp
func.func @f(%a: tensor<4x4xbf16>, %b: tensor<4x4xbf16>, %c: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xf32>
  %1 = train.matmul %0, %c : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = train.exp %1 : tensor<4x4xf32>
  return %0, %2 : tensor<4x4xf32>, tensor<4x4xf32>
}
