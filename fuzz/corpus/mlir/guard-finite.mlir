// mp-guard-finite: a step without loss scaling checks the gradients its
// optimizers read with one mp.all_finite after the last of them, returned
// as a `check` result named finite_gradients (the runtime keeps the step's
// state only when it holds). Loss-scaled steps, steps without updates and
// steps already guarded are left alone.
// RUN: mp-opt %s -split-input-file --mp-guard-finite | FileCheck %s
// RUN: mp-opt %s -split-input-file --mp-guard-finite --mp-guard-finite | FileCheck %s
// The pipeline: on by default where there is no loss scaling, off with
// check-finite=false, and not added next to dynamic loss scaling.
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=float32" | FileCheck %s --check-prefix=PIPE
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16" | FileCheck %s --check-prefix=PIPE
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=float32 check-finite=false" | FileCheck %s --check-prefix=OFF
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_float16" | FileCheck %s --check-prefix=F16

// CHECK-LABEL: func.func @step(
// CHECK-SAME: -> (tensor<f32> {train.role = "loss"}, tensor<4x4xf32> {train.name = "w", train.role = "param"}, tensor<4xf32> {train.name = "b", train.role = "param"}, tensor<4x4xf32> {train.name = "w.momentum_buffer", train.role = "opt_state"}, tensor<i1> {train.name = "finite_gradients", train.role = "check"})
// CHECK: [[DW:%[^ ]+]] = train.matmul {{.*}}transpose_lhs
// CHECK-NEXT: [[DB:%[^ ]+]] = train.reduce_sum
// CHECK-NEXT: [[OK:%[^ ]+]] = mp.all_finite [[DW]], [[DB]] : tensor<4x4xf32>, tensor<4xf32>
// CHECK-NOT: mp.all_finite
// CHECK: return {{.*}}, [[OK]] : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<i1>
func.func @step(%x: tensor<8x4xf32> {train.role = "input"},
                %labels: tensor<8xi64> {train.role = "label"},
                %w: tensor<4x4xf32> {train.role = "param", train.name = "w"},
                %bias: tensor<4xf32> {train.role = "param", train.name = "b"},
                %mom: tensor<4x4xf32> {train.role = "opt_state", train.name = "w.momentum_buffer"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4x4xf32> {train.role = "param", train.name = "w"},
        tensor<4xf32> {train.role = "param", train.name = "b"},
        tensor<4x4xf32> {train.role = "opt_state", train.name = "w.momentum_buffer"})
    attributes {train.step} {
  %mm = train.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %h = train.bias_add %mm, %bias : tensor<8x4xf32>, tensor<4xf32>
  %loss = train.sparse_cross_entropy %h, %labels : tensor<8x4xf32>, tensor<8xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %dh = train.sparse_cross_entropy_grad %h, %labels, %seed : tensor<8x4xf32>, tensor<8xi64>, tensor<f32>
  %dw = train.matmul %x, %dh {transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %db = train.reduce_sum %dh {dims = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32>
  %nw:2 = train.sgd_momentum %w, %dw, %mom {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4x4xf32>
  %nb = train.sgd %bias, %db {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %nw#0, %nb, %nw#1 : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>
}

// -----

// A forward-only step (no optimizer): nothing to guard.
// CHECK-LABEL: func.func @eval(
// CHECK-SAME: -> (tensor<f32> {train.role = "loss"}, tensor<4x4xf32> {train.name = "w", train.role = "param"}) attributes
// CHECK-NOT: mp.all_finite
func.func @eval(%x: tensor<8x4xf32> {train.role = "input"},
                %labels: tensor<8xi64> {train.role = "label"},
                %w: tensor<4x4xf32> {train.role = "param", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4x4xf32> {train.role = "param", train.name = "w"})
    attributes {train.step} {
  %mm = train.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %loss = train.sparse_cross_entropy %mm, %labels : tensor<8x4xf32>, tensor<8xi64> -> tensor<f32>
  return %loss, %w : tensor<f32>, tensor<4x4xf32>
}

// PIPE: func.func @train_step(
// PIPE-SAME: tensor<i1> {train.name = "finite_gradients", train.role = "check"}
// PIPE: mp.all_finite
// PIPE-NOT: mp.all_finite
// OFF-NOT: finite_gradients
// OFF-NOT: mp.all_finite
// F16-NOT: finite_gradients
// F16: mp.unscale_and_check
