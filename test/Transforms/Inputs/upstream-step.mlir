// An upstream backward graph as a host compiler writes it (linalg, arith,
// tensor): loss = sum((x w)^2), the seed of dloss/dloss marked
// mp.grad_seed, and dloss/dw returned as the result marked mp.gradient.
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @grads(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<f32>, tensor<8x16xf32> {mp.gradient}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e0 = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction", "reduction"]} ins(%y : tensor<4x16xf32>) outs(%l0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = arith.constant {mp.grad_seed} dense<1.0> : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %seed : tensor<4x16xf32>, tensor<f32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %t = arith.mulf %a, %two : f32
    %d = arith.mulf %t, %g : f32
    linalg.yield %d : f32
  } -> tensor<4x16xf32>
  %et = tensor.empty() : tensor<8x4xf32>
  %xt = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%et : tensor<8x4xf32>) permutation = [1, 0]
  %ew = tensor.empty() : tensor<8x16xf32>
  %accw = linalg.fill ins(%zero : f32) outs(%ew : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<8x4xf32>, tensor<4x16xf32>) outs(%accw : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %loss, %dw : tensor<f32>, tensor<8x16xf32>
}
