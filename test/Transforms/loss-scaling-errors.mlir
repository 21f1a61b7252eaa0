// RUN: mp-opt %s -split-input-file --mp-loss-scaling -verify-diagnostics
// RUN: mp-opt %s -split-input-file --mp-loss-scaling="mode=static" -verify-diagnostics

// Bad options, and a module without a training step.
// RUN: not mp-opt %s -split-input-file --mp-loss-scaling="mode=dynamc" 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: error: unknown loss-scaling mode 'dynamc' (expected dynamic or static; the pipeline's loss-scale also takes auto and none)
// RUN: not mp-opt %s -split-input-file --mp-loss-scaling="init-scale=0" 2>&1 | FileCheck %s --check-prefix=SCALE
// RUN: not mp-opt %s -split-input-file --mp-loss-scaling="mode=static init-scale=-8" 2>&1 | FileCheck %s --check-prefix=SCALE
// RUN: not mp-opt %s -split-input-file --mp-loss-scaling="init-scale=inf" 2>&1 | FileCheck %s --check-prefix=SCALE
// RUN: not mp-opt %s -split-input-file --mp-loss-scaling="init-scale=nan" 2>&1 | FileCheck %s --check-prefix=SCALE
// SCALE: error: init-scale must be positive and finite
// RUN: echo 'func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> { return %%x : tensor<4xf32> }' | not mp-opt --mp-loss-scaling 2>&1 | FileCheck %s --check-prefix=NOSTEP
// RUN: echo 'func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> { return %%x : tensor<4xf32> }' | not mp-opt --mp-mixed-precision="policy=mixed_bfloat16 loss-scale=static" 2>&1 | FileCheck %s --check-prefix=NOSTEP
// NOSTEP: error: loss scaling needs a training step: no function is marked 'train.step'

// Steps that loss scaling cannot handle: each is an error on the step.

// expected-error @+1 {{loss scaling needs the start of the backward pass, but the step has no 'train.grad_seed'}}
func.func @no_grad_seed(%w: tensor<4xf32> {train.role = "param", train.name = "w"},
                        %g: tensor<4xf32> {train.role = "input"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.role = "param", train.name = "w"})
    attributes {train.step} {
  %l = train.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %n = train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %l, %n : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{loss scaling needs optimizer updates (train.sgd, train.adam, ...), but the step has none}}
func.func @no_optimizer(%w: tensor<4xf32> {train.role = "param", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.role = "param", train.name = "w"})
    attributes {train.step} {
  %l = train.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// An update whose result is used before the last gradient is computed
// cannot move behind the check.
func.func @update_used_early(%x: tensor<4xf32> {train.role = "input"},
                             %a: tensor<4xf32> {train.role = "param", train.name = "a"},
                             %b: tensor<4xf32> {train.role = "param", train.name = "b"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.role = "param", train.name = "a"},
        tensor<4xf32> {train.role = "param", train.name = "b"})
    attributes {train.step} {
  %p = train.mul %x, %a : tensor<4xf32>
  %l = train.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %sb = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %da = train.mul %sb, %x : tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op is used before all gradients of the step are computed; loss scaling cannot guard it}}
  %na = train.sgd %a, %da {lr = 0.1 : f64} : tensor<4xf32>
  %db = train.mul %na, %sb : tensor<4xf32>
  %nb = train.sgd %b, %db {lr = 0.1 : f64} : tensor<4xf32>
  return %l, %na, %nb : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
