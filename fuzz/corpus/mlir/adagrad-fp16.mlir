func.func @train_step(
    %x: tensor<16x8xf32> {train.name = "x", train.role = "input"},
    %labels: tensor<16xi64> {train.name = "labels", train.role = "label"},
    %w0: tensor<8x4xf32> {train.name = "fc0.weight", train.role = "param"},
    %s0: tensor<8x4xf32> {train.name = "fc0.weight.sum", train.role = "opt_state"},
    %w1: tensor<8x4xf32> {train.name = "fc1.weight", train.role = "param"},
    %s1: tensor<8x4xf32> {train.name = "fc1.weight.sum", train.role = "opt_state"},
    %w2: tensor<8x4xf32> {train.name = "fc2.weight", train.role = "param"},
    %s2: tensor<8x4xf32> {train.name = "fc2.weight.sum", train.role = "opt_state"},
    %w3: tensor<8x4xf32> {train.name = "fc3.weight", train.role = "param"},
    %s3: tensor<8x4xf32> {train.name = "fc3.weight.sum", train.role = "opt_state"},
    %w4: tensor<8x4xf32> {train.name = "fc4.weight", train.role = "param"},
    %s4: tensor<8x4xf32> {train.name = "fc4.weight.sum", train.role = "opt_state"},
    %w5: tensor<8x4xf32> {train.name = "fc5.weight", train.role = "param"},
    %s5: tensor<8x4xf32> {train.name = "fc5.weight.sum", train.role = "opt_state"},
    %w6: tensor<8x4xf32> {train.name = "fc6.weight", train.role = "param"},
    %s6: tensor<8x4xf32> {train.name = "fc6.weight.sum", train.role = "opt_state"},
    %w7: tensor<8x4xf32> {train.name = "fc7.weight", train.role = "param"},
    %s7: tensor<8x4xf32> {train.name = "fc7.weight.sum", train.role = "opt_state"},
    %w8: tensor<8x4xf32> {train.name = "fc8.weight", train.role = "param"},
    %s8: tensor<8x4xf32> {train.name = "fc8.weight.sum", train.role = "opt_state"},
    %w9: tensor<8x4xf32> {train.name = "fc9.weight", train.role = "param"},
    %s9: tensor<8x4xf32> {train.name = "fc9.weight.sum", train.role = "opt_state"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<8x4xf32> {train.name = "fc0.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc0.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc1.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc1.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc2.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc2.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc3.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc3.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc4.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc4.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc5.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc5.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc6.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc6.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc7.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc7.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc8.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc8.weight.sum", train.role = "opt_state"},
    tensor<8x4xf32> {train.name = "fc9.weight", train.role = "param"},
    tensor<8x4xf32> {train.name = "fc9.weight.sum", train.role = "opt_state"}) attributes {train.step} {
  %y0 = train.matmul %x, %w0 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y1 = train.matmul %x, %w1 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y2 = train.matmul %x, %w2 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y3 = train.matmul %x, %w3 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y4 = train.matmul %x, %w4 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y5 = train.matmul %x, %w5 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y6 = train.matmul %x, %w6 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y7 = train.matmul %x, %w7 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y8 = train.matmul %x, %w8 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %y9 = train.matmul %x, %w9 : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %a1 = train.add %y0, %y1 : tensor<16x4xf32>
  %a2 = train.add %a1, %y2 : tensor<16x4xf32>
  %a3 = train.add %a2, %y3 : tensor<16x4xf32>
  %a4 = train.add %a3, %y4 : tensor<16x4xf32>
  %a5 = train.add %a4, %y5 : tensor<16x4xf32>
  %a6 = train.add %a5, %y6 : tensor<16x4xf32>
  %a7 = train.add %a6, %y7 : tensor<16x4xf32>
  %a8 = train.add %a7, %y8 : tensor<16x4xf32>
  %a9 = train.add %a8, %y9 : tensor<16x4xf32>
  %loss = train.sparse_cross_entropy %a9, %labels : tensor<16x4xf32>, tensor<16xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d = train.sparse_cross_entropy_grad %a9, %labels, %seed : tensor<16x4xf32>, tensor<16xi64>, tensor<f32>
  %eps = train.fill 1.0e-10 : tensor<8x4xf32>
  %lr = train.fill 0.01 : tensor<8x4xf32>
  %dw0 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g0 = train.gradient %dw0 : tensor<8x4xf32>
  %sq0 = train.mul %g0, %g0 : tensor<8x4xf32>
  %ns0 = train.add %s0, %sq0 : tensor<8x4xf32>
  %rt0 = train.sqrt %ns0 : tensor<8x4xf32>
  %sd0 = train.add %rt0, %eps : tensor<8x4xf32>
  %q0 = train.div %g0, %sd0 : tensor<8x4xf32>
  %st0 = train.mul %lr, %q0 : tensor<8x4xf32>
  %nw0 = train.sub %w0, %st0 : tensor<8x4xf32>
  %dw1 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g1 = train.gradient %dw1 : tensor<8x4xf32>
  %sq1 = train.mul %g1, %g1 : tensor<8x4xf32>
  %ns1 = train.add %s1, %sq1 : tensor<8x4xf32>
  %rt1 = train.sqrt %ns1 : tensor<8x4xf32>
  %sd1 = train.add %rt1, %eps : tensor<8x4xf32>
  %q1 = train.div %g1, %sd1 : tensor<8x4xf32>
  %st1 = train.mul %lr, %q1 : tensor<8x4xf32>
  %nw1 = train.sub %w1, %st1 : tensor<8x4xf32>
  %dw2 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g2 = train.gradient %dw2 : tensor<8x4xf32>
  %sq2 = train.mul %g2, %g2 : tensor<8x4xf32>
  %ns2 = train.add %s2, %sq2 : tensor<8x4xf32>
  %rt2 = train.sqrt %ns2 : tensor<8x4xf32>
  %sd2 = train.add %rt2, %eps : tensor<8x4xf32>
  %q2 = train.div %g2, %sd2 : tensor<8x4xf32>
  %st2 = train.mul %lr, %q2 : tensor<8x4xf32>
  %nw2 = train.sub %w2, %st2 : tensor<8x4xf32>
  %dw3 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g3 = train.gradient %dw3 : tensor<8x4xf32>
  %sq3 = train.mul %g3, %g3 : tensor<8x4xf32>
  %ns3 = train.add %s3, %sq3 : tensor<8x4xf32>
  %rt3 = train.sqrt %ns3 : tensor<8x4xf32>
  %sd3 = train.add %rt3, %eps : tensor<8x4xf32>
  %q3 = train.div %g3, %sd3 : tensor<8x4xf32>
  %st3 = train.mul %lr, %q3 : tensor<8x4xf32>
  %nw3 = train.sub %w3, %st3 : tensor<8x4xf32>
  %dw4 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g4 = train.gradient %dw4 : tensor<8x4xf32>
  %sq4 = train.mul %g4, %g4 : tensor<8x4xf32>
  %ns4 = train.add %s4, %sq4 : tensor<8x4xf32>
  %rt4 = train.sqrt %ns4 : tensor<8x4xf32>
  %sd4 = train.add %rt4, %eps : tensor<8x4xf32>
  %q4 = train.div %g4, %sd4 : tensor<8x4xf32>
  %st4 = train.mul %lr, %q4 : tensor<8x4xf32>
  %nw4 = train.sub %w4, %st4 : tensor<8x4xf32>
  %dw5 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g5 = train.gradient %dw5 : tensor<8x4xf32>
  %sq5 = train.mul %g5, %g5 : tensor<8x4xf32>
  %ns5 = train.add %s5, %sq5 : tensor<8x4xf32>
  %rt5 = train.sqrt %ns5 : tensor<8x4xf32>
  %sd5 = train.add %rt5, %eps : tensor<8x4xf32>
  %q5 = train.div %g5, %sd5 : tensor<8x4xf32>
  %st5 = train.mul %lr, %q5 : tensor<8x4xf32>
  %nw5 = train.sub %w5, %st5 : tensor<8x4xf32>
  %dw6 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g6 = train.gradient %dw6 : tensor<8x4xf32>
  %sq6 = train.mul %g6, %g6 : tensor<8x4xf32>
  %ns6 = train.add %s6, %sq6 : tensor<8x4xf32>
  %rt6 = train.sqrt %ns6 : tensor<8x4xf32>
  %sd6 = train.add %rt6, %eps : tensor<8x4xf32>
  %q6 = train.div %g6, %sd6 : tensor<8x4xf32>
  %st6 = train.mul %lr, %q6 : tensor<8x4xf32>
  %nw6 = train.sub %w6, %st6 : tensor<8x4xf32>
  %dw7 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g7 = train.gradient %dw7 : tensor<8x4xf32>
  %sq7 = train.mul %g7, %g7 : tensor<8x4xf32>
  %ns7 = train.add %s7, %sq7 : tensor<8x4xf32>
  %rt7 = train.sqrt %ns7 : tensor<8x4xf32>
  %sd7 = train.add %rt7, %eps : tensor<8x4xf32>
  %q7 = train.div %g7, %sd7 : tensor<8x4xf32>
  %st7 = train.mul %lr, %q7 : tensor<8x4xf32>
  %nw7 = train.sub %w7, %st7 : tensor<8x4xf32>
  %dw8 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g8 = train.gradient %dw8 : tensor<8x4xf32>
  %sq8 = train.mul %g8, %g8 : tensor<8x4xf32>
  %ns8 = train.add %s8, %sq8 : tensor<8x4xf32>
  %rt8 = train.sqrt %ns8 : tensor<8x4xf32>
  %sd8 = train.add %rt8, %eps : tensor<8x4xf32>
  %q8 = train.div %g8, %sd8 : tensor<8x4xf32>
  %st8 = train.mul %lr, %q8 : tensor<8x4xf32>
  %nw8 = train.sub %w8, %st8 : tensor<8x4xf32>
  %dw9 = train.matmul %x, %d {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %g9 = train.gradient %dw9 : tensor<8x4xf32>
  %sq9 = train.mul %g9, %g9 : tensor<8x4xf32>
  %ns9 = train.add %s9, %sq9 : tensor<8x4xf32>
  %rt9 = train.sqrt %ns9 : tensor<8x4xf32>
  %sd9 = train.add %rt9, %eps : tensor<8x4xf32>
  %q9 = train.div %g9, %sd9 : tensor<8x4xf32>
  %st9 = train.mul %lr, %q9 : tensor<8x4xf32>
  %nw9 = train.sub %w9, %st9 : tensor<8x4xf32>
  return %loss, %nw0, %ns0, %nw1, %ns1, %nw2, %ns2, %nw3, %ns3, %nw4, %ns4, %nw5, %ns5, %nw6, %ns6, %nw7, %ns7, %nw8, %ns8, %nw9, %ns9 : tensor<f32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}
