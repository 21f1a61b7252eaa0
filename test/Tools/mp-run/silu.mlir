// train.silu end to end, the op added through the op table alone (ODS,
// rule, reference registration, conformance rows): the precision passes
// paint it by its ODS category (infer: 16-bit after a 16-bit matmul), the
// plan carries it, and the reference and cpu backends train with it (the
// cpu backend on its own loop, exp from the vector math library: a few
// ulp from libm's, docs/runtime-cpu.md) to the same loss within 1e-5
// relative after 20 steps.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts | FileCheck %s --check-prefix=IR
// RUN: mp-compile %s --mixed-precision="policy=mixed_bfloat16" -o %t/silu.plan
// RUN: mp-run %t/silu.plan --synthetic --steps 20 --backend reference --seed 3 > %t/ref.log 2>&1
// RUN: mp-run %t/silu.plan --synthetic --steps 20 --backend cpu --seed 3 --verbose > %t/cpu.log 2>&1
// RUN: FileCheck %s --check-prefix=TRAIN < %t/cpu.log
// RUN: %python %S/../mp-compile/Inputs/close_losses.py %t/cpu.log %t/ref.log 1e-5

// IR: train.silu {{.*}}: tensor<16x8xbf16>
// IR: train.silu_grad {{.*}}: tensor<16x8xbf16>
// TRAIN-DAG: train.silu own loop
// TRAIN-DAG: train.silu_grad own loop
// TRAIN: trained 20 steps

func.func @train_step(
    %x: tensor<16x4xf32> {train.role = "input"},
    %labels: tensor<16xi64> {train.role = "label"},
    %w: tensor<4x8xf32> {train.name = "w", train.role = "param"},
    %v: tensor<8x3xf32> {train.name = "v", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<4x8xf32> {train.name = "w", train.role = "param"},
    tensor<8x3xf32> {train.name = "v", train.role = "param"}) attributes {train.step} {
  %h = train.matmul %x, %w : tensor<16x4xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  %a = train.silu %h : tensor<16x8xf32>
  %logits = train.matmul %a, %v : tensor<16x8xf32>, tensor<8x3xf32> -> tensor<16x3xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<16x3xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<16x3xf32>, tensor<16xi64>, tensor<f32>
  %d_v = train.matmul %a, %d_logits {transpose_lhs} : tensor<16x8xf32>, tensor<16x3xf32> -> tensor<8x3xf32>
  %d_a = train.matmul %d_logits, %v {transpose_rhs} : tensor<16x3xf32>, tensor<8x3xf32> -> tensor<16x8xf32>
  %d_h = train.silu_grad %d_a, %h : tensor<16x8xf32>
  %d_w = train.matmul %x, %d_h {transpose_lhs} : tensor<16x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %new_w = train.sgd %w, %d_w {lr = 0.1 : f64} : tensor<4x8xf32>
  %new_v = train.sgd %v, %d_v {lr = 0.1 : f64} : tensor<8x3xf32>
  return %loss, %new_w, %new_v : tensor<f32>, tensor<4x8xf32>, tensor<8x3xf32>
}
