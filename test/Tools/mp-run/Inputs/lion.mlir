// Lion (Chen et al., 2023) as elementwise ops on a train.gradient marker:
//   c = b1 m + (1 - b1) g;  w' = w - lr (sign(c) + wd w);
//   m' = b2 m + (1 - b2) g   (b1 0.9, b2 0.99, lr 0.01, wd 0.01)
func.func @train_step(
    %x: tensor<16x8xf32> {train.name = "x", train.role = "input"},
    %labels: tensor<16xi64> {train.name = "labels", train.role = "label"},
    %w1: tensor<8x32xf32> {train.name = "fc1.weight", train.role = "param"},
    %w2: tensor<32x4xf32> {train.name = "fc2.weight", train.role = "param"},
    %m1: tensor<8x32xf32> {train.name = "fc1.weight.exp_avg", train.role = "opt_state"},
    %m2: tensor<32x4xf32> {train.name = "fc2.weight.exp_avg", train.role = "opt_state"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<8x32xf32> {train.name = "fc1.weight", train.role = "param"},
    tensor<32x4xf32> {train.name = "fc2.weight", train.role = "param"},
    tensor<8x32xf32> {train.name = "fc1.weight.exp_avg", train.role = "opt_state"},
    tensor<32x4xf32> {train.name = "fc2.weight.exp_avg", train.role = "opt_state"}) attributes {train.step} {
  %h = train.matmul %x, %w1 : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  %a = train.relu %h : tensor<16x32xf32>
  %logits = train.matmul %a, %w2 : tensor<16x32xf32>, tensor<32x4xf32> -> tensor<16x4xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<16x4xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<16x4xf32>, tensor<16xi64>, tensor<f32>
  %d_w2 = train.matmul %a, %d_logits {transpose_lhs} : tensor<16x32xf32>, tensor<16x4xf32> -> tensor<32x4xf32>
  %d_a = train.matmul %d_logits, %w2 {transpose_rhs} : tensor<16x4xf32>, tensor<32x4xf32> -> tensor<16x32xf32>
  %d_h = train.relu_grad %d_a, %h : tensor<16x32xf32>
  %d_w1 = train.matmul %x, %d_h {transpose_lhs} : tensor<16x8xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %g1 = train.gradient %d_w1 : tensor<8x32xf32>
  %g2 = train.gradient %d_w2 : tensor<32x4xf32>
  %b1 = train.fill 0.9 : tensor<8x32xf32>
  %c1m = train.fill 0.1 : tensor<8x32xf32>
  %b2 = train.fill 0.99 : tensor<8x32xf32>
  %c2m = train.fill 0.01 : tensor<8x32xf32>
  %lr1 = train.fill 0.01 : tensor<8x32xf32>
  %wd1 = train.fill 0.01 : tensor<8x32xf32>
  %i1a = train.mul %b1, %m1 : tensor<8x32xf32>
  %i1b = train.mul %c1m, %g1 : tensor<8x32xf32>
  %c1 = train.add %i1a, %i1b : tensor<8x32xf32>
  %s1 = train.sign %c1 : tensor<8x32xf32>
  %d1 = train.mul %wd1, %w1 : tensor<8x32xf32>
  %u1 = train.add %s1, %d1 : tensor<8x32xf32>
  %st1 = train.mul %lr1, %u1 : tensor<8x32xf32>
  %nw1 = train.sub %w1, %st1 : tensor<8x32xf32>
  %n1a = train.mul %b2, %m1 : tensor<8x32xf32>
  %n1b = train.mul %c2m, %g1 : tensor<8x32xf32>
  %nm1 = train.add %n1a, %n1b : tensor<8x32xf32>
  %b1b = train.fill 0.9 : tensor<32x4xf32>
  %c1mb = train.fill 0.1 : tensor<32x4xf32>
  %b2b = train.fill 0.99 : tensor<32x4xf32>
  %c2mb = train.fill 0.01 : tensor<32x4xf32>
  %lr2 = train.fill 0.01 : tensor<32x4xf32>
  %wd2 = train.fill 0.01 : tensor<32x4xf32>
  %i2a = train.mul %b1b, %m2 : tensor<32x4xf32>
  %i2b = train.mul %c1mb, %g2 : tensor<32x4xf32>
  %c2 = train.add %i2a, %i2b : tensor<32x4xf32>
  %s2 = train.sign %c2 : tensor<32x4xf32>
  %d2 = train.mul %wd2, %w2 : tensor<32x4xf32>
  %u2 = train.add %s2, %d2 : tensor<32x4xf32>
  %st2 = train.mul %lr2, %u2 : tensor<32x4xf32>
  %nw2 = train.sub %w2, %st2 : tensor<32x4xf32>
  %n2a = train.mul %b2b, %m2 : tensor<32x4xf32>
  %n2b = train.mul %c2mb, %g2 : tensor<32x4xf32>
  %nm2 = train.add %n2a, %n2b : tensor<32x4xf32>
  return %loss, %nw1, %nw2, %nm1, %nm2 : tensor<f32>, tensor<8x32xf32>, tensor<32x4xf32>, tensor<8x32xf32>, tensor<32x4xf32>
}
