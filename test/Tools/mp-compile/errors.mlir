// mp-compile rejects what the runtime cannot run, with a located message.
// RUN: split-file %s %t
// RUN: not mp-compile %t/no-step.mlir -o %t/out.plan 2>&1 | FileCheck %s --check-prefix=NOSTEP
// RUN: not mp-compile %t/no-kernel.mlir -o %t/out.plan 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// RUN: not mp-compile %t/missing.mlir -o %t/out.plan 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mp-compile %t/no-step.mlir 2>&1 | FileCheck %s --check-prefix=NOOUT
// RUN: not mp-compile %t/eval-no-ce.mlir --eval -o %t/out.plan 2>&1 | FileCheck %s --check-prefix=EVAL
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_float16" -o %t/mlp.plan
// RUN: mp-compile %examples/cnn.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/cnn.plan
// RUN: mp-compile %examples/transformer.mlir --mixed-precision="policy=mixed_float16" --eval -o %t/transformer.eval.plan
// RUN: not mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_float64" -o %t/x.plan 2>&1 | FileCheck %s --check-prefix=POLICY

//--- no-step.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
// NOSTEP: error: no function is marked 'train.step'
// NOOUT: mp-compile: no output: give -o PLAN (or --check-only)

//--- no-kernel.mlir
func.func @step(%w: tensor<4xf32> {train.role = "param", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4xf32> {train.role = "param", train.name = "w"})
    attributes {train.step} {
  %0 = math.sin %w : tensor<4xf32>
  %l = train.reduce_sum %0 {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
// NOKERNEL: no-kernel.mlir:5:8: error: 'math.sin' op has no runtime kernel

//--- eval-no-ce.mlir
func.func @step(%w: tensor<4xf32> {train.role = "param", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4xf32> {train.role = "param", train.name = "w"})
    attributes {train.step} {
  %l = train.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
// EVAL: error: 'func.func' op an evaluation plan needs the loss to come from a loss op (train.sparse_cross_entropy, mse_loss, bce_with_logits_loss, huber_loss

// MISSING: mp-compile: cannot open input file '{{.*}}missing.mlir': No such file or directory
// POLICY: error: unknown policy 'mixed_float64'
