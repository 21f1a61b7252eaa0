// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16" | FileCheck %s
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_float16" | FileCheck %s --check-prefix=F16
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16 recompute-casts=false" | FileCheck %s --check-prefix=OFF
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=float32" | FileCheck %s --check-prefix=FP32
// RUN: mp-opt %s -split-input-file --mp-recompute-casts | FileCheck %s --check-prefix=UNIT

// The input's bf16 copy feeds the first layer forward and its weight
// gradient: the backward pass casts the input again, right before that
// matmul, so the forward copy is not held across the step. The weights'
// casts are left alone. The logits' widening for the loss gradient moves
// after the seed: the bf16 logits are what the step holds.
// CHECK: %[[X:.*]] = mp.cast %arg0 : tensor<32x784xf32> to tensor<32x784xbf16>
// CHECK-NEXT: mp.cast %arg2
// CHECK: mp.matmul_epilogue %[[X]], {{.*}} {activation = "relu"}
// CHECK: %[[LOGITS:.*]] = mp.matmul_epilogue
// CHECK-NOT: mp.cast %arg2
// CHECK: train.grad_seed
// CHECK-NEXT: %[[WIDE:.*]] = mp.cast %[[LOGITS]] : tensor<32x10xbf16> to tensor<32x10xf32>
// CHECK-NEXT: train.sparse_cross_entropy_grad %[[WIDE]]
// CHECK-NOT: %[[X]]
// CHECK: %[[X2:.*]] = mp.cast %arg0 : tensor<32x784xf32> to tensor<32x784xbf16>
// CHECK-NEXT: train.matmul %[[X2]], {{.*}} {transpose_lhs}
// CHECK-NOT: mp.cast %arg2

// F16-COUNT-2: mp.cast %arg0 : tensor<32x784xf32> to tensor<32x784xf16>

// OFF-COUNT-1: mp.cast %arg0
// OFF-NOT: mp.cast %arg0

// FP32-NOT: mp.cast

// Only a cast read on both sides of the seed whose source is kept anyway
// is copied; one read only before it and a cast of a param stay single.
// UNIT-LABEL: func.func @step
// UNIT: %[[A:.*]] = mp.cast %arg0
// UNIT-NEXT: %[[B:.*]] = mp.cast %arg1
// UNIT-NEXT: %[[W:.*]] = mp.cast %arg2
// UNIT: train.grad_seed
// UNIT-NEXT: %[[A2:.*]] = mp.cast %arg0
// UNIT-NEXT: train.mul %[[A2]], %[[W]]
// UNIT-NOT: mp.cast %arg
// UNIT: return
func.func @step(%x: tensor<4xf32> {train.role = "input"},
                %z: tensor<4xf32> {train.role = "input"},
                %w: tensor<4xf32> {train.name = "w", train.role = "param"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4xf32> {train.name = "w", train.role = "param"})
    attributes {train.step} {
  %a = mp.cast %x : tensor<4xf32> to tensor<4xbf16>
  %b = mp.cast %z : tensor<4xf32> to tensor<4xbf16>
  %wb = mp.cast %w : tensor<4xf32> to tensor<4xbf16>
  %p = train.mul %a, %wb : tensor<4xbf16>
  %q = train.add %p, %b : tensor<4xbf16>
  %l = train.reduce_sum %q {dims = array<i64: 0>} : tensor<4xbf16> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %g = train.mul %a, %wb : tensor<4xbf16>
  %gf = mp.cast %g : tensor<4xbf16> to tensor<4xf32>
  %nw = train.sgd %w, %gf {lr = 1.0e-01 : f64} : tensor<4xf32>
  return %l, %nw : tensor<f32>, tensor<4xf32>
}

// -----

// A value read after the seed by a kernel of its own (f32 probabilities for
// the softmax gradient) is cast again there; a value that is not (h) keeps
// its single cast: copying it would hold h instead of its copy.
// UNIT-LABEL: func.func @kept
// UNIT: %[[P:.*]] = train.softmax
// UNIT-NEXT: %[[PB:.*]] = mp.cast %[[P]]
// UNIT-NEXT: %[[H:.*]] = train.relu
// UNIT-NEXT: %[[HB:.*]] = mp.cast %[[H]]
// UNIT: train.grad_seed
// UNIT-NEXT: %[[PB2:.*]] = mp.cast %[[P]]
// UNIT-NEXT: train.mul %[[PB2]], %[[HB]]
// UNIT-NEXT: mp.cast
// UNIT-NEXT: train.softmax_grad {{.*}}, %[[P]]
func.func @kept(%x: tensor<4xf32> {train.role = "input"},
                %w: tensor<4xf32> {train.name = "w", train.role = "param"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4xf32> {train.name = "w", train.role = "param"})
    attributes {train.step} {
  %p = train.softmax %x : tensor<4xf32>
  %pb = mp.cast %p : tensor<4xf32> to tensor<4xbf16>
  %h = train.relu %x : tensor<4xf32>
  %hb = mp.cast %h : tensor<4xf32> to tensor<4xbf16>
  %m = train.mul %pb, %hb : tensor<4xbf16>
  %l = train.reduce_sum %m {dims = array<i64: 0>} : tensor<4xbf16> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %d = train.mul %pb, %hb : tensor<4xbf16>
  %df = mp.cast %d : tensor<4xbf16> to tensor<4xf32>
  %g = train.softmax_grad %df, %p : tensor<4xf32>
  %nw = train.sgd %w, %g {lr = 1.0e-01 : f64} : tensor<4xf32>
  return %l, %nw : tensor<f32>, tensor<4xf32>
}
