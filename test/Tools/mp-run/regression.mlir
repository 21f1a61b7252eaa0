// Float targets end to end: a linear regression with train.mse_loss (and,
// rewritten by sed, train.huber_loss and train.bce_with_logits_loss),
// fed by name from an .npz with a float label of shape [batch, 2],
// trained under mixed_bfloat16 on the reference and cpu backends to the same
// loss; its evaluation plan reports the loss, and no accuracy.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/write_regression.py %t
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts | FileCheck %s --check-prefix=IR
// RUN: mp-compile %s --mixed-precision="policy=mixed_bfloat16" -o %t/mse.plan
// RUN: mp-compile %s --mixed-precision="policy=mixed_bfloat16" --eval -o %t/mse.eval.plan
// RUN: mp-run %t/mse.plan --data %t/train.npz --steps 60 --backend reference --plain --log-every 60 > %t/ref.log 2>&1
// RUN: mp-run %t/mse.plan --data %t/train.npz --steps 60 --backend cpu --plain --log-every 60 --eval-plan %t/mse.eval.plan --eval-data %t/train.npz > %t/cpu.log 2>&1
// RUN: FileCheck %s --check-prefix=TRAIN < %t/cpu.log
// RUN: grep -o "last loss [0-9.]*" %t/ref.log > %t/ref.loss
// RUN: grep -o "last loss [0-9.]*" %t/cpu.log > %t/cpu.loss
// RUN: diff %t/ref.loss %t/cpu.loss
// RUN: sed -e 's/mse_loss/huber_loss/g' %s > %t/huber.mlir
// RUN: mp-compile %t/huber.mlir --mixed-precision="policy=mixed_float16" -o %t/huber.plan
// RUN: mp-run %t/huber.plan --data %t/train.npz --steps 60 --plain --log-every 60 2>&1 | FileCheck %s --check-prefix=FELL
// RUN: sed -e 's/mse_loss/bce_with_logits_loss/g' %s > %t/bce.mlir
// RUN: mp-compile %t/bce.mlir -o %t/bce.plan
// RUN: mp-run %t/bce.plan --data %t/binary.npz --steps 300 --plain --log-every 300 2>&1 | FileCheck %s --check-prefix=FELL

// IR: train.matmul {{.*}} -> tensor<16x2xbf16>
// IR: train.mse_loss {{.*}} : tensor<16x2xf32> -> tensor<f32>
// IR: train.mse_loss_grad {{.*}} : tensor<16x2xf32>, tensor<f32>
// From a loss near 1 (random init) to a few percent of it:
// TRAIN: eval step 60: loss 0.0{{[0-9]+}} accuracy n/a (no class labels) (64 samples)
// TRAIN: last loss 0.0{{[0-9]+}}
// Huber from 0.56 (10 steps), BCE from ln 2 = 0.69 and above:
// FELL: last loss 0.{{[0-3][0-9]*}};

func.func @train_step(
    %x: tensor<16x4xf32> {train.name = "x", train.role = "input"},
    %y: tensor<16x2xf32> {train.name = "y", train.role = "label"},
    %w: tensor<4x2xf32> {train.name = "w", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<4x2xf32> {train.name = "w", train.role = "param"}) attributes {train.step} {
  %p = train.matmul %x, %w : tensor<16x4xf32>, tensor<4x2xf32> -> tensor<16x2xf32>
  %loss = train.mse_loss %p, %y : tensor<16x2xf32> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_p = train.mse_loss_grad %p, %y, %seed : tensor<16x2xf32>, tensor<f32>
  %d_w = train.matmul %x, %d_p {transpose_lhs} : tensor<16x4xf32>, tensor<16x2xf32> -> tensor<4x2xf32>
  %new_w = train.sgd %w, %d_w {lr = 0.1 : f64} : tensor<4x2xf32>
  return %loss, %new_w : tensor<f32>, tensor<4x2xf32>
}
