// RUN: mp-opt %s -split-input-file --mp-loss-scaling | FileCheck %s --check-prefix=DYN
// RUN: mp-opt %s -split-input-file --mp-loss-scaling="mode=static init-scale=1024" | FileCheck %s --check-prefix=STATIC
// RUN: mp-opt %s -split-input-file --mp-loss-scaling="init-scale=256 growth-interval=100 growth-factor=4.0 backoff-factor=0.25 min-scale=1.0 max-scale=65536.0" | FileCheck %s --check-prefix=OPTS
// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_float16" --mp-insert-casts --mp-loss-scaling | FileCheck %s --check-prefix=F16

// Idempotence: a second run finds the step already scaled.
// RUN: mp-opt %s -split-input-file --mp-loss-scaling > %t.once.mlir
// RUN: mp-opt %s -split-input-file --mp-loss-scaling --mp-loss-scaling > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: mp-opt %s -split-input-file --mp-loss-scaling="mode=static" > %t.static1.mlir
// RUN: mp-opt %t.static1.mlir -split-input-file --mp-loss-scaling="mode=static" > %t.static2.mlir
// RUN: diff %t.static1.mlir %t.static2.mlir

// Expected to fail for now: mp-loss-scaling builds mp.unscale_and_check with only the
// unscaled gradients' types as result types, so the op lacks its i1
// all_finite result and the verifier rejects it ("result #N must be 0D
// tensor of 1-bit signless integer values, but got 'tensor<...xf32>'");
// every dynamic or static run fails, including the mixed_float16 pipeline
// on every example. The checks below are the output once that is fixed.

// Dynamic: scaler state threaded through as the last two arguments and
// results; the seed is scaled; one unscale_and_check after the last
// gradient, before all updates; one select over every persistent result
// (params, optimizer state, buffers), in result order, not the loss nor
// the output nor the scaler state; update_scale with the defaults.
// DYN-LABEL: func.func @step(
// DYN-SAME: [[X:%[^:]+]]: tensor<8x4xf32> {train.role = "input"}, [[L:%[^:]+]]: tensor<8xi64> {train.role = "label"}, [[W:%[^:]+]]: tensor<4x4xf32> {train.name = "w", train.role = "param"}, [[B:%[^:]+]]: tensor<4xf32> {train.name = "b", train.role = "param"}, [[MOM:%[^:]+]]: tensor<4x4xf32> {train.name = "w.momentum_buffer", train.role = "opt_state"}, [[BUF:%[^:]+]]: tensor<4xf32> {train.name = "running_mean", train.role = "buffer"},
// DYN-SAME: [[S:%[^:]+]]: tensor<f32> {mp.initial_value = 3.276800e+04 : f64, train.name = "loss_scale", train.role = "scaler_state"}, [[G:%[^:]+]]: tensor<i64> {mp.initial_value = {{.*}}, train.name = "loss_scale.growth_count", train.role = "scaler_state"})
// DYN-SAME: -> (tensor<f32> {train.role = "loss"}, tensor<4x4xf32> {train.name = "w", train.role = "param"}, tensor<4xf32> {train.name = "b", train.role = "param"}, tensor<4x4xf32> {train.name = "w.momentum_buffer", train.role = "opt_state"}, tensor<4xf32> {train.name = "running_mean", train.role = "buffer"}, tensor<8x4xf32> {train.role = "output"},
// DYN-SAME: tensor<f32> {train.name = "loss_scale", train.role = "scaler_state"}, tensor<i64> {train.name = "loss_scale.growth_count", train.role = "scaler_state"})
// DYN-SAME: attributes {train.step}
// DYN: [[H:%[^ ,]+]] = train.bias_add
// DYN-NEXT: [[LOSS:%[^ ,]+]] = train.sparse_cross_entropy [[H]]
// DYN-NEXT: [[SEED:%[^ ,]+]] = train.grad_seed [[LOSS]] : tensor<f32>
// DYN-NEXT: [[SCALED:%[^ ,]+]] = mp.scale [[SEED]], [[S]] : tensor<f32>
// DYN-NEXT: [[DH:%[^ ,]+]] = train.sparse_cross_entropy_grad [[H]], [[L]], [[SCALED]]
// DYN-NEXT: [[DW:%[^ ,]+]] = train.matmul [[X]], [[DH]] {transpose_lhs}
// DYN-NEXT: [[DB:%[^ ,]+]] = train.reduce_sum [[DH]]
// DYN-NEXT: [[U:%[^ ,]+]]:2, [[OK:%[^ ,]+]] = mp.unscale_and_check [[S]], [[DW]], [[DB]] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4x4xf32>, tensor<4xf32>
// DYN-NEXT: [[NW:%[^ ,]+]], [[NM:%[^ ,]+]] = train.sgd_momentum [[W]], [[U]]#0, [[MOM]]
// DYN-NEXT: [[NB:%[^ ,]+]] = train.sgd [[B]], [[U]]#1
// DYN-NEXT: train.reduce_mean [[H]]
// DYN-NEXT: [[NBUF:%[^ ,]+]] = train.add [[BUF]],
// DYN-NEXT: [[SEL:%[^ ,]+]]:4 = mp.select [[OK]], {{\[}}[[NW]], [[NB]], [[NM]], [[NBUF]]], {{\[}}[[W]], [[B]], [[MOM]], [[BUF]]] : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>
// DYN-NEXT: [[NS:%[^ ,]+]], [[NG:%[^ ,]+]] = mp.update_scale [[S]], [[G]], [[OK]] {min_scale = 1.000000e+00 : f64} : tensor<i64>
// DYN-NEXT: return [[LOSS]], [[SEL]]#0, [[SEL]]#1, [[SEL]]#2, [[SEL]]#3, [[H]], [[NS]], [[NG]] : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<f32>, tensor<i64>
// DYN-NOT: mp.scale
// DYN-NOT: mp.unscale_and_check

// Static: a constant scale, no scaler state, no update_scale, but the same
// check and select.
// STATIC-LABEL: func.func @step(
// STATIC-SAME: {train.name = "running_mean", train.role = "buffer"}) -> (
// STATIC-NOT: scaler_state
// STATIC: [[S:%[^ ,]+]] = train.constant dense<1.024000e+03> : tensor<f32>
// STATIC: [[SEED:%[^ ,]+]] = train.grad_seed
// STATIC-NEXT: mp.scale [[SEED]], [[S]] : tensor<f32>
// STATIC: [[U:%[^ ,]+]]:2, [[OK:%[^ ,]+]] = mp.unscale_and_check [[S]],
// STATIC: mp.select [[OK]],
// STATIC-NOT: mp.update_scale
// STATIC: return {{.*}} : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<8x4xf32>{{$}}

// The options reach the scaler state and mp.update_scale.
// OPTS-LABEL: func.func @step(
// OPTS-SAME: {mp.initial_value = 2.560000e+02 : f64, train.name = "loss_scale", train.role = "scaler_state"}
// OPTS: mp.update_scale {{.*}} {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 100 : i64, max_scale = 6.553600e+04 : f64, min_scale = 1.000000e+00 : f64} : tensor<i64>

func.func @step(%x: tensor<8x4xf32> {train.role = "input"},
                %labels: tensor<8xi64> {train.role = "label"},
                %w: tensor<4x4xf32> {train.role = "param", train.name = "w"},
                %bias: tensor<4xf32> {train.role = "param", train.name = "b"},
                %mom: tensor<4x4xf32> {train.role = "opt_state", train.name = "w.momentum_buffer"},
                %buf: tensor<4xf32> {train.role = "buffer", train.name = "running_mean"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4x4xf32> {train.role = "param", train.name = "w"},
        tensor<4xf32> {train.role = "param", train.name = "b"},
        tensor<4x4xf32> {train.role = "opt_state", train.name = "w.momentum_buffer"},
        tensor<4xf32> {train.role = "buffer", train.name = "running_mean"},
        tensor<8x4xf32> {train.role = "output"})
    attributes {train.step} {
  %mm = train.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %h = train.bias_add %mm, %bias : tensor<8x4xf32>, tensor<4xf32>
  %loss = train.sparse_cross_entropy %h, %labels : tensor<8x4xf32>, tensor<8xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %dh = train.sparse_cross_entropy_grad %h, %labels, %seed : tensor<8x4xf32>, tensor<8xi64>, tensor<f32>
  %dw = train.matmul %x, %dh {transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %db = train.reduce_sum %dh {dims = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32>
  %nw:2 = train.sgd_momentum %w, %dw, %mom {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4x4xf32>
  %nb = train.sgd %bias, %db {lr = 0.1 : f64} : tensor<4xf32>
  %hm = train.reduce_mean %h {dims = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32>
  %nbuf = train.add %buf, %hm : tensor<4xf32>
  return %loss, %nw#0, %nb, %nw#1, %nbuf, %h : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<8x4xf32>
}

// -----

// An update placed before the last gradient is computed moves after the
// check. Under mixed_float16 a gradient that reaches its optimizer through
// a widening cast is unscaled from its f16 source (cast and unscale are
// one op), and the optimizer reads the f32 unscaled value.
// DYN-LABEL: func.func @interleaved(
// DYN: [[DB:%[^ ,]+]] = train.reduce_sum
// DYN-NEXT: [[DW:%[^ ,]+]] = train.matmul
// DYN-NEXT: [[U:%[^ ,]+]]:2, [[OK:%[^ ,]+]] = mp.unscale_and_check {{%[^ ,]+}}, [[DB]], [[DW]] : tensor<4xf32>, tensor<4x4xf32> -> tensor<4xf32>, tensor<4x4xf32>
// DYN-NEXT: [[NB:%[^ ,]+]] = train.sgd {{%[^ ,]+}}, [[U]]#0
// DYN-NEXT: [[NW:%[^ ,]+]] = train.sgd {{%[^ ,]+}}, [[U]]#1
// DYN-NEXT: [[SEL:%[^ ,]+]]:2 = mp.select [[OK]], {{\[}}[[NW]], [[NB]]]
// F16-LABEL: func.func @interleaved(
// F16: [[DW:%[^ ,]+]] = train.matmul {{.*}}-> tensor<4x4xf16>
// F16-NEXT: [[U:%[^ ,]+]]:2, [[OK:%[^ ,]+]] = mp.unscale_and_check {{%[^ ,]+}}, {{%[^ ,]+}}, [[DW]] : tensor<4xf32>, tensor<4x4xf16> -> tensor<4xf32>, tensor<4x4xf32>
// F16: train.sgd {{%[^ ,]+}}, [[U]]#1 {{.*}}: tensor<4x4xf32>
func.func @interleaved(%x: tensor<8x4xf32> {train.role = "input"},
                       %labels: tensor<8xi64> {train.role = "label"},
                       %w: tensor<4x4xf32> {train.role = "param", train.name = "w"},
                       %bias: tensor<4xf32> {train.role = "param", train.name = "b"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4x4xf32> {train.role = "param", train.name = "w"},
        tensor<4xf32> {train.role = "param", train.name = "b"})
    attributes {train.step} {
  %mm = train.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %h = train.bias_add %mm, %bias : tensor<8x4xf32>, tensor<4xf32>
  %loss = train.sparse_cross_entropy %h, %labels : tensor<8x4xf32>, tensor<8xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %dh = train.sparse_cross_entropy_grad %h, %labels, %seed : tensor<8x4xf32>, tensor<8xi64>, tensor<f32>
  %db = train.reduce_sum %dh {dims = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32>
  %nb = train.sgd %bias, %db {lr = 0.1 : f64} : tensor<4xf32>
  %dw = train.matmul %x, %dh {transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %nw = train.sgd %w, %dw {lr = 0.1 : f64} : tensor<4x4xf32>
  return %loss, %nw, %nb : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>
}
