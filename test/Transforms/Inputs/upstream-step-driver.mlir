// Calls the loss-scaled upstream step (test/Transforms/upstream-loss-scaling.mlir)
// twice: on moderate inputs (finite: the unscaled gradient, the scale kept,
// the count up) and on inputs whose f16 products overflow (not finite: the
// scale halved, the count reset).
func.func @main() {
  %x = arith.constant dense<0.5> : tensor<4x8xf32>
  %w = arith.constant dense<0.25> : tensor<8x16xf32>
  %scale = arith.constant dense<1024.0> : tensor<f32>
  %count = arith.constant dense<0> : tensor<i64>
  %loss, %dw, %finite, %s2, %c2 = func.call @grads(%x, %w, %scale, %count) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<8x16xf32>, tensor<i1>, tensor<f32>, tensor<i64>)
  %c0 = arith.constant 0 : index
  %g = tensor.extract %dw[%c0, %c0] : tensor<8x16xf32>
  %f = tensor.extract %finite[] : tensor<i1>
  %s = tensor.extract %s2[] : tensor<f32>
  %c = tensor.extract %c2[] : tensor<i64>
  vector.print %g : f32
  vector.print %f : i1
  vector.print %s : f32
  vector.print %c : i64
  %huge = arith.constant dense<6.0e4> : tensor<4x8xf32>
  %l3, %dw3, %finite3, %s3, %c3 = func.call @grads(%huge, %w, %scale, %count) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<8x16xf32>, tensor<i1>, tensor<f32>, tensor<i64>)
  %f3 = tensor.extract %finite3[] : tensor<i1>
  %s3s = tensor.extract %s3[] : tensor<f32>
  vector.print %f3 : i1
  %c3s = tensor.extract %c3[] : tensor<i64>
  vector.print %s3s : f32
  vector.print %c3s : i64
  return
}
