// Gradient transforms (clipping) between the gradients and the updates:
// loss scaling unscales and checks the gradients where they enter the
// transforms, moves a transform that ran before the last gradient after
// the check, and the updates read the transformed values; the finiteness
// guard of an unscaled step checks the same raw gradients.
// RUN: mp-opt %s --mp-loss-scaling | FileCheck %s --check-prefix=SCALED
// RUN: mp-opt %s --mp-guard-finite | FileCheck %s --check-prefix=GUARD

// SCALED-LABEL: func.func @step
// SCALED: %[[DW1:.*]] = train.matmul %arg0, %{{.*}} {transpose_lhs}
// SCALED: %[[DW2:.*]] = train.matmul %{{.*}}, %{{.*}} {transpose_lhs}
// SCALED-NEXT: %[[U:[^ ]*]]:2, %[[OK:.*]] = mp.unscale_and_check %{{.*}}, %[[DW1]], %[[DW2]]
// SCALED-NEXT: %[[V:.*]] = train.clip_grad_value %[[U]]#0 {clip_value = 5.000000e-01 : f64}
// SCALED-NEXT: %[[N:[^ ]*]]:2, %{{.*}} = train.clip_grad_norm %[[V]], %[[U]]#1 {max_norm = 1.000000e+00 : f64}
// SCALED-NEXT: train.sgd %arg2, %[[N]]#0
// SCALED-NEXT: train.sgd %arg3, %[[N]]#1
// SCALED: mp.select %[[OK]]

// GUARD-LABEL: func.func @step
// GUARD: %[[DW1:.*]] = train.matmul %arg0, %{{.*}} {transpose_lhs}
// GUARD: %[[DW2:.*]] = train.matmul %{{.*}}, %{{.*}} {transpose_lhs}
// GUARD-NEXT: mp.all_finite %[[DW1]], %[[DW2]]

func.func @step(%x: tensor<8x4xf32> {train.role = "input"},
                %y: tensor<8x2xf32> {train.role = "label"},
                %w1: tensor<4x3xf32> {train.name = "w1", train.role = "param"},
                %w2: tensor<3x2xf32> {train.name = "w2", train.role = "param"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4x3xf32> {train.name = "w1", train.role = "param"},
        tensor<3x2xf32> {train.name = "w2", train.role = "param"})
    attributes {train.step} {
  %h = train.matmul %x, %w1 : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %p = train.matmul %h, %w2 : tensor<8x3xf32>, tensor<3x2xf32> -> tensor<8x2xf32>
  %loss = train.mse_loss %p, %y : tensor<8x2xf32> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %dp = train.mse_loss_grad %p, %y, %seed : tensor<8x2xf32>, tensor<f32>
  %dh = train.matmul %dp, %w2 {transpose_rhs} : tensor<8x2xf32>, tensor<3x2xf32> -> tensor<8x3xf32>
  %dw1 = train.matmul %x, %dh {transpose_lhs} : tensor<8x4xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  // Clipped before the last gradient is computed.
  %v = train.clip_grad_value %dw1 {clip_value = 0.5 : f64} : tensor<4x3xf32>
  %dw2 = train.matmul %h, %dp {transpose_lhs} : tensor<8x3xf32>, tensor<8x2xf32> -> tensor<3x2xf32>
  %n:3 = train.clip_grad_norm %v, %dw2 {max_norm = 1.0 : f64} : tensor<4x3xf32>, tensor<3x2xf32>
  %nw1 = train.sgd %w1, %n#0 {lr = 0.1 : f64} : tensor<4x3xf32>
  %nw2 = train.sgd %w2, %n#1 {lr = 0.1 : f64} : tensor<3x2xf32>
  return %loss, %nw1, %nw2 : tensor<f32>, tensor<4x3xf32>, tensor<3x2xf32>
}
