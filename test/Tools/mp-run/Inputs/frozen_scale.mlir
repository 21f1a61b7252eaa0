// next_token.mlir with a non-uniform constant bias and a frozen buffer
// (`train.frozen`: read by the step, never updated) scaling the logits:
//   logits = (tok_emb[tokens] @ head + bias) * logit_scale
// (data.mlir: the buffer's value comes from --init-params, and checkpoints
// keep it).
func.func @train_step(
    %tokens: tensor<8x4xi64> {train.name = "tokens", train.role = "input"},
    %targets: tensor<8x4xi64> {train.name = "targets", train.role = "label"},
    %emb: tensor<6x8xf32> {train.name = "tok_emb", train.role = "param"},
    %head: tensor<8x6xf32> {train.name = "head", train.role = "param"},
    %scale: tensor<32x6xf32> {train.name = "logit_scale", train.role = "buffer", train.frozen}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<6x8xf32> {train.name = "tok_emb", train.role = "param"},
    tensor<8x6xf32> {train.name = "head", train.role = "param"}) attributes {train.step} {
  %e = train.embedding %emb, %tokens : tensor<6x8xf32>, tensor<8x4xi64> -> tensor<8x4x8xf32>
  %rows = train.reshape %e : tensor<8x4x8xf32> -> tensor<32x8xf32>
  %logits = train.matmul %rows, %head : tensor<32x8xf32>, tensor<8x6xf32> -> tensor<32x6xf32>
  %bias = train.constant dense<[[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2],[0.0,0.2,0.1,0.0,0.2,0.1],[0.0,0.0,0.0,0.0,0.0,0.0],[0.0,0.1,0.2,0.0,0.1,0.2]]> : tensor<32x6xf32>
  %biased0 = train.add %logits, %bias : tensor<32x6xf32>
  %biased = train.mul %biased0, %scale : tensor<32x6xf32>
  %labels = train.reshape %targets : tensor<8x4xi64> -> tensor<32xi64>
  %loss = train.sparse_cross_entropy %biased, %labels : tensor<32x6xf32>, tensor<32xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_b = train.sparse_cross_entropy_grad %biased, %labels, %seed : tensor<32x6xf32>, tensor<32xi64>, tensor<f32>
  %d_logits = train.mul %d_b, %scale : tensor<32x6xf32>
  %d_head = train.matmul %rows, %d_logits {transpose_lhs} : tensor<32x8xf32>, tensor<32x6xf32> -> tensor<8x6xf32>
  %d_rows = train.matmul %d_logits, %head {transpose_rhs} : tensor<32x6xf32>, tensor<8x6xf32> -> tensor<32x8xf32>
  %d_e = train.reshape %d_rows : tensor<32x8xf32> -> tensor<8x4x8xf32>
  %d_emb = train.embedding_grad %d_e, %tokens : tensor<8x4x8xf32>, tensor<8x4xi64> -> tensor<6x8xf32>
  %new_emb = train.sgd %emb, %d_emb {lr = 0.5 : f64} : tensor<6x8xf32>
  %new_head = train.sgd %head, %d_head {lr = 0.5 : f64} : tensor<8x6xf32>
  return %loss, %new_emb, %new_head : tensor<f32>, tensor<6x8xf32>, tensor<8x6xf32>
}
