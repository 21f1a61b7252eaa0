// train.gather / gather_grad on a parameter at a constant non-uniform
// index tensor (rows 1 and 3 never taken: their gradient is 0) and
// train.group_norm / group_norm_grad on the hidden layer, end to end: the
// passes paint them (gather clear, group_norm infer with f32 statistics),
// the plan carries the constant and the attributes, and the reference and
// cpu backends train to the same loss under mixed_bfloat16.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts | FileCheck %s --check-prefix=IR
// RUN: mp-compile %s --mixed-precision="policy=mixed_bfloat16" -o %t/step.plan
// RUN: mp-run %t/step.plan --synthetic --steps 30 --backend reference --seed 3 > %t/ref.log 2>&1
// RUN: mp-run %t/step.plan --synthetic --steps 30 --backend cpu --seed 3 --verbose > %t/cpu.log 2>&1
// RUN: FileCheck %s --check-prefix=TRAIN < %t/cpu.log
// RUN: grep -o "last loss [0-9.]*" %t/ref.log > %t/ref.loss
// RUN: grep -o "last loss [0-9.]*" %t/cpu.log > %t/cpu.loss
// RUN: diff %t/ref.loss %t/cpu.loss

// IR: train.gather {{.*}} : tensor<5x8xbf16>, tensor<4xi64> -> tensor<4x8xbf16>
// IR: train.group_norm {{.*}} : tensor<16x8xbf16>, tensor<8xf32> -> tensor<16x2xf32>
// IR: train.group_norm_grad {{.*}} : tensor<16x8xbf16>, tensor<8xf32>, tensor<16x2xf32>
// IR: train.gather_grad {{.*}} -> tensor<5x8xf32>
// TRAIN-DAG: train.gather {{.*}}reference kernel
// TRAIN-DAG: train.group_norm {{.*}}reference kernel
// TRAIN: trained 30 steps

func.func @train_step(
    %x: tensor<16x4xf32> {train.role = "input"},
    %labels: tensor<16xi64> {train.role = "label"},
    %w: tensor<5x8xf32> {train.name = "w", train.role = "param"},
    %g: tensor<8xf32> {train.name = "g", train.role = "param"},
    %b: tensor<8xf32> {train.name = "b", train.role = "param"},
    %v: tensor<8x3xf32> {train.name = "v", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<5x8xf32> {train.name = "w", train.role = "param"},
    tensor<8xf32> {train.name = "g", train.role = "param"},
    tensor<8xf32> {train.name = "b", train.role = "param"},
    tensor<8x3xf32> {train.name = "v", train.role = "param"}) attributes {train.step} {
  %idx = train.constant dense<[0, 2, 2, 4]> : tensor<4xi64>
  %wr = train.gather %w, %idx {axis = 0} : tensor<5x8xf32>, tensor<4xi64> -> tensor<4x8xf32>
  %h = train.matmul %x, %wr : tensor<16x4xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  %n, %mean, %inv = train.group_norm %h, %g, %b {groups = 2} : tensor<16x8xf32>, tensor<8xf32> -> tensor<16x2xf32>
  %logits = train.matmul %n, %v : tensor<16x8xf32>, tensor<8x3xf32> -> tensor<16x3xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<16x3xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<16x3xf32>, tensor<16xi64>, tensor<f32>
  %d_v = train.matmul %n, %d_logits {transpose_lhs} : tensor<16x8xf32>, tensor<16x3xf32> -> tensor<8x3xf32>
  %d_n = train.matmul %d_logits, %v {transpose_rhs} : tensor<16x3xf32>, tensor<8x3xf32> -> tensor<16x8xf32>
  %d_h, %d_g, %d_b = train.group_norm_grad %d_n, %h, %g, %mean, %inv {groups = 2} : tensor<16x8xf32>, tensor<8xf32>, tensor<16x2xf32>
  %d_wr = train.matmul %x, %d_h {transpose_lhs} : tensor<16x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %d_w = train.gather_grad %d_wr, %idx {axis = 0} : tensor<4x8xf32>, tensor<4xi64> -> tensor<5x8xf32>
  %new_w = train.sgd %w, %d_w {lr = 0.1 : f64} : tensor<5x8xf32>
  %new_g = train.sgd %g, %d_g {lr = 0.1 : f64} : tensor<8xf32>
  %new_b = train.sgd %b, %d_b {lr = 0.1 : f64} : tensor<8xf32>
  %new_v = train.sgd %v, %d_v {lr = 0.1 : f64} : tensor<8x3xf32>
  return %loss, %new_w, %new_g, %new_b, %new_v : tensor<f32>, tensor<5x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x3xf32>
}
