// What loss scaling on upstream IR refuses, each with the culprit named.
// RUN: mp-opt %s --split-input-file --verify-diagnostics --mp-loss-scaling

// expected-error @below {{has a value marked 'mp.grad_seed' but no result marked 'mp.gradient'}}
func.func @no_gradients(%x: tensor<4xf32>) -> tensor<4xf32> {
  %seed = arith.constant {mp.grad_seed} dense<1.0> : tensor<4xf32>
  %y = arith.mulf %x, %seed : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A gradient used inside the step would be read scaled.
func.func @gradient_used(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32> {mp.gradient}) {
  %seed = arith.constant {mp.grad_seed} dense<1.0> : tensor<4xf32>
  %g = arith.mulf %x, %seed : tensor<4xf32>
  // expected-error @below {{reads the gradient that result 1 returns}}
  %updated = arith.subf %w, %g : tensor<4xf32>
  return %updated, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @below {{result #0: 'mp.gradient' is a unit attribute}}
func.func @bad_marker(%x: tensor<4xf32>) -> (tensor<4xf32> {mp.gradient = 1 : i64}) {
  return %x : tensor<4xf32>
}
