// train.hardswish, train.leaky_relu and train.elu (with their gradients)
// end to end: painted by their ODS category (infer: 16-bit after a 16-bit
// matmul), their attributes carried into the plan (and their ODS defaults
// where absent), trained on the reference and cpu backends to the same loss
// under mixed_float16 (loss scaling around them): the cpu backend runs
// leaky_relu and hardswish on own loops with the reference's rules and elu
// on the reference kernel, so the losses are the same bits.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts | FileCheck %s --check-prefix=IR
// RUN: mp-compile %s --mixed-precision="policy=mixed_float16" -o %t/act.plan
// RUN: mp-run %t/act.plan --synthetic --steps 20 --backend reference --seed 3 > %t/ref.log 2>&1
// RUN: mp-run %t/act.plan --synthetic --steps 20 --backend cpu --seed 3 --verbose > %t/cpu.log 2>&1
// RUN: FileCheck %s --check-prefix=TRAIN < %t/cpu.log
// RUN: grep -o "last loss [0-9.]*" %t/ref.log > %t/ref.loss
// RUN: grep -o "last loss [0-9.]*" %t/cpu.log > %t/cpu.loss
// RUN: diff %t/ref.loss %t/cpu.loss
// RUN: not mp-opt %S/Inputs/bad_leaky_relu.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// IR: train.leaky_relu {{.*}}negative_slope = 2.000000e-01{{.*}}: tensor<16x8xbf16>
// IR: train.elu {{.*}}: tensor<16x8xbf16>
// IR: train.hardswish {{.*}}: tensor<16x8xbf16>
// IR: train.hardswish_grad {{.*}}: tensor<16x8xbf16>
// IR: train.elu_grad {{.*}}: tensor<16x8xbf16>
// IR: train.leaky_relu_grad {{.*}}negative_slope = 2.000000e-01{{.*}}: tensor<16x8xbf16>
// The memory breakdown: the two f32 parameters (4x8 + 8x3 = 56 floats),
// no optimizer state (plain SGD); the process's peak after training.
// TRAIN: memory: arena {{[0-9]+}} bytes, activations saved for the backward pass {{[0-9]+}} bytes, second slots of double-buffered state {{[0-9]+}} bytes; parameters 224 bytes, optimizer state 0 bytes, buffers {{[0-9]+}} bytes
// TRAIN-DAG: train.leaky_relu own loop
// TRAIN-DAG: train.hardswish own loop
// TRAIN-DAG: train.elu_grad {{.*}}reference kernel
// TRAIN: trained 20 steps
// TRAIN: peak resident memory {{[0-9.]+}} MiB
// BAD: 'train.leaky_relu' op attribute 'negative_slope' failed to satisfy constraint: 64-bit float attribute

func.func @train_step(
    %x: tensor<16x4xf32> {train.role = "input"},
    %labels: tensor<16xi64> {train.role = "label"},
    %w: tensor<4x8xf32> {train.name = "w", train.role = "param"},
    %v: tensor<8x3xf32> {train.name = "v", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<4x8xf32> {train.name = "w", train.role = "param"},
    tensor<8x3xf32> {train.name = "v", train.role = "param"}) attributes {train.step} {
  %h = train.matmul %x, %w : tensor<16x4xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  %a1 = train.leaky_relu %h {negative_slope = 0.2 : f64} : tensor<16x8xf32>
  %a2 = train.elu %a1 : tensor<16x8xf32>
  %a = train.hardswish %a2 : tensor<16x8xf32>
  %logits = train.matmul %a, %v : tensor<16x8xf32>, tensor<8x3xf32> -> tensor<16x3xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<16x3xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<16x3xf32>, tensor<16xi64>, tensor<f32>
  %d_v = train.matmul %a, %d_logits {transpose_lhs} : tensor<16x8xf32>, tensor<16x3xf32> -> tensor<8x3xf32>
  %d_a = train.matmul %d_logits, %v {transpose_rhs} : tensor<16x3xf32>, tensor<8x3xf32> -> tensor<16x8xf32>
  %d_a2 = train.hardswish_grad %d_a, %a2 : tensor<16x8xf32>
  %d_a1 = train.elu_grad %d_a2, %a1 : tensor<16x8xf32>
  %d_h = train.leaky_relu_grad %d_a1, %h {negative_slope = 0.2 : f64} : tensor<16x8xf32>
  %d_w = train.matmul %x, %d_h {transpose_lhs} : tensor<16x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %new_w = train.sgd %w, %d_w {lr = 0.1 : f64} : tensor<4x8xf32>
  %new_v = train.sgd %v, %d_v {lr = 0.1 : f64} : tensor<8x3xf32>
  return %loss, %new_w, %new_v : tensor<f32>, tensor<4x8xf32>, tensor<8x3xf32>
}
