// RUN: mp-opt %s -split-input-file --mp-fuse-epilogues | FileCheck %s
// RUN: mp-opt %s -split-input-file --mp-fuse-epilogues --mp-fuse-epilogues | FileCheck %s
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16" | FileCheck %s --check-prefix=MLP
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=float32" | FileCheck %s --check-prefix=F32
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16 fuse-epilogues=false" | FileCheck %s --check-prefix=OFF

// mp-fuse-epilogues: matmul -> bias_add (last dimension) -> relu becomes one
// mp.matmul_epilogue; relu_grad ops that read the pre-activation read the
// relu's output instead.

// A linear layer with ReLU, its bias a bf16 cast of an f32 parameter: the
// epilogue reads the f32 bias, and relu_grad reads the fused result.
// CHECK-LABEL: func.func @linear_relu
// CHECK-NEXT: %[[Y:.*]] = mp.matmul_epilogue %arg0, %arg1 bias %arg2 {activation = "relu"} : tensor<8x16xbf16>, tensor<16x4xbf16>, tensor<4xf32> -> tensor<8x4xbf16>
// CHECK-NEXT: %[[G:.*]] = train.relu_grad %arg3, %[[Y]] : tensor<8x4xbf16>
// CHECK-NEXT: return %[[Y]], %[[G]]
func.func @linear_relu(%x: tensor<8x16xbf16>, %w: tensor<16x4xbf16>, %b: tensor<4xf32>, %dy: tensor<8x4xbf16>) -> (tensor<8x4xbf16>, tensor<8x4xbf16>) {
  %b16 = mp.cast %b : tensor<4xf32> to tensor<4xbf16>
  %0 = train.matmul %x, %w : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %1 = train.bias_add %0, %b16 : tensor<8x4xbf16>, tensor<4xbf16>
  %2 = train.relu %1 : tensor<8x4xbf16>
  %3 = train.relu_grad %dy, %1 : tensor<8x4xbf16>
  return %2, %3 : tensor<8x4xbf16>, tensor<8x4xbf16>
}

// -----

// All f32 (the float32 policy), batched, transposed, two relu_grads; the
// bias is defined between the matmul and the bias_add.
// CHECK-LABEL: func.func @f32_batched
// CHECK-NEXT: %[[B:.*]] = train.neg %arg2
// CHECK-NEXT: %[[Y:.*]] = mp.matmul_epilogue %arg0, %arg1 bias %[[B]] {activation = "relu", transpose_rhs} : tensor<2x8x16xf32>, tensor<4x16xf32>, tensor<4xf32> -> tensor<2x8x4xf32>
// CHECK-NEXT: train.relu_grad %arg3, %[[Y]]
// CHECK-NEXT: train.relu_grad %arg3, %[[Y]]
func.func @f32_batched(%x: tensor<2x8x16xf32>, %w: tensor<4x16xf32>, %b: tensor<4xf32>, %dy: tensor<2x8x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) {
  %0 = train.matmul %x, %w {transpose_rhs} : tensor<2x8x16xf32>, tensor<4x16xf32> -> tensor<2x8x4xf32>
  %nb = train.neg %b : tensor<4xf32>
  %1 = train.bias_add %0, %nb {dim = 2 : i64} : tensor<2x8x4xf32>, tensor<4xf32>
  %2 = train.relu %1 : tensor<2x8x4xf32>
  %3 = train.relu_grad %dy, %1 : tensor<2x8x4xf32>
  %4 = train.relu_grad %dy, %1 : tensor<2x8x4xf32>
  return %2, %3, %4 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
}

// -----

// Bias only: the pre-activation has another user (it is returned), so the
// relu stays; the cast of the bias stays for its other user.
// CHECK-LABEL: func.func @bias_only
// CHECK-NEXT: %[[C:.*]] = mp.cast %arg2
// CHECK-NEXT: %[[Y:.*]] = mp.matmul_epilogue %arg0, %arg1 bias %arg2 : tensor<8x16xbf16>, tensor<16x4xbf16>, tensor<4xf32> -> tensor<8x4xbf16>
// CHECK-NEXT: %[[R:.*]] = train.relu %[[Y]]
// CHECK-NEXT: return %[[Y]], %[[R]], %[[C]]
func.func @bias_only(%x: tensor<8x16xbf16>, %w: tensor<16x4xbf16>, %b: tensor<4xf32>) -> (tensor<8x4xbf16>, tensor<8x4xbf16>, tensor<4xbf16>) {
  %b16 = mp.cast %b : tensor<4xf32> to tensor<4xbf16>
  %0 = train.matmul %x, %w : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %1 = train.bias_add %0, %b16 : tensor<8x4xbf16>, tensor<4xbf16>
  %2 = train.relu %1 : tensor<8x4xbf16>
  return %1, %2, %b16 : tensor<8x4xbf16>, tensor<8x4xbf16>, tensor<4xbf16>
}

// -----

// ReLU alone, on a bf16 x bf16 -> f32 product.
// CHECK-LABEL: func.func @relu_only
// CHECK-NEXT: %[[Y:.*]] = mp.matmul_epilogue %arg0, %arg1 {activation = "relu", transpose_lhs} : tensor<16x8xbf16>, tensor<16x4xbf16> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @relu_only(%x: tensor<16x8xbf16>, %w: tensor<16x4xbf16>) -> tensor<8x4xf32> {
  %0 = train.matmul %x, %w {transpose_lhs} : tensor<16x8xbf16>, tensor<16x4xbf16> -> tensor<8x4xf32>
  %1 = train.relu %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// The matmul result has another user: nothing fuses.
// CHECK-LABEL: func.func @matmul_other_use
// CHECK-NOT: mp.matmul_epilogue
// CHECK: train.matmul
// CHECK: train.bias_add
// CHECK: train.relu
func.func @matmul_other_use(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = train.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = train.bias_add %0, %b : tensor<8x4xf32>, tensor<4xf32>
  %2 = train.relu %1 : tensor<8x4xf32>
  return %0, %2 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A bias on another dimension than the last: nothing fuses (the relu is
// not the matmul's only user's).
// CHECK-LABEL: func.func @bias_other_dim
// CHECK-NOT: mp.matmul_epilogue
// CHECK: train.bias_add {{.*}} {dim = 0 : i64}
func.func @bias_other_dim(%x: tensor<4x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>) -> tensor<4x4xf32> {
  %0 = train.matmul %x, %w : tensor<4x16xf32>, tensor<16x4xf32> -> tensor<4x4xf32>
  %1 = train.bias_add %0, %b {dim = 0 : i64} : tensor<4x4xf32>, tensor<4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// The pre-activation has a user that is not relu_grad (or is relu_grad's
// incoming gradient): the bias fuses, the relu stays.
// CHECK-LABEL: func.func @relu_other_use
// CHECK-NEXT: %[[Y:.*]] = mp.matmul_epilogue %arg0, %arg1 bias %arg2 : tensor<8x16xf32>, tensor<16x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: train.relu %[[Y]]
// CHECK-NEXT: train.exp %[[Y]]
// CHECK-LABEL: func.func @relu_grad_as_gradient
// CHECK-NEXT: %[[Y:.*]] = mp.matmul_epilogue %arg0, %arg1 bias %arg2 : tensor<8x16xf32>, tensor<16x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: train.relu %[[Y]]
// CHECK-NEXT: train.relu_grad %[[Y]], %arg3
func.func @relu_other_use(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = train.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = train.bias_add %0, %b : tensor<8x4xf32>, tensor<4xf32>
  %2 = train.relu %1 : tensor<8x4xf32>
  %3 = train.exp %1 : tensor<8x4xf32>
  return %2, %3 : tensor<8x4xf32>, tensor<8x4xf32>
}
func.func @relu_grad_as_gradient(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>, %z: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = train.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = train.bias_add %0, %b : tensor<8x4xf32>, tensor<4xf32>
  %2 = train.relu %1 : tensor<8x4xf32>
  %3 = train.relu_grad %1, %z : tensor<8x4xf32>
  return %2, %3 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A relu_grad before the relu (in block order) cannot read its output: the
// relu stays.
// CHECK-LABEL: func.func @relu_grad_first
// CHECK-NEXT: %[[Y:.*]] = mp.matmul_epilogue %arg0, %arg1 bias %arg2 :
// CHECK-NEXT: train.relu_grad %arg3, %[[Y]]
// CHECK-NEXT: train.relu %[[Y]]
func.func @relu_grad_first(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>, %dy: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = train.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = train.bias_add %0, %b : tensor<8x4xf32>, tensor<4xf32>
  %3 = train.relu_grad %dy, %1 : tensor<8x4xf32>
  %2 = train.relu %1 : tensor<8x4xf32>
  return %2, %3 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A plain matmul (no bias, no relu) stays a train.matmul.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: train.matmul
// CHECK-NEXT: train.exp
func.func @plain(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = train.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = train.exp %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// Batch norm and its ReLU (NHWC): the relu moves right after the
// batch_norm and the relu_grad reads the relu's output, so that y has no
// other reader; the relu_grad whose result only the batch_norm_grad reads
// (as grad_y) moves right before it. The runtime runs each pair as one
// pass (docs/plan-format.md, fused activations).
// CHECK-LABEL: func.func @batch_norm_relu
// CHECK-NEXT: %[[Y:[a-z_0-9]+]], {{.*}} = train.batch_norm %arg0
// CHECK-NEXT: %[[R:.*]] = train.relu %[[Y]]
// CHECK-NEXT: train.exp %arg1
// CHECK-NEXT: train.neg %[[R]]
// CHECK-NEXT: %[[DY:.*]] = train.relu_grad %arg4, %[[R]]
// CHECK-NEXT: train.batch_norm_grad %[[DY]], %arg0
func.func @batch_norm_relu(%x: tensor<2x4x4x8xbf16>, %s: tensor<8xf32>, %o: tensor<8xf32>, %rm: tensor<8xf32>, %g: tensor<2x4x4x8xbf16>) -> (tensor<2x4x4x8xbf16>, tensor<8xf32>, tensor<2x4x4x8xbf16>, tensor<2x4x4x8xbf16>) {
  %bn:5 = train.batch_norm %x, %s, %o, %rm, %rm {feature_dim = 3 : i64} : tensor<2x4x4x8xbf16>, tensor<8xf32>
  %e = train.exp %s : tensor<8xf32>
  %r = train.relu %bn#0 : tensor<2x4x4x8xbf16>
  %dy = train.relu_grad %g, %bn#0 : tensor<2x4x4x8xbf16>
  %n = train.neg %r : tensor<2x4x4x8xbf16>
  %d:3 = train.batch_norm_grad %dy, %x, %s, %bn#3, %bn#4 {feature_dim = 3 : i64} : tensor<2x4x4x8xbf16>, tensor<8xf32>
  return %r, %e, %n, %d#0 : tensor<2x4x4x8xbf16>, tensor<8xf32>, tensor<2x4x4x8xbf16>, tensor<2x4x4x8xbf16>
}

// -----

// y returned as well: the batch norm keeps its y and the relu stays where
// it is; a relu_grad whose result is also returned stays too.
// CHECK-LABEL: func.func @batch_norm_y_used
// CHECK-NEXT: %[[Y:[a-z_0-9]+]], {{.*}} = train.batch_norm
// CHECK-NEXT: train.exp
// CHECK-NEXT: train.relu %[[Y]]
// CHECK-NEXT: %[[DY:.*]] = train.relu_grad %arg4, %[[Y]]
// CHECK-NEXT: train.neg
// CHECK-NEXT: train.batch_norm_grad %[[DY]]
func.func @batch_norm_y_used(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %o: tensor<8xf32>, %rm: tensor<8xf32>, %g: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %bn:5 = train.batch_norm %x, %s, %o, %rm, %rm : tensor<2x8xf32>, tensor<8xf32>
  %e = train.exp %s : tensor<8xf32>
  %r = train.relu %bn#0 : tensor<2x8xf32>
  %dy = train.relu_grad %g, %bn#0 : tensor<2x8xf32>
  %n = train.neg %g : tensor<2x8xf32>
  %d:3 = train.batch_norm_grad %dy, %x, %s, %bn#3, %bn#4 : tensor<2x8xf32>, tensor<8xf32>
  return %r, %bn#0, %e, %d#0, %dy : tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// The MLP example under the pipeline: fc1 with bias and ReLU (f32 bias
// read directly), the logits with their bias; relu_grad reads fc1's output.
// MLP-LABEL: func.func @train_step
// MLP: %[[H:.*]] = mp.matmul_epilogue %{{.*}}, %{{.*}} bias %arg3 {activation = "relu"} : tensor<32x784xbf16>, tensor<784x256xbf16>, tensor<256xf32> -> tensor<32x256xbf16>
// MLP: mp.matmul_epilogue %[[H]], %{{.*}} bias %arg5 : tensor<32x256xbf16>, tensor<256x10xbf16>, tensor<10xf32> -> tensor<32x10xbf16>
// MLP: train.relu_grad %{{.*}}, %[[H]] : tensor<32x256xbf16>
// MLP-NOT: train.bias_add
// MLP-NOT: train.relu

// F32: %[[H:.*]] = mp.matmul_epilogue %arg0, %arg2 bias %arg3 {activation = "relu"} : tensor<32x784xf32>, tensor<784x256xf32>, tensor<256xf32> -> tensor<32x256xf32>
// F32: mp.matmul_epilogue %[[H]], %arg4 bias %arg5 : tensor<32x256xf32>, tensor<256x10xf32>, tensor<10xf32> -> tensor<32x10xf32>
// F32: train.relu_grad %{{.*}}, %[[H]] : tensor<32x256xf32>

// OFF-NOT: mp.matmul_epilogue
// OFF: train.bias_add
