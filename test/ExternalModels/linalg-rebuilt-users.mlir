// A linalg.transpose rebuilt with a 16-bit init keeps serving f32 users
// through a cast back.
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16" | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<4x8xbf16>) outs(%{{.*}} : tensor<8x4xbf16>)
// CHECK: %[[BACK:.*]] = mp.cast %[[T]] : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<8x4xbf16>, tensor<4x4xbf16>)
// CHECK: math.exp %[[BACK]] : tensor<8x4xf32>
func.func @f(%x: tensor<4x8xf32>, %w: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%t, %w : tensor<8x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %x2 = math.exp %t : tensor<8x4xf32>
  return %m, %x2 : tensor<8x4xf32>, tensor<8x4xf32>
}
