// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16 summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts | FileCheck %s

// A train.fill painted low and also read by an fp32 op: mp-insert-casts
// gives the fp32 reader a fresh f32 copy of the fill (recreateEmpty), but
// the copy keeps the original's mp.precision annotation, "dtype = bf16",
// on an op whose result is f32. The report then counts it as a converted
// op: "converted 5/7 ops to bf16" where the IR has 4 ops in bf16 (fill,
// matmul, mul, matmul) and 3 in f32 (the fill copy, two exp) -- its counts
// are not those of the IR it prints.

// The second matmul, read only by an f32 exp, stores f32 itself
// (mp-fold-casts): no cast back to f32 is left.
// REMARK: remark: converted 4/{{[67]}} ops to bf16 with 2 casts (2 to bf16, 0 to f32)

// CHECK-LABEL: func.func @fill_read_by_both(
// CHECK-NOT: train.fill {{.*}}dtype = bf16{{.*}} : tensor<2x2xf32>
// CHECK: return
func.func @fill_read_by_both(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %f = train.fill 0.1 : tensor<2x2xf32>
  %0 = train.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = train.mul %0, %f : tensor<2x2xf32>
  %2 = train.matmul %1, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %3 = train.exp %f : tensor<2x2xf32>
  %4 = train.exp %2 : tensor<2x2xf32>
  return %3, %4 : tensor<2x2xf32>, tensor<2x2xf32>
}
