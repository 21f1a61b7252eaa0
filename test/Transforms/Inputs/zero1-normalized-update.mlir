// An update written as elementwise ops but for one reduction: the step
// divides the gradient by its sum of squares (a norm over the whole
// tensor, which a shard does not have). data-parallel=zero1 refuses it
// (data-parallel-zero1.mlir).
func.func @train_step(
    %x: tensor<16x8xf32> {train.name = "x", train.role = "input"},
    %labels: tensor<16xi64> {train.name = "labels", train.role = "label"},
    %w: tensor<8x4xf32> {train.name = "fc.weight", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<8x4xf32> {train.name = "fc.weight", train.role = "param"}) attributes {train.step} {
  %logits = train.matmul %x, %w : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<16x4xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<16x4xf32>, tensor<16xi64>, tensor<f32>
  %d_w = train.matmul %x, %d_logits {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g = train.gradient %d_w : tensor<8x4xf32>
  %sq = train.mul %g, %g : tensor<8x4xf32>
  %norm = train.reduce_sum %sq {dims = array<i64: 0, 1>} : tensor<8x4xf32> -> tensor<f32>
  %n = train.broadcast %norm {dims = array<i64>} : tensor<f32> -> tensor<8x4xf32>
  %step = train.div %g, %n : tensor<8x4xf32>
  %nw = train.sub %w, %step : tensor<8x4xf32>
  return %loss, %nw : tensor<f32>, tensor<8x4xf32>
}
