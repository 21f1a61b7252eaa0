// RUN: mp-opt %s --mp-decompose --split-input-file | FileCheck %s

// Divisible sizes: the adaptive windows are avg_pool2d's, in both layouts,
// forward and gradient; mp.force carries over.
// CHECK-LABEL: func.func @divisible
// CHECK: train.avg_pool2d NCHW %{{.*}} {kernel = array<i64: 4, 2>, mp.force = "fp32", strides = array<i64: 4, 2>} : tensor<2x3x8x6xf32> -> tensor<2x3x2x3xf32>
// CHECK: train.avg_pool2d_grad NHWC %{{.*}} {kernel = array<i64: 7, 7>, strides = array<i64: 7, 7>} : tensor<2x1x1x5xbf16> -> tensor<2x7x7x5xbf16>
// CHECK-NOT: adaptive
func.func @divisible(%x: tensor<2x3x8x6xf32>, %g: tensor<2x1x1x5xbf16>) -> (tensor<2x3x2x3xf32>, tensor<2x7x7x5xbf16>) {
  %0 = train.adaptive_avg_pool2d NCHW %x {mp.force = "fp32"} : tensor<2x3x8x6xf32> -> tensor<2x3x2x3xf32>
  %1 = train.adaptive_avg_pool2d_grad NHWC %g : tensor<2x1x1x5xbf16> -> tensor<2x7x7x5xbf16>
  return %0, %1 : tensor<2x3x2x3xf32>, tensor<2x7x7x5xbf16>
}

// -----

// 7 into 3 overlaps (windows [0, 3), [2, 5), [4, 7)): kept.
// CHECK-LABEL: func.func @overlapping
// CHECK: train.adaptive_avg_pool2d NCHW
// CHECK: train.adaptive_avg_pool2d_grad NCHW
func.func @overlapping(%x: tensor<1x2x7x4xf32>, %g: tensor<1x2x3x2xf32>) -> (tensor<1x2x3x2xf32>, tensor<1x2x7x4xf32>) {
  %0 = train.adaptive_avg_pool2d NCHW %x : tensor<1x2x7x4xf32> -> tensor<1x2x3x2xf32>
  %1 = train.adaptive_avg_pool2d_grad NCHW %g : tensor<1x2x3x2xf32> -> tensor<1x2x7x4xf32>
  return %0, %1 : tensor<1x2x3x2xf32>, tensor<1x2x7x4xf32>
}
