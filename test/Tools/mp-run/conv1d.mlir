// A Conv1d classifier written with train.conv1d (Keras' NLC / KIO), end to
// end: mp-compile's mp-decompose turns the convolution and its filter
// gradient into conv2d on a unit height (the plan holds conv2d kernels and
// no conv1d), and the reference and cpu backends train it to the same loss
// under mixed_bfloat16.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16" | FileCheck %s --check-prefix=IR
// RUN: mp-compile %s --mixed-precision="policy=mixed_bfloat16" -o %t/step.plan
// RUN: mp-run %t/step.plan --synthetic --steps 20 --backend reference --seed 5 > %t/ref.log 2>&1
// RUN: mp-run %t/step.plan --synthetic --steps 20 --backend cpu --seed 5 --verbose > %t/cpu.log 2>&1
// RUN: FileCheck %s --check-prefix=TRAIN < %t/cpu.log
// RUN: grep -o "last loss [0-9.]*" %t/ref.log > %t/ref.loss
// RUN: grep -o "last loss [0-9.]*" %t/cpu.log > %t/cpu.loss
// RUN: diff %t/ref.loss %t/cpu.loss

// IR-NOT: train.conv1d
// IR: train.conv2d NHWC {{.*}} : tensor<8x1x12x3xbf16>, tensor<1x3x3x4xbf16> -> tensor<8x1x10x4xbf16>
// IR: train.conv2d_backward_filter NHWC {{.*}} -> tensor<1x3x3x4xbf16>
// IR-NOT: train.conv1d
// TRAIN-NOT: train.conv1d
// TRAIN: train.conv2d {{.*}}oneDNN
// TRAIN-NOT: train.conv1d
// TRAIN: trained 20 steps

func.func @train_step(
    %x: tensor<8x12x3xf32> {train.role = "input"},
    %labels: tensor<8xi64> {train.role = "label"},
    %f: tensor<3x3x4xf32> {train.name = "f", train.role = "param"},
    %v: tensor<40x2xf32> {train.name = "v", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<3x3x4xf32> {train.name = "f", train.role = "param"},
    tensor<40x2xf32> {train.name = "v", train.role = "param"}) attributes {train.step} {
  %y = train.conv1d NLC %x, %f : tensor<8x12x3xf32>, tensor<3x3x4xf32> -> tensor<8x10x4xf32>
  %a = train.relu %y : tensor<8x10x4xf32>
  %flat = train.reshape %a : tensor<8x10x4xf32> -> tensor<8x40xf32>
  %logits = train.matmul %flat, %v : tensor<8x40xf32>, tensor<40x2xf32> -> tensor<8x2xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<8x2xf32>, tensor<8xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<8x2xf32>, tensor<8xi64>, tensor<f32>
  %d_v = train.matmul %flat, %d_logits {transpose_lhs} : tensor<8x40xf32>, tensor<8x2xf32> -> tensor<40x2xf32>
  %d_flat = train.matmul %d_logits, %v {transpose_rhs} : tensor<8x2xf32>, tensor<40x2xf32> -> tensor<8x40xf32>
  %d_a = train.reshape %d_flat : tensor<8x40xf32> -> tensor<8x10x4xf32>
  %d_y = train.relu_grad %d_a, %y : tensor<8x10x4xf32>
  %d_f = train.conv1d_backward_filter NLC %x, %d_y : tensor<8x12x3xf32>, tensor<8x10x4xf32> -> tensor<3x3x4xf32>
  %new_f = train.sgd %f, %d_f {lr = 0.1 : f64} : tensor<3x3x4xf32>
  %new_v = train.sgd %v, %d_v {lr = 0.1 : f64} : tensor<40x2xf32>
  return %loss, %new_f, %new_v : tensor<f32>, tensor<3x3x4xf32>, tensor<40x2xf32>
}
