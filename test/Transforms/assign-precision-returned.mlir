// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16" | FileCheck %s -DLOW=f16
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_bfloat16" | FileCheck %s -DLOW=bf16
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16" --mp-insert-casts | FileCheck %s --check-prefix=CASTS

// PrecisionAnalysis.h: "Ops whose results the function returns stay fp32
// (TensorFlow's fetch nodes)": an allow, infer or clear op whose result is
// returned is fp32 with rule "returned" and spreads nothing; a returned
// deny op stays a deny op. No cast is needed at the return.

// CHECK-LABEL: func.func @returned(
// CHECK-NEXT: train.matmul {{.*}}{mp.precision = {category = "allow", dtype = [[LOW]], rule = "allow", source = "default-list"}}
// CHECK-NEXT: train.relu {{.*}}{mp.precision = {category = "clear", dtype = f32, rule = "returned", source = "default-list"}}
// CHECK-NEXT: train.matmul {{.*}}{mp.precision = {category = "allow", dtype = f32, rule = "returned", source = "default-list"}}
// CHECK-NEXT: train.exp {{.*}}{mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "default-list"}}
// CHECK-NEXT: train.add {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "returned", source = "default-list"}}
// CASTS-LABEL: func.func @returned(
// CASTS-SAME: -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)
// CASTS: [[R:%[^ ,]+]] = train.relu {{.*}} : tensor<4x4xf32>
// CASTS-NEXT: [[M:%[^ ,]+]] = train.matmul {{.*}} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CASTS-NEXT: [[E:%[^ ,]+]] = train.exp {{.*}} : tensor<4x4xf32>
// CASTS-NEXT: [[A:%[^ ,]+]] = train.add {{.*}} : tensor<4x4xf32>
// CASTS-NEXT: return [[R]], [[M]], [[E]], [[A]], %arg0 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
func.func @returned(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.relu %0 : tensor<4x4xf32>
  %2 = train.matmul %1, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = train.exp %0 : tensor<4x4xf32>
  %4 = train.add %0, %2 : tensor<4x4xf32>
  return %1, %2, %3, %4, %a : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
