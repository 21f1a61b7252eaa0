// A regression step whose forward pass goes through exp: y = log(exp(8 x w)),
// loss = mse(y, t). The exponential is pinned to the 16-bit dtype
// (mp.force = "low"), where its values overflow f16 (e^11.1 > 65504) but
// not f32; the gradients are moderate (incident.mlir).
func.func @train_step(
    %x: tensor<16x4xf32> {train.name = "x", train.role = "input"},
    %t: tensor<16x2xf32> {train.name = "t", train.role = "label"},
    %w: tensor<4x2xf32> {train.name = "w", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<4x2xf32> {train.name = "w", train.role = "param"}) attributes {train.step} {
  %h = train.matmul %x, %w : tensor<16x4xf32>, tensor<4x2xf32> -> tensor<16x2xf32>
  %k = train.constant dense<8.0> : tensor<16x2xf32>
  %z = train.mul %h, %k : tensor<16x2xf32>
  %e = train.exp %z {mp.force = "low"} : tensor<16x2xf32>
  %y = train.log %e : tensor<16x2xf32>
  %loss = train.mse_loss %y, %t : tensor<16x2xf32> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %dy = train.mse_loss_grad %y, %t, %seed : tensor<16x2xf32>, tensor<f32>
  %de = train.div %dy, %e : tensor<16x2xf32>
  %dz = train.mul %de, %e : tensor<16x2xf32>
  %dh = train.mul %dz, %k : tensor<16x2xf32>
  %dw = train.matmul %x, %dh {transpose_lhs} : tensor<16x4xf32>, tensor<16x2xf32> -> tensor<4x2xf32>
  %new_w = train.sgd %w, %dw {lr = 0.001 : f64} : tensor<4x2xf32>
  return %loss, %new_w : tensor<f32>, tensor<4x2xf32>
}
