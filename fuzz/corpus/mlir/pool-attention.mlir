func.func @pool_and_attention(%x: tensor<2x4x4x8xf32>, %q: tensor<2x3x8xf32>) -> (tensor<2x1x1x8xf32>, tensor<2x3x8xf32>) {
  %p = train.adaptive_avg_pool2d NHWC %x : tensor<2x4x4x8xf32> -> tensor<2x1x1x8xf32>
  %o = train.attention %q, %q, %q : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  return %p, %o : tensor<2x1x1x8xf32>, tensor<2x3x8xf32>
}
