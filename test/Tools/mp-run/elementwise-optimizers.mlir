// Optimizers written as elementwise ops on train.gradient markers, end to
// end. SGD with momentum and weight decay (this file) is recognized by
// mp-fuse-optimizers: its plan trains to the state of the step written
// with train.sgd_momentum (Inputs/momentum_native.mlir), byte for byte (the
// checkpoints' metadata name different plans).
// Lion (Inputs/lion.mlir: sign of an interpolation of the gradient and the
// momentum) is no known form: it runs as the elementwise ops, under
// mixed_float16 with its gradient unscaled through the marker, on the
// reference and cpu backends to the same loss, and learns.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/write_classes.py %t
// RUN: mp-compile %s --mixed-precision="policy=mixed_bfloat16" -o %t/elementwise.plan
// RUN: mp-compile %S/Inputs/momentum_native.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/native.plan
// RUN: mp-run %t/elementwise.plan --data %t/classes.npz --steps 30 --seed 4 --checkpoint %t/elementwise.ckpt > /dev/null 2>&1
// RUN: mp-run %t/native.plan --data %t/classes.npz --steps 30 --seed 4 --checkpoint %t/native.ckpt > /dev/null 2>&1
// RUN: %python %S/Inputs/same_tensors.py %t/elementwise.ckpt %t/native.ckpt
// RUN: mp-opt %S/Inputs/lion.mlir --mp-mixed-precision="policy=mixed_float16" | FileCheck %s --check-prefix=LION-IR
// RUN: mp-compile %S/Inputs/lion.mlir --mixed-precision="policy=mixed_float16" -o %t/lion.plan
// RUN: mp-run %t/lion.plan --data %t/classes.npz --steps 150 --backend reference --plain --log-every 150 > %t/ref.log 2>&1
// RUN: mp-run %t/lion.plan --data %t/classes.npz --steps 150 --backend cpu --plain --log-every 150 > %t/cpu.log 2>&1
// RUN: FileCheck %s --check-prefix=LION < %t/cpu.log
// RUN: grep -o "last loss [0-9.]*" %t/ref.log > %t/ref.loss
// RUN: grep -o "last loss [0-9.]*" %t/cpu.log > %t/cpu.loss
// RUN: diff %t/ref.loss %t/cpu.loss

// LION-IR: mp.unscale_and_check
// LION-IR-NEXT: train.gradient
// LION-IR: train.sign
// LION-IR: mp.select
// From ln 4 = 1.39 to well under it, with no step skipped:
// LION: last loss 0.{{[0-5][0-9]*}}; loss scale {{[0-9]+}}; skipped 0

func.func @train_step(
    %x: tensor<16x8xf32> {train.name = "x", train.role = "input"},
    %labels: tensor<16xi64> {train.name = "labels", train.role = "label"},
    %w: tensor<8x4xf32> {train.name = "fc.weight", train.role = "param"},
    %buf: tensor<8x4xf32> {train.name = "fc.weight.momentum_buffer", train.role = "opt_state"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<8x4xf32> {train.name = "fc.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc.weight.momentum_buffer", train.role = "opt_state"}) attributes {train.step} {
  %logits = train.matmul %x, %w : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<16x4xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<16x4xf32>, tensor<16xi64>, tensor<f32>
  %d_w = train.matmul %x, %d_logits {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g = train.gradient %d_w : tensor<8x4xf32>
  // g' = g + 0.001 w; b' = 0.9 b + g'; w' = w - 0.1 b'
  %wd = train.fill 0.001 : tensor<8x4xf32>
  %decay = train.mul %wd, %w : tensor<8x4xf32>
  %gd = train.add %g, %decay : tensor<8x4xf32>
  %mu = train.fill 0.9 : tensor<8x4xf32>
  %old = train.mul %buf, %mu : tensor<8x4xf32>
  %nb = train.add %old, %gd : tensor<8x4xf32>
  %lr = train.fill 0.1 : tensor<8x4xf32>
  %step = train.mul %lr, %nb : tensor<8x4xf32>
  %nw = train.sub %w, %step : tensor<8x4xf32>
  return %loss, %nw, %nb : tensor<f32>, tensor<8x4xf32>, tensor<8x4xf32>
}
