// RUN: mp-opt %s -split-input-file --mp-channels-last | FileCheck %s
// RUN: mp-opt %s -split-input-file --mp-channels-last --mp-channels-last | FileCheck %s
// RUN: mp-opt %examples/cnn.mlir --mp-channels-last | FileCheck %s --check-prefix=CNN
// RUN: mp-opt %examples/separable_cnn.mlir --mp-channels-last | FileCheck %s --check-prefix=SEP

// mp-channels-last: the NCHW image ops of a function with a convolution run
// in NHWC; transposes stay where values enter or leave the chain.

// conv -> batch norm -> relu -> max pool -> conv, and the backward ops of
// the last layers: the image is transposed once; the filters and the filter
// gradient stay OIHW (`filter OIHW`), so no transpose of a weight is left;
// nothing in between.
// CHECK-LABEL: func.func @chain
// CHECK: %[[X:.*]] = train.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>} : tensor<2x3x8x8xf32> -> tensor<2x8x8x3xf32>
// CHECK: %[[C1:.*]] = train.conv2d NHWC filter OIHW %[[X]], %arg1 {padding = array<i64: 1, 1, 1, 1>} : tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32> -> tensor<2x8x8x4xf32>
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}}, %[[M:.*]], %[[S:.*]] = train.batch_norm %[[C1]], %arg2, %arg3, %arg4, %arg4 {feature_dim = 3 : i64} : tensor<2x8x8x4xf32>, tensor<4xf32>
// CHECK: %[[R:.*]] = train.relu %[[Y]] : tensor<2x8x8x4xf32>
// CHECK: %[[P:.*]] = train.max_pool2d NHWC %[[R]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x8x8x4xf32> -> tensor<2x4x4x4xf32>
// CHECK: %[[C2:.*]] = train.conv2d NHWC filter OIHW %[[P]], %arg5
// CHECK: %[[G:.*]] = train.global_avg_pool2d NHWC %[[C2]] : tensor<2x4x4x8xf32> -> tensor<2x8xf32>
// CHECK: %[[DG:.*]] = train.global_avg_pool2d_grad NHWC %arg6 : tensor<2x8xf32> -> tensor<2x4x4x8xf32>
// CHECK: %[[DF:.*]] = train.conv2d_backward_filter NHWC filter OIHW %[[P]], %[[DG]] {padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x4xf32>, tensor<2x4x4x8xf32> -> tensor<8x4x3x3xf32>
// CHECK: %[[DD:.*]] = train.conv2d_backward_data NHWC filter OIHW %[[DG]], %arg5 {padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x8xf32>, tensor<8x4x3x3xf32> -> tensor<2x4x4x4xf32>
// CHECK: %[[DP:.*]] = train.max_pool2d_grad NHWC %[[DD]], %[[R]]
// CHECK: %[[DR:.*]] = train.relu_grad %[[DP]], %[[Y]] : tensor<2x8x8x4xf32>
// CHECK: %[[DX:.*]], %[[DS:.*]], %[[DO:.*]] = train.batch_norm_grad %[[DR]], %[[C1]], %arg2, %[[M]], %[[S]] {feature_dim = 3 : i64}
// CHECK-NOT: train.transpose
// CHECK: return %[[G]], %[[DF]], %[[DS]], %[[DO]]
func.func @chain(%x: tensor<2x3x8x8xf32>, %w1: tensor<4x3x3x3xf32>, %scale: tensor<4xf32>, %offset: tensor<4xf32>, %stat: tensor<4xf32>, %w2: tensor<8x4x3x3xf32>, %dgap: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c1 = train.conv2d NCHW %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
  %bn:5 = train.batch_norm %c1, %scale, %offset, %stat, %stat : tensor<2x4x8x8xf32>, tensor<4xf32>
  %r = train.relu %bn#0 : tensor<2x4x8x8xf32>
  %p = train.max_pool2d NCHW %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
  %c2 = train.conv2d NCHW %p, %w2 {padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x4xf32>, tensor<8x4x3x3xf32> -> tensor<2x8x4x4xf32>
  %g = train.global_avg_pool2d NCHW %c2 : tensor<2x8x4x4xf32> -> tensor<2x8xf32>
  %dg = train.global_avg_pool2d_grad NCHW %dgap : tensor<2x8xf32> -> tensor<2x8x4x4xf32>
  %dw2 = train.conv2d_backward_filter NCHW %p, %dg {padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x4xf32>, tensor<2x8x4x4xf32> -> tensor<8x4x3x3xf32>
  %dp = train.conv2d_backward_data NCHW %dg, %w2 {padding = array<i64: 1, 1, 1, 1>} : tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32> -> tensor<2x4x4x4xf32>
  %dr = train.max_pool2d_grad NCHW %dp, %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x4x4x4xf32>, tensor<2x4x8x8xf32>
  %dbn = train.relu_grad %dr, %bn#0 : tensor<2x4x8x8xf32>
  %dx:3 = train.batch_norm_grad %dbn, %c1, %scale, %bn#3, %bn#4 : tensor<2x4x8x8xf32>, tensor<4xf32>
  return %g, %dw2, %dx#1, %dx#2 : tensor<2x8xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A residual add of the block's input joins the chain (the input is
// transposed once, for the conv and the add); a value the function returns
// in NCHW, and one read by an op without an NHWC form (a reshape), are
// transposed back where they leave.
// CHECK-LABEL: func.func @residual
// CHECK-DAG: %[[X:.*]] = train.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C:.*]] = train.conv2d NHWC filter OIHW %[[X]], %arg1
// CHECK: %[[S:.*]] = train.add %[[C]], %[[X]] : tensor<2x6x6x4xf32>
// CHECK: %[[B:.*]] = train.transpose %[[S]] {permutation = array<i64: 0, 3, 1, 2>} : tensor<2x6x6x4xf32> -> tensor<2x4x6x6xf32>
// CHECK: %[[F:.*]] = train.reshape %[[B]] : tensor<2x4x6x6xf32> -> tensor<2x144xf32>
// CHECK: return %[[B]], %[[F]]
func.func @residual(%x: tensor<2x4x6x6xf32>, %w: tensor<4x4x3x3xf32>) -> (tensor<2x4x6x6xf32>, tensor<2x144xf32>) {
  %c = train.conv2d NCHW %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x6x6xf32>, tensor<4x4x3x3xf32> -> tensor<2x4x6x6xf32>
  %s = train.add %c, %x : tensor<2x4x6x6xf32>
  %f = train.reshape %s : tensor<2x4x6x6xf32> -> tensor<2x144xf32>
  return %s, %f : tensor<2x4x6x6xf32>, tensor<2x144xf32>
}

// -----

// PyTorch's global average pooling as exported: a mean over H and W, and
// its gradient a broadcast divided by a fill. The mean reduces the NHWC
// value over its H and W; the broadcast, the fill and the division are made
// in NHWC (no transpose of the full-size gradient; the NCHW ones go). The
// returned gradient is transposed back.
// CHECK-LABEL: func.func @mean_pool
// CHECK: %[[C:.*]] = train.conv2d NHWC
// CHECK: %[[R:.*]] = train.relu %[[C]] : tensor<2x3x3x4xf32>
// CHECK: train.reduce_mean %[[R]] {dims = array<i64: 1, 2>} : tensor<2x3x3x4xf32> -> tensor<2x4xf32>
// CHECK: %[[B:.*]] = train.broadcast %arg2 {dims = array<i64: 0, 3>} : tensor<2x4xf32> -> tensor<2x3x3x4xf32>
// CHECK: %[[F:.*]] = train.fill 9.000000e+00 : tensor<2x3x3x4xf32>
// CHECK: %[[D:.*]] = train.div %[[B]], %[[F]] : tensor<2x3x3x4xf32>
// CHECK: %[[G:.*]] = train.relu_grad %[[D]], %[[R]] : tensor<2x3x3x4xf32>
// CHECK-NOT: train.broadcast
// CHECK-NOT: train.fill
// CHECK: train.transpose %[[G]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK: return
func.func @mean_pool(%x: tensor<2x3x3x3xf32>, %w: tensor<4x3x1x1xf32>, %dm: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4x3x3xf32>) {
  %c = train.conv2d NCHW %x, %w : tensor<2x3x3x3xf32>, tensor<4x3x1x1xf32> -> tensor<2x4x3x3xf32>
  %r = train.relu %c : tensor<2x4x3x3xf32>
  %m = train.reduce_mean %r {dims = array<i64: 2, 3>} : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
  %b = train.broadcast %dm {dims = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<2x4x3x3xf32>
  %f = train.fill 9.0 : tensor<2x4x3x3xf32>
  %d = train.div %b, %f : tensor<2x4x3x3xf32>
  %g = train.relu_grad %d, %r : tensor<2x4x3x3xf32>
  %dc = train.conv2d_backward_data NCHW %g, %w : tensor<2x4x3x3xf32>, tensor<4x3x1x1xf32> -> tensor<2x3x3x3xf32>
  return %m, %g : tensor<2x4xf32>, tensor<2x4x3x3xf32>
}

// -----

// A fill two hoisted divisions read is made in NHWC once (and the NCHW one
// goes).
// CHECK-LABEL: func.func @shared_fill
// CHECK: %[[F:.*]] = train.fill 9.000000e+00 : tensor<2x3x3x4xf32>
// CHECK-NOT: train.fill
// CHECK: train.div %{{.*}}, %[[F]] : tensor<2x3x3x4xf32>
// CHECK: train.div %{{.*}}, %[[F]] : tensor<2x3x3x4xf32>
func.func @shared_fill(%x: tensor<2x3x3x3xf32>, %w: tensor<4x3x1x1xf32>, %a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> (tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>) {
  %c = train.conv2d NCHW %x, %w : tensor<2x3x3x3xf32>, tensor<4x3x1x1xf32> -> tensor<2x4x3x3xf32>
  %ba = train.broadcast %a {dims = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<2x4x3x3xf32>
  %bb = train.broadcast %b {dims = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<2x4x3x3xf32>
  %f = train.fill 9.0 : tensor<2x4x3x3xf32>
  %da = train.div %ba, %f : tensor<2x4x3x3xf32>
  %db = train.div %bb, %f : tensor<2x4x3x3xf32>
  %ga = train.relu_grad %da, %c : tensor<2x4x3x3xf32>
  %gb = train.relu_grad %db, %c : tensor<2x4x3x3xf32>
  %xa = train.conv2d_backward_data NCHW %ga, %w : tensor<2x4x3x3xf32>, tensor<4x3x1x1xf32> -> tensor<2x3x3x3xf32>
  %xb = train.conv2d_backward_data NCHW %gb, %w : tensor<2x4x3x3xf32>, tensor<4x3x1x1xf32> -> tensor<2x3x3x3xf32>
  return %xa, %xb : tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>
}

// -----

// Casts are elementwise: a bf16 chain stays in NHWC through them.
// CHECK-LABEL: func.func @casts
// CHECK: %[[C:.*]] = train.conv2d NHWC
// CHECK: %[[W:.*]] = mp.cast %[[C]] : tensor<1x4x4x2xbf16> to tensor<1x4x4x2xf32>
// CHECK: %[[P:.*]] = train.max_pool2d NHWC %[[W]]
// CHECK: train.transpose %[[P]] {permutation = array<i64: 0, 3, 1, 2>}
func.func @casts(%x: tensor<1x2x4x4xbf16>, %w: tensor<2x2x1x1xbf16>) -> tensor<1x2x2x2xf32> {
  %c = train.conv2d NCHW %x, %w : tensor<1x2x4x4xbf16>, tensor<2x2x1x1xbf16> -> tensor<1x2x4x4xbf16>
  %f = mp.cast %c : tensor<1x2x4x4xbf16> to tensor<1x2x4x4xf32>
  %p = train.max_pool2d NCHW %f {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %p : tensor<1x2x2x2xf32>
}

// -----

// Without a convolution nothing changes: pooling alone stays NCHW, and a
// step already in NHWC is left as it is.
// CHECK-LABEL: func.func @no_conv
// CHECK-NOT: train.transpose
// CHECK: train.max_pool2d NCHW
func.func @no_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %p = train.max_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %p : tensor<1x2x2x2xf32>
}
// CHECK-LABEL: func.func @nhwc
// CHECK-NOT: train.transpose
// CHECK: train.conv2d NHWC %arg0, %arg1
func.func @nhwc(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %c = train.conv2d NHWC %x, %w : tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x4x4x2xf32>
  return %c : tensor<1x4x4x2xf32>
}

// -----

// The model's own permute to channels-last of a chain value (ConvNeXt's
// x.permute(0, 2, 3, 1) before its LayerNorm) is the NHWC value itself,
// and a transpose of a transpose that does not cancel reads the first one's
// operand with the permutations composed.
// CHECK-LABEL: func.func @own_permute
// CHECK: %[[C:.*]] = train.conv2d NHWC filter OIHW
// CHECK: %[[T:.*]] = train.transpose %[[C]] {permutation = array<i64: 0, 3, 2, 1>} : tensor<2x5x6x4xf32> -> tensor<2x4x6x5xf32>
// CHECK-NOT: train.transpose
// CHECK: return %[[C]], %[[T]]
func.func @own_permute(%x: tensor<2x3x5x6xf32>, %w: tensor<4x3x1x1xf32>) -> (tensor<2x5x6x4xf32>, tensor<2x4x6x5xf32>) {
  %c = train.conv2d NCHW %x, %w : tensor<2x3x5x6xf32>, tensor<4x3x1x1xf32> -> tensor<2x4x5x6xf32>
  %p = train.transpose %c {permutation = array<i64: 0, 2, 3, 1>} : tensor<2x4x5x6xf32> -> tensor<2x5x6x4xf32>
  %q = train.transpose %c {permutation = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x6xf32> -> tensor<2x4x6x5xf32>
  return %p, %q : tensor<2x5x6x4xf32>, tensor<2x4x6x5xf32>
}

// -----

// The examples: the CNN's three convolutions and the separable CNN's
// grouped ones run in NHWC; the only transpose is the input's (the
// filters and their gradients stay OIHW).
// CNN-NOT: NCHW
// CNN-NOT: feature_dim = 1
// SEP-NOT: NCHW
// SEP-COUNT-1: train.transpose
// SEP-NOT: train.transpose
