// examples/mlp.mlir with its gradients averaged over the ranks by
// train.all_reduce (two buckets), as a data-parallel step has them.

func.func @train_step(
    %x: tensor<32x784xf32> {train.role = "input"},
    %labels: tensor<32xi64> {train.role = "label"},
    %fc1_weight: tensor<784x256xf32> {train.name = "fc1.weight", train.role = "param"},
    %fc1_bias: tensor<256xf32> {train.name = "fc1.bias", train.role = "param"},
    %fc2_weight: tensor<256x10xf32> {train.name = "fc2.weight", train.role = "param"},
    %fc2_bias: tensor<10xf32> {train.name = "fc2.bias", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<784x256xf32> {train.name = "fc1.weight", train.role = "param"},
    tensor<256xf32> {train.name = "fc1.bias", train.role = "param"},
    tensor<256x10xf32> {train.name = "fc2.weight", train.role = "param"},
    tensor<10xf32> {train.name = "fc2.bias", train.role = "param"}) attributes {train.step} {
  // ===== forward =====
  %fc1_mm = train.matmul %x, %fc1_weight : tensor<32x784xf32>, tensor<784x256xf32> -> tensor<32x256xf32>
  %fc1 = train.bias_add %fc1_mm, %fc1_bias : tensor<32x256xf32>, tensor<256xf32>
  %relu1 = train.relu %fc1 : tensor<32x256xf32>
  %logits_mm = train.matmul %relu1, %fc2_weight : tensor<32x256xf32>, tensor<256x10xf32> -> tensor<32x10xf32>
  %logits = train.bias_add %logits_mm, %fc2_bias : tensor<32x10xf32>, tensor<10xf32>

  // ===== loss: mean softmax cross-entropy =====
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<32x10xf32>, tensor<32xi64> -> tensor<f32>

  // ===== backward =====
  // dL/dL = 1 (loss scaling multiplies this seed)
  %seed = train.grad_seed %loss : tensor<f32>
  // dL/dlogits = (softmax(logits) - one_hot(labels)) / N
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<32x10xf32>, tensor<32xi64>, tensor<f32>
  // fc2
  %d_fc2_bias = train.reduce_sum %d_logits {dims = array<i64: 0>} : tensor<32x10xf32> -> tensor<10xf32>
  %d_fc2_weight = train.matmul %relu1, %d_logits {transpose_lhs} : tensor<32x256xf32>, tensor<32x10xf32> -> tensor<256x10xf32>
  %d_fc2_in = train.matmul %d_logits, %fc2_weight {transpose_rhs} : tensor<32x10xf32>, tensor<256x10xf32> -> tensor<32x256xf32>
  // relu1
  %d_fc1_out = train.relu_grad %d_fc2_in, %fc1 : tensor<32x256xf32>
  // fc1 (no gradient for the input)
  %d_fc1_bias = train.reduce_sum %d_fc1_out {dims = array<i64: 0>} : tensor<32x256xf32> -> tensor<256xf32>
  %d_fc1_weight = train.matmul %x, %d_fc1_out {transpose_lhs} : tensor<32x784xf32>, tensor<32x256xf32> -> tensor<784x256xf32>

  // ===== data parallel: the gradients averaged over the ranks, in two
  // buckets in the order the backward pass makes them =====
  %r2:2 = train.all_reduce %d_fc2_bias, %d_fc2_weight : tensor<10xf32>, tensor<256x10xf32> -> tensor<10xf32>, tensor<256x10xf32>
  %r1:2 = train.all_reduce %d_fc1_bias, %d_fc1_weight : tensor<256xf32>, tensor<784x256xf32> -> tensor<256xf32>, tensor<784x256xf32>

  // ===== optimizer: SGD, lr 0.1 =====
  %new_fc1_weight = train.sgd %fc1_weight, %r1#1 {lr = 0.1 : f64} : tensor<784x256xf32>
  %new_fc1_bias = train.sgd %fc1_bias, %r1#0 {lr = 0.1 : f64} : tensor<256xf32>
  %new_fc2_weight = train.sgd %fc2_weight, %r2#1 {lr = 0.1 : f64} : tensor<256x10xf32>
  %new_fc2_bias = train.sgd %fc2_bias, %r2#0 {lr = 0.1 : f64} : tensor<10xf32>

  // ===== results: loss, then every persistent argument's new value =====
  return %loss, %new_fc1_weight, %new_fc1_bias, %new_fc2_weight, %new_fc2_bias
      : tensor<f32>, tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>,
        tensor<10xf32>
}
