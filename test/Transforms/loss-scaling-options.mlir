// Loss-scaling options are checked up front and named as spelled; a step
// with nothing persistent to guard is an error, not an invalid mp.select.
// RUN: not mp-opt %s --mp-loss-scaling="init-scale=1e39" 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not mp-opt %s --mp-loss-scaling="growth-factor=0.5" 2>&1 | FileCheck %s --check-prefix=GROWTH
// RUN: not mp-opt %s --mp-loss-scaling="backoff-factor=1.5" 2>&1 | FileCheck %s --check-prefix=BACKOFF
// RUN: not mp-opt %s --mp-loss-scaling="growth-interval=0" 2>&1 | FileCheck %s --check-prefix=INTERVAL
// RUN: not mp-opt %s --mp-loss-scaling="min-scale=10 max-scale=1" 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not mp-opt %s --mp-loss-scaling="init-scale=1 min-scale=2" 2>&1 | FileCheck %s --check-prefix=WITHIN
// RUN: not mp-opt %s --mp-loss-scaling 2>&1 | FileCheck %s --check-prefix=NOSTATE

// BIG: error: init-scale must fit in f32 (at most 3.4e38)
// GROWTH: error: growth-factor must be finite and at least 1
// BACKOFF: error: backoff-factor must be in (0, 1)
// INTERVAL: error: growth-interval must be at least 1
// BOUNDS: error: expected 0 <= min-scale <= max-scale <= 3.4e38
// WITHIN: error: init-scale must lie within [min-scale, max-scale]
// NOSTATE: error: 'func.func' op loss scaling needs persistent state to guard

// The parameter comes in as an input and its update goes out as an output.
func.func @step(%w: tensor<4xf32> {train.role = "input"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.role = "output"})
    attributes {train.step} {
  %l = train.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %g = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %n = train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %l, %n : tensor<f32>, tensor<4xf32>
}
