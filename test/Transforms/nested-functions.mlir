// The passes visit every function of the module, also those in nested
// modules (a host compiler's device or executable modules): the matmul of
// @inner is painted like a top-level one, and the upstream-only output
// parses in upstream's own mlir-opt.
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16 cast-op=arith summary=true" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.mlir
// RUN: %upstream-mlir-opt %t.mlir -o /dev/null

// REMARK-DAG: remark: converted 1/1 ops to bf16
// REMARK-DAG: remark: converted 1/1 ops to bf16

// CHECK-LABEL: func.func @outer
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x16xbf16>)
// CHECK: module @device
// CHECK-LABEL: func.func @inner
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x16xbf16>)

func.func @outer(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %mm : tensor<4x16xf32>
}

module @device {
  func.func @inner(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<4x16xf32>
    %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
    return %mm : tensor<4x16xf32>
  }
}
