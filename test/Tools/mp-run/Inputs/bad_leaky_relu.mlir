// activations.mlir: an attribute of the wrong kind is a located error.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = train.leaky_relu %x {negative_slope = 1 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}
