// Models of linalg's 1-D, depthwise and 2-D convolutions and pooling and of
// TOSA's convolutions, clamp and pooling (issue 18): convolutions are
// allow ops (16-bit inputs, f32 accumulation), max pooling and clamp are
// clear (exact in 16 bits; clamp's bounds rounded to the new type, a finite
// bound that overflows it becoming its largest value), sum and average
// pooling follow their neighbours and accumulate in f32. The upstream-only
// output verifies in upstream mlir-opt.
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16 cast-op=arith" -o %t.mlir
// RUN: %upstream-mlir-opt %t.mlir | FileCheck %s
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_float16 cast-op=arith" | %upstream-mlir-opt | FileCheck %s --check-prefix=F16

// CHECK-LABEL: func.func @linalg_conv_pool
// CHECK: linalg.conv_1d_ncw_fcw {{.*}}ins(%{{.*}}, %{{.*}} : tensor<2x4x10xbf16>, tensor<8x4x3xbf16>) outs(%{{.*}} : tensor<2x8x8xf32>)
// CHECK: linalg.pooling_ncw_max {{.*}}ins(%{{.*}}, %{{.*}} : tensor<2x8x8xbf16>, tensor<2xbf16>) outs(%{{.*}} : tensor<2x8x4xbf16>)
// CHECK: linalg.conv_1d_ncw_fcw {{.*}}ins(%{{.*}}, %{{.*}} : tensor<2x8x4xbf16>, tensor<8x8x1xbf16>) outs(%{{.*}} : tensor<2x8x4xf32>)
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}}ins(%{{.*}}, %{{.*}} : tensor<2x8x6x6xbf16>, tensor<8x3x3xbf16>) outs(%{{.*}} : tensor<2x8x4x4xf32>)
// CHECK: linalg.pooling_nchw_sum {{.*}}ins(%{{.*}}, %{{.*}} : tensor<2x8x4x4xbf16>, tensor<2x2xbf16>) outs(%{{.*}} : tensor<2x8x2x2xf32>)
// F16-LABEL: func.func @linalg_conv_pool
// F16: linalg.conv_1d_ncw_fcw {{.*}}tensor<2x4x10xf16>, tensor<8x4x3xf16>) outs(%{{.*}} : tensor<2x8x8xf32>)
func.func @linalg_conv_pool(%x: tensor<2x4x10xf32>, %w: tensor<8x4x3xf32>,
                            %w2: tensor<8x8x1xf32>,
                            %img: tensor<2x8x6x6xf32>, %dw: tensor<8x3x3xf32>)
    -> (tensor<2x8x4xf32>, tensor<2x8x2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %c = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>}
         ins(%x, %w : tensor<2x4x10xf32>, tensor<8x4x3xf32>) outs(%f0 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %win1 = tensor.empty() : tensor<2xf32>
  %e1 = tensor.empty() : tensor<2x8x4xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %p = linalg.pooling_ncw_max {dilations = dense<1> : vector<1xi64>, strides = dense<2> : vector<1xi64>}
         ins(%c, %win1 : tensor<2x8x8xf32>, tensor<2xf32>) outs(%f1 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %c2 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>}
         ins(%p, %w2 : tensor<2x8x4xf32>, tensor<8x8x1xf32>) outs(%f4 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %e2 = tensor.empty() : tensor<2x8x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
         ins(%img, %dw : tensor<2x8x6x6xf32>, tensor<8x3x3xf32>) outs(%f2 : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %win2 = tensor.empty() : tensor<2x2xf32>
  %e3 = tensor.empty() : tensor<2x8x2x2xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x8x2x2xf32>) -> tensor<2x8x2x2xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
         ins(%d, %win2 : tensor<2x8x4x4xf32>, tensor<2x2xf32>) outs(%f3 : tensor<2x8x2x2xf32>) -> tensor<2x8x2x2xf32>
  return %c2, %s : tensor<2x8x4xf32>, tensor<2x8x2x2xf32>
}

// CHECK-LABEL: func.func @tosa_conv_pool
// CHECK: tosa.conv2d {{.*}}acc_type = f32{{.*}} : (tensor<1x8x8x4xbf16>, tensor<8x3x3x4xbf16>, tensor<8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x8x8xbf16>
// CHECK: tosa.clamp {{.*}}{max_val = 3.389530e+38 : bf16, min_val = 0.000000e+00 : bf16} : (tensor<1x8x8x8xbf16>) -> tensor<1x8x8x8xbf16>
// CHECK: tosa.max_pool2d {{.*}} : (tensor<1x8x8x8xbf16>) -> tensor<1x4x4x8xbf16>
// CHECK: tosa.depthwise_conv2d {{.*}}acc_type = f32{{.*}} : (tensor<1x4x4x8xbf16>, tensor<3x3x8x1xbf16>, tensor<8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4x4x8xbf16>
// CHECK: tosa.avg_pool2d {{.*}}acc_type = f32{{.*}} : (tensor<1x4x4x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2x2x8xbf16>
// F16-LABEL: func.func @tosa_conv_pool
// F16: tosa.clamp {{.*}}{max_val = 6.550400e+04 : f16, min_val = 0.000000e+00 : f16}
func.func @tosa_conv_pool(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>,
                          %dw: tensor<3x3x8x1xf32>) -> tensor<1x32xf32> {
  %bias = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
         : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %r = tosa.clamp %c {max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %p = tosa.max_pool2d %r {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x4x4x8xf32>
  %d = tosa.depthwise_conv2d %p, %dw, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
         : (tensor<1x4x4x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
  %a = tosa.avg_pool2d %d, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}
         : (tensor<1x4x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x8xf32>
  %shape = tosa.const_shape {values = dense<[1, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %flat = tosa.reshape %a, %shape : (tensor<1x2x2x8xf32>, !tosa.shape<2>) -> tensor<1x32xf32>
  return %flat : tensor<1x32xf32>
}
