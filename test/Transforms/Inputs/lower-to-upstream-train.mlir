// A train op has no upstream form: mp-lower-to-upstream names it.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = train.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
