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

// A generic whose operand comes from a clear op already painted 16-bit (the
// expand_shape of a weight broadcast into it, as torch-mlir writes batch
// norm's mean) takes it as it is: no cast back to f32 and down again.
// CHECK-LABEL: func.func @generic_reads_retyped_operand
// CHECK: %[[LOW:.*]] = tensor.expand_shape %{{.*}} : tensor<8xbf16> into tensor<8x1xbf16>
// CHECK-NOT: mp.cast %[[LOW]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[LOW]] : tensor<4x8xbf16>, tensor<8x1xbf16>) outs(%{{.*}} : tensor<4x8xbf16>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1, 0)>
func.func @generic_reads_retyped_operand(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %mean: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mean2 = tensor.expand_shape %mean [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %centered = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %mean2 : tensor<4x8xf32>, tensor<8x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %m2 = linalg.matmul ins(%centered, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %m2 : tensor<4x8xf32>
}
