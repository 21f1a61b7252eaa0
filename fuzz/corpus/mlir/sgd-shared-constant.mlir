func.func @sgd_shared_constant(%x: tensor<4xf32> {train.role = "input"},
               %w: tensor<4xf32> {train.name = "w", train.role = "param"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.name = "w", train.role = "param"})
    attributes {train.step} {
  %p = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %sb = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %dw = train.mul %sb, %x : tensor<4xf32>
  %g = train.gradient %dw : tensor<4xf32>
  %c = train.constant dense<0.01> : tensor<4xf32>
  %decay = train.mul %w, %c : tensor<4xf32>
  %gd = train.add %decay, %g : tensor<4xf32>
  %step = train.mul %gd, %c : tensor<4xf32>
  %nw = train.sub %w, %step : tensor<4xf32>
  return %l, %nw : tensor<f32>, tensor<4xf32>
}
