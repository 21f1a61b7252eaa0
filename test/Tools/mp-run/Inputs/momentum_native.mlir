// elementwise-optimizers.mlir's step with the fused update written directly.
func.func @train_step(
    %x: tensor<16x8xf32> {train.name = "x", train.role = "input"},
    %labels: tensor<16xi64> {train.name = "labels", train.role = "label"},
    %w: tensor<8x4xf32> {train.name = "fc.weight", train.role = "param"},
    %buf: tensor<8x4xf32> {train.name = "fc.weight.momentum_buffer", train.role = "opt_state"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<8x4xf32> {train.name = "fc.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc.weight.momentum_buffer", train.role = "opt_state"}) attributes {train.step} {
  %logits = train.matmul %x, %w : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<16x4xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<16x4xf32>, tensor<16xi64>, tensor<f32>
  %d_w = train.matmul %x, %d_logits {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %new:2 = train.sgd_momentum %w, %d_w, %buf {lr = 0.1 : f64, momentum = 0.9 : f64, weight_decay = 0.001 : f64} : tensor<8x4xf32>
  return %loss, %new#0, %new#1 : tensor<f32>, tensor<8x4xf32>, tensor<8x4xf32>
}
