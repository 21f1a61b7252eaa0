// The state that changes per step, end to end: dropout (Philox, keyed by a
// frozen buffer drawn from the seed, counted by the step counter), AdamW
// with a learning rate from train.lr_schedule (linear warm-up, cosine
// decay), clipping by global norm between the gradients and the updates;
// the schedule and the norm are scalar outputs mp-run logs by name.
// Under mixed_float16 loss scaling unscales the gradients where they enter
// the clip (the clip sees true gradients; a skipped step clips nothing).
// Resuming after 3 steps gives the checkpoint of 6 straight steps, byte for
// byte, on the reference and cpu backends.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/write_classes.py %t
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_float16" | FileCheck %s --check-prefix=IR
// RUN: mp-compile %s --mixed-precision="policy=mixed_float16" -o %t/f16.plan
// RUN: mp-compile %s -o %t/f32.plan
// RUN: mp-run %t/f16.plan --synthetic --steps 6 --seed 5 --backend reference --checkpoint %t/six.ckpt > %t/six.log 2>&1
// RUN: mp-run %t/f16.plan --synthetic --steps 3 --seed 5 --backend reference --checkpoint %t/three.ckpt > /dev/null 2>&1
// RUN: mp-run %t/f16.plan --synthetic --steps 6 --seed 5 --backend reference --resume %t/three.ckpt --checkpoint %t/resumed.ckpt > /dev/null 2>&1
// RUN: cmp %t/six.ckpt %t/resumed.ckpt
// RUN: mp-run %t/f16.plan --synthetic --steps 3 --seed 5 --backend cpu --checkpoint %t/three-cpu.ckpt > /dev/null 2>&1
// RUN: mp-run %t/f16.plan --synthetic --steps 6 --seed 5 --backend cpu --resume %t/three-cpu.ckpt --checkpoint %t/resumed-cpu.ckpt > /dev/null 2>&1
// RUN: mp-run %t/f16.plan --synthetic --steps 6 --seed 5 --backend cpu --checkpoint %t/six-cpu.ckpt > /dev/null 2>&1
// RUN: cmp %t/six-cpu.ckpt %t/resumed-cpu.ckpt
// RUN: FileCheck %s --check-prefix=SIX < %t/six.log
// RUN: mp-run %t/f32.plan --data %t/classes.npz --steps 200 --seed 5 --plain --log-every 50 --metrics %t/m.jsonl > %t/long.log 2>&1
// RUN: FileCheck %s --check-prefix=LONG < %t/long.log
// RUN: FileCheck %s --check-prefix=METRICS < %t/m.jsonl

// The clip reads the unscaled gradients; the updates read the clipped ones.
// IR: %[[U:[^ ]*]]:2, %{{.*}} = mp.unscale_and_check
// IR: %[[CLIP:[^ ]*]]:2, %{{.*}} = train.clip_grad_norm %[[U]]#0, %[[U]]#1 {max_norm = 1.000000e+00 : f64}
// IR: train.lr_schedule %{{.*}} decay cosine
// IR: train.adamw %{{[^,]*}}, %[[CLIP]]#0, {{.*}} lr %
// IR: train.adamw %{{[^,]*}}, %[[CLIP]]#1, {{.*}} lr %
// After 6 steps: the warm-up's value at step 5 (0.01 * (0.1 + 0.9 * 5/10)).
// SIX: last loss {{[0-9.]+}}; loss scale {{[0-9.e+]+}}; skipped 0; lr 0.0055; grad_norm {{[0-9.e+-]+}}
// LONG: step 50/200 loss {{.*}} lr 0.00{{[0-9]+}} grad_norm
// The cosine decay ends at 0.1 * base_lr after 10 + 190 steps, and the
// loss falls from ln 4 = 1.39:
// LONG: last loss 0.{{[0-9]+}}; loss scale 1; skipped 0; lr 0.0010{{[0-9]*}}; grad_norm
// METRICS: {"event": "train", "step": 50, {{.*}}, "lr": {{[0-9.e-]+}}, "grad_norm": {{[0-9.e+-]+}}}

func.func @train_step(
    %x: tensor<16x8xf32> {train.name = "x", train.role = "input"},
    %labels: tensor<16xi64> {train.name = "labels", train.role = "label"},
    %w1: tensor<8x32xf32> {train.name = "fc1.weight", train.role = "param"},
    %w2: tensor<32x4xf32> {train.name = "fc2.weight", train.role = "param"},
    %m1: tensor<8x32xf32> {train.name = "fc1.weight.exp_avg", train.role = "opt_state"},
    %v1: tensor<8x32xf32> {train.name = "fc1.weight.exp_avg_sq", train.role = "opt_state"},
    %m2: tensor<32x4xf32> {train.name = "fc2.weight.exp_avg", train.role = "opt_state"},
    %v2: tensor<32x4xf32> {train.name = "fc2.weight.exp_avg_sq", train.role = "opt_state"},
    %step: tensor<i64> {train.name = "step", train.role = "opt_state"},
    %key: tensor<i64> {train.name = "dropout.key", train.role = "buffer", train.frozen}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<f32> {train.name = "lr", train.role = "output"},
    tensor<f32> {train.name = "grad_norm", train.role = "output"},
    tensor<8x32xf32> {train.name = "fc1.weight", train.role = "param"},
    tensor<32x4xf32> {train.name = "fc2.weight", train.role = "param"},
    tensor<8x32xf32> {train.name = "fc1.weight.exp_avg", train.role = "opt_state"},
    tensor<8x32xf32> {train.name = "fc1.weight.exp_avg_sq", train.role = "opt_state"},
    tensor<32x4xf32> {train.name = "fc2.weight.exp_avg", train.role = "opt_state"},
    tensor<32x4xf32> {train.name = "fc2.weight.exp_avg_sq", train.role = "opt_state"},
    tensor<i64> {train.name = "step", train.role = "opt_state"}) attributes {train.step} {
  %h = train.matmul %x, %w1 : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  %a = train.relu %h : tensor<16x32xf32>
  %d = train.dropout %a, %key, %step {p = 0.25 : f64} : tensor<16x32xf32>, tensor<i64>, tensor<i64>
  %logits = train.matmul %d, %w2 : tensor<16x32xf32>, tensor<32x4xf32> -> tensor<16x4xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<16x4xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<16x4xf32>, tensor<16xi64>, tensor<f32>
  %d_w2 = train.matmul %d, %d_logits {transpose_lhs} : tensor<16x32xf32>, tensor<16x4xf32> -> tensor<32x4xf32>
  %d_d = train.matmul %d_logits, %w2 {transpose_rhs} : tensor<16x4xf32>, tensor<32x4xf32> -> tensor<16x32xf32>
  %d_a = train.dropout_grad %d_d, %key, %step {p = 0.25 : f64} : tensor<16x32xf32>, tensor<i64>, tensor<i64>
  %d_h = train.relu_grad %d_a, %h : tensor<16x32xf32>
  %d_w1 = train.matmul %x, %d_h {transpose_lhs} : tensor<16x8xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %clip:3 = train.clip_grad_norm %d_w1, %d_w2 {max_norm = 1.0 : f64} : tensor<8x32xf32>, tensor<32x4xf32>
  %lr = train.lr_schedule %step warmup linear decay cosine {base_lr = 0.01 : f64, warmup_steps = 10 : i64, warmup_start_factor = 0.1 : f64, decay_steps = 190 : i64, end_factor = 0.1 : f64} : tensor<i64>
  %one = train.fill 1.0 : tensor<i64>
  %new_step = train.add %step, %one : tensor<i64>
  %u1:3 = train.adamw %w1, %clip#0, %m1, %v1, %new_step lr %lr : tensor<8x32xf32>, tensor<i64>
  %u2:3 = train.adamw %w2, %clip#1, %m2, %v2, %new_step lr %lr : tensor<32x4xf32>, tensor<i64>
  return %loss, %lr, %clip#2, %u1#0, %u2#0, %u1#1, %u1#2, %u2#1, %u2#2, %new_step
      : tensor<f32>, tensor<f32>, tensor<f32>, tensor<8x32xf32>, tensor<32x4xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x4xf32>, tensor<32x4xf32>, tensor<i64>
}
