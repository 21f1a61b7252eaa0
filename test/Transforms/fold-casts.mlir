// RUN: mp-opt %s -split-input-file --mp-fold-casts | FileCheck %s
// RUN: mp-opt %s -split-input-file --mp-fold-casts --mp-fold-casts | FileCheck %s
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16 fold-casts=false" | FileCheck %s --check-prefix=OFF
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16" | FileCheck %s --check-prefix=ON

// mp-fold-casts: ops that accumulate in f32 store f32 instead of a 16-bit
// result that is only cast back to f32, and read a 16-bit value directly
// instead of its widening cast. Anything else is left as it is.

// A weight-gradient matmul read only through a cast to f32 stores f32.
// CHECK-LABEL: func.func @producer
// CHECK: %[[M:.*]] = train.matmul %arg0, %arg1 {transpose_lhs} : tensor<8x4xbf16>, tensor<8x3xbf16> -> tensor<4x3xf32>
// CHECK-NOT: mp.cast
// CHECK: return %[[M]], %[[M]]
func.func @producer(%a: tensor<8x4xbf16>, %b: tensor<8x3xbf16>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = train.matmul %a, %b {transpose_lhs} : tensor<8x4xbf16>, tensor<8x3xbf16> -> tensor<4x3xbf16>
  %1 = mp.cast %0 : tensor<4x3xbf16> to tensor<4x3xf32>
  %2 = mp.cast %0 : tensor<4x3xbf16> to tensor<4x3xf32>
  return %1, %2 : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// The product is also read in bf16: it keeps its type and the cast.
// CHECK-LABEL: func.func @producer_with_low_user
// CHECK: train.matmul {{.*}} -> tensor<4x4xbf16>
// CHECK: mp.cast
// CHECK: train.relu
func.func @producer_with_low_user(%a: tensor<4x4xbf16>) -> (tensor<4x4xf32>, tensor<4x4xbf16>) {
  %0 = train.matmul %a, %a : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
  %1 = mp.cast %0 : tensor<4x4xbf16> to tensor<4x4xf32>
  %2 = train.relu %0 : tensor<4x4xbf16>
  return %1, %2 : tensor<4x4xf32>, tensor<4x4xbf16>
}

// -----

// A bias_add does not accumulate: its bf16 result keeps the cast.
// CHECK-LABEL: func.func @not_wide
// CHECK: train.bias_add {{.*}} : tensor<4x4xbf16>, tensor<4xbf16>
// CHECK: mp.cast {{.*}} to tensor<4x4xf32>
func.func @not_wide(%a: tensor<4x4xbf16>, %b: tensor<4xbf16>) -> tensor<4x4xf32> {
  %0 = train.bias_add %a, %b : tensor<4x4xbf16>, tensor<4xbf16>
  %1 = mp.cast %0 : tensor<4x4xbf16> to tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// A reduction reads the bf16 value itself (the widening is exact); the
// cast stays for its other reader, an op that needs f32 operands.
// CHECK-LABEL: func.func @consumer
// CHECK: %[[W:.*]] = mp.cast %arg0 : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: train.reduce_sum %arg0 {dims = array<i64: 0>} : tensor<4x8xbf16> -> tensor<8xf32>
// CHECK: train.exp %[[W]] : tensor<4x8xf32>
func.func @consumer(%a: tensor<4x8xbf16>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %0 = mp.cast %a : tensor<4x8xbf16> to tensor<4x8xf32>
  %1 = train.reduce_sum %0 {dims = array<i64: 0>} : tensor<4x8xf32> -> tensor<8xf32>
  %2 = train.exp %0 : tensor<4x8xf32>
  return %1, %2 : tensor<8xf32>, tensor<4x8xf32>
}

// -----

// The only reader folds the cast away; a narrowing cast is never folded.
// CHECK-LABEL: func.func @consumer_only
// CHECK-NEXT: %[[N:.*]] = mp.cast %arg1 : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: train.reduce_mean %arg0 {dims = array<i64: 1>} : tensor<4x8xf16> -> tensor<4xf32>
// CHECK-NEXT: train.reduce_sum %[[N]]
func.func @consumer_only(%a: tensor<4x8xf16>, %b: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = mp.cast %a : tensor<4x8xf16> to tensor<4x8xf32>
  %n = mp.cast %b : tensor<4x8xf32> to tensor<4x8xf16>
  %1 = train.reduce_mean %0 {dims = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %2 = train.reduce_sum %n {dims = array<i64: 1>} : tensor<4x8xf16> -> tensor<4xf16>
  return %1, %2 : tensor<4xf32>, tensor<4xf16>
}

// -----

// The loss gradient's verifier wants one dtype for logits and result: its
// operand keeps the cast.
// CHECK-LABEL: func.func @verifier_decides
// CHECK: %[[W:.*]] = mp.cast %arg0
// CHECK: train.sparse_cross_entropy_grad %[[W]]
func.func @verifier_decides(%l: tensor<4x10xbf16>, %y: tensor<4xi64>, %g: tensor<f32>) -> tensor<4x10xf32> {
  %0 = mp.cast %l : tensor<4x10xbf16> to tensor<4x10xf32>
  %1 = train.sparse_cross_entropy_grad %0, %y, %g : tensor<4x10xf32>, tensor<4xi64>, tensor<f32>
  return %1 : tensor<4x10xf32>
}

// The MLP under mixed_bfloat16: both weight-gradient matmuls store f32
// (with fold-casts=false they store bf16 and a cast widens them).
// OFF-COUNT-2: train.matmul {{.*}} {transpose_lhs} : tensor<{{.*}}xbf16>, tensor<{{.*}}xbf16> -> tensor<{{[0-9x]+}}xbf16>
// ON-COUNT-2: train.matmul {{.*}} {transpose_lhs} : tensor<{{.*}}xbf16>, tensor<{{.*}}xbf16> -> tensor<{{[0-9x]+}}xf32>
