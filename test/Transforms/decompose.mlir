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

// A divisible adaptive pool (replaced, and so erased, inside the pass's
// loop) in one function with attention (erased after it): the pass must
// not read the erased pool again (a heap-use-after-free under ASan before
// the fix: the attention ops were picked out of the same list by isa<>).
// CHECK-LABEL: func.func @pool_and_attention
// CHECK: train.avg_pool2d NHWC
// CHECK: train.softmax
// CHECK-NOT: train.attention
// CHECK-NOT: adaptive
func.func @pool_and_attention(%x: tensor<2x4x4x8xf32>, %q: tensor<2x3x8xf32>) -> (tensor<2x1x1x8xf32>, tensor<2x3x8xf32>) {
  %p = train.adaptive_avg_pool2d NHWC %x : tensor<2x4x4x8xf32> -> tensor<2x1x1x8xf32>
  %o = train.attention %q, %q, %q : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  return %p, %o : tensor<2x1x1x8xf32>, tensor<2x3x8xf32>
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

// -----

// conv1d and both gradients as conv2d on a unit height, PyTorch's NCL /
// OIK and Keras' NLC / KIO, with stride, padding, dilation and groups.
// CHECK-LABEL: func.func @conv1d_ncl
// CHECK: %[[X:.*]] = train.reshape %arg0 : tensor<2x4x10xbf16> -> tensor<2x4x1x10xbf16>
// CHECK: %[[F:.*]] = train.reshape %arg1 : tensor<6x2x3xbf16> -> tensor<6x2x1x3xbf16>
// CHECK: %[[Y:.*]] = train.conv2d NCHW %[[X]], %[[F]] {dilations = array<i64: 1, 2>, groups = 2 : i64, padding = array<i64: 0, 0, 1, 2>, strides = array<i64: 1, 2>} : tensor<2x4x1x10xbf16>, tensor<6x2x1x3xbf16> -> tensor<2x6x1x5xf32>
// CHECK: train.reshape %[[Y]] : tensor<2x6x1x5xf32> -> tensor<2x6x5xf32>
// CHECK: train.conv2d_backward_data NCHW {{.*}} : tensor<2x6x1x5xbf16>, tensor<6x2x1x3xbf16> -> tensor<2x4x1x10xbf16>
// CHECK: train.conv2d_backward_filter NCHW {{.*}} : tensor<2x4x1x10xbf16>, tensor<2x6x1x5xbf16> -> tensor<6x2x1x3xf32>
// CHECK-NOT: conv1d
func.func @conv1d_ncl(%x: tensor<2x4x10xbf16>, %f: tensor<6x2x3xbf16>, %g: tensor<2x6x5xbf16>) -> (tensor<2x6x5xf32>, tensor<2x4x10xbf16>, tensor<6x2x3xf32>) {
  %y = train.conv1d NCL %x, %f {stride = 2, padding = array<i64: 1, 2>, dilation = 2, groups = 2} : tensor<2x4x10xbf16>, tensor<6x2x3xbf16> -> tensor<2x6x5xf32>
  %dx = train.conv1d_backward_data NCL %g, %f {stride = 2, padding = array<i64: 1, 2>, dilation = 2, groups = 2} : tensor<2x6x5xbf16>, tensor<6x2x3xbf16> -> tensor<2x4x10xbf16>
  %df = train.conv1d_backward_filter NCL %x, %g {stride = 2, padding = array<i64: 1, 2>, dilation = 2, groups = 2} : tensor<2x4x10xbf16>, tensor<2x6x5xbf16> -> tensor<6x2x3xf32>
  return %y, %dx, %df : tensor<2x6x5xf32>, tensor<2x4x10xbf16>, tensor<6x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @conv1d_nlc
// CHECK: train.reshape %arg0 : tensor<2x10x4xf32> -> tensor<2x1x10x4xf32>
// CHECK: train.reshape %arg1 : tensor<3x4x6xf32> -> tensor<1x3x4x6xf32>
// CHECK: train.conv2d NHWC {{.*}} : tensor<2x1x10x4xf32>, tensor<1x3x4x6xf32> -> tensor<2x1x8x6xf32>
// CHECK: train.reshape {{.*}} : tensor<2x1x8x6xf32> -> tensor<2x8x6xf32>
func.func @conv1d_nlc(%x: tensor<2x10x4xf32>, %f: tensor<3x4x6xf32>) -> tensor<2x8x6xf32> {
  %y = train.conv1d NLC %x, %f : tensor<2x10x4xf32>, tensor<3x4x6xf32> -> tensor<2x8x6xf32>
  return %y : tensor<2x8x6xf32>
}

// -----

// Broadcasting matmuls: an rhs with an all-1 batch becomes the shared
// rank-2 form; a rank-2 lhs, and operands whose batches broadcast against
// each other, are broadcast to the result's batch; canonical forms stay.
// CHECK-LABEL: func.func @broadcast_matmul
// CHECK: %[[R2:.*]] = train.reshape %arg1 : tensor<1x1x8x3xf32> -> tensor<8x3xf32>
// CHECK: train.matmul %arg0, %[[R2]] : tensor<2x4x5x8xf32>, tensor<8x3xf32> -> tensor<2x4x5x3xf32>
// CHECK: %[[L:.*]] = train.broadcast %arg2 {dims = array<i64: 1, 2>} : tensor<5x8xf32> -> tensor<6x5x8xf32>
// CHECK: train.matmul %[[L]], %arg3 {transpose_rhs} : tensor<6x5x8xf32>, tensor<6x3x8xf32> -> tensor<6x5x3xf32>
// CHECK: %[[A:.*]] = train.broadcast %arg4 {dims = array<i64: 0, 1, 2, 3>, mp.force = "fp32"} : tensor<2x1x5x8xbf16> -> tensor<2x4x5x8xbf16>
// CHECK: %[[B:.*]] = train.broadcast %arg5 {dims = array<i64: 1, 2, 3>, mp.force = "fp32"} : tensor<4x8x3xbf16> -> tensor<2x4x8x3xbf16>
// CHECK: train.matmul %[[A]], %[[B]] {mp.force = "fp32"} : tensor<2x4x5x8xbf16>, tensor<2x4x8x3xbf16> -> tensor<2x4x5x3xf32>
// CHECK: train.matmul %arg0, %arg6 : tensor<2x4x5x8xf32>, tensor<2x4x8x3xf32>
// CHECK-NOT: train.broadcast
func.func @broadcast_matmul(%a: tensor<2x4x5x8xf32>, %b: tensor<1x1x8x3xf32>, %c: tensor<5x8xf32>, %d: tensor<6x3x8xf32>, %e: tensor<2x1x5x8xbf16>, %f: tensor<4x8x3xbf16>, %g: tensor<2x4x8x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<6x5x3xf32>, tensor<2x4x5x3xf32>, tensor<2x4x5x3xf32>) {
  %0 = train.matmul %a, %b : tensor<2x4x5x8xf32>, tensor<1x1x8x3xf32> -> tensor<2x4x5x3xf32>
  %1 = train.matmul %c, %d {transpose_rhs} : tensor<5x8xf32>, tensor<6x3x8xf32> -> tensor<6x5x3xf32>
  %2 = train.matmul %e, %f {mp.force = "fp32"} : tensor<2x1x5x8xbf16>, tensor<4x8x3xbf16> -> tensor<2x4x5x3xf32>
  %3 = train.matmul %a, %g : tensor<2x4x5x8xf32>, tensor<2x4x8x3xf32> -> tensor<2x4x5x3xf32>
  return %0, %1, %2, %3 : tensor<2x4x5x3xf32>, tensor<6x5x3xf32>, tensor<2x4x5x3xf32>, tensor<2x4x5x3xf32>
}

// -----

// An elementwise op over broadcasts of one shape and dims, or over a
// broadcast and a fill, runs at the small shape and is broadcast once: the
// mean's gradient (div by the count), a chain that narrows in turn, a
// shared operand, and discardable attributes. Kept: a broadcast against a
// full-size tensor, broadcasts of different dims, two fills.
// CHECK-LABEL: func.func @narrow_over_broadcast
// CHECK: %[[N:.*]] = train.fill 1.024000e+03 : tensor<4x3xf32>
// CHECK: %[[D:.*]] = train.div %arg0, %[[N]] : tensor<4x3xf32>
// CHECK: %[[M:.*]] = train.mul %[[D]], %arg1 {mp.force = "fp32"} : tensor<4x3xf32>
// CHECK: train.broadcast %[[M]] {dims = array<i64: 0, 3>, mp.force = "fp32"} : tensor<4x3xf32> -> tensor<4x5x5x3xf32>
// CHECK: %[[S:.*]] = train.maximum %arg0, %arg0 : tensor<4x3xf32>
// CHECK: train.broadcast %[[S]] {dims = array<i64: 0, 3>} : tensor<4x3xf32> -> tensor<4x5x5x3xf32>
// CHECK: %[[B:.*]] = train.broadcast %arg0 {dims = array<i64: 0, 3>} : tensor<4x3xf32> -> tensor<4x5x5x3xf32>
// CHECK: train.add %[[B]], %arg2 : tensor<4x5x5x3xf32>
// CHECK: %[[C:.*]] = train.broadcast %arg3 {dims = array<i64: 0, 1>} : tensor<3x3xf32> -> tensor<3x3x3xf32>
// CHECK: %[[E:.*]] = train.broadcast %arg3 {dims = array<i64: 1, 2>} : tensor<3x3xf32> -> tensor<3x3x3xf32>
// CHECK: train.add %[[C]], %[[E]] : tensor<3x3x3xf32>
// CHECK: %[[F2:.*]] = train.fill 2.000000e+00 : tensor<4x5x5x3xf32>
// CHECK: %[[F3:.*]] = train.fill 3.000000e+00 : tensor<4x5x5x3xf32>
// CHECK: train.sub %[[F2]], %[[F3]] : tensor<4x5x5x3xf32>
func.func @narrow_over_broadcast(%g: tensor<4x3xf32>, %h: tensor<4x3xf32>, %full: tensor<4x5x5x3xf32>, %k: tensor<3x3xf32>) -> (tensor<4x5x5x3xf32>, tensor<4x5x5x3xf32>, tensor<4x5x5x3xf32>, tensor<3x3x3xf32>, tensor<4x5x5x3xf32>) {
  %b = train.broadcast %g {dims = array<i64: 0, 3>} : tensor<4x3xf32> -> tensor<4x5x5x3xf32>
  %n = train.fill 1024.0 : tensor<4x5x5x3xf32>
  %d = train.div %b, %n : tensor<4x5x5x3xf32>
  %bh = train.broadcast %h {dims = array<i64: 0, 3>} : tensor<4x3xf32> -> tensor<4x5x5x3xf32>
  %m = train.mul %d, %bh {mp.force = "fp32"} : tensor<4x5x5x3xf32>
  %b2 = train.broadcast %g {dims = array<i64: 0, 3>} : tensor<4x3xf32> -> tensor<4x5x5x3xf32>
  %s = train.maximum %b2, %b2 : tensor<4x5x5x3xf32>
  %b3 = train.broadcast %g {dims = array<i64: 0, 3>} : tensor<4x3xf32> -> tensor<4x5x5x3xf32>
  %a = train.add %b3, %full : tensor<4x5x5x3xf32>
  %c = train.broadcast %k {dims = array<i64: 0, 1>} : tensor<3x3xf32> -> tensor<3x3x3xf32>
  %e = train.broadcast %k {dims = array<i64: 1, 2>} : tensor<3x3xf32> -> tensor<3x3x3xf32>
  %ce = train.add %c, %e : tensor<3x3x3xf32>
  %f2 = train.fill 2.0 : tensor<4x5x5x3xf32>
  %f3 = train.fill 3.0 : tensor<4x5x5x3xf32>
  %ff = train.sub %f2, %f3 : tensor<4x5x5x3xf32>
  return %m, %s, %a, %ce, %ff : tensor<4x5x5x3xf32>, tensor<4x5x5x3xf32>, tensor<4x5x5x3xf32>, tensor<3x3x3xf32>, tensor<4x5x5x3xf32>
}

// -----

// A sum over the batch of a batched x^T y (TensorFlow's gradient of an
// einsum's kernel) is one product over the stacked rows, with keep_dims
// reshaped back. Kept: a sum over a dimension other than the batch's, a
// product something else also reads, and one without transpose_lhs.
// CHECK-LABEL: func.func @sum_of_batched_products
// CHECK: %[[X:.*]] = train.reshape %arg0 : tensor<4x3x6x5xf32> -> tensor<72x5xf32>
// CHECK: %[[Y:.*]] = train.reshape %arg1 : tensor<4x3x6x7xf32> -> tensor<72x7xf32>
// CHECK: %[[P:.*]] = train.matmul %[[X]], %[[Y]] {transpose_lhs} : tensor<72x5xf32>, tensor<72x7xf32> -> tensor<5x7xf32>
// CHECK: %[[K:.*]] = train.reshape %arg0 : tensor<4x3x6x5xf32> -> tensor<72x5xf32>
// CHECK: %[[L:.*]] = train.reshape %arg1 : tensor<4x3x6x7xf32> -> tensor<72x7xf32>
// CHECK: %[[Q:.*]] = train.matmul %[[K]], %[[L]] {transpose_lhs} : tensor<72x5xf32>, tensor<72x7xf32> -> tensor<5x7xf32>
// CHECK: train.reshape %[[Q]] : tensor<5x7xf32> -> tensor<1x1x5x7xf32>
// CHECK: %[[R:.*]] = train.matmul %arg0, %arg1 {transpose_lhs} : tensor<4x3x6x5xf32>, tensor<4x3x6x7xf32> -> tensor<4x3x5x7xf32>
// CHECK: train.reduce_sum %[[R]] {dims = array<i64: 0>}
// CHECK: %[[S:.*]] = train.matmul %arg0, %arg1 {transpose_lhs} : tensor<4x3x6x5xf32>, tensor<4x3x6x7xf32> -> tensor<4x3x5x7xf32>
// CHECK: train.reduce_sum %[[S]] {dims = array<i64: 0, 1>}
// CHECK: %[[T:.*]] = train.matmul %arg2, %arg1 : tensor<4x3x5x6xf32>, tensor<4x3x6x7xf32> -> tensor<4x3x5x7xf32>
// CHECK: train.reduce_sum %[[T]] {dims = array<i64: 0, 1>}
func.func @sum_of_batched_products(%x: tensor<4x3x6x5xf32>, %y: tensor<4x3x6x7xf32>, %z: tensor<4x3x5x6xf32>) -> (tensor<5x7xf32>, tensor<1x1x5x7xf32>, tensor<3x5x7xf32>, tensor<5x7xf32>, tensor<4x3x5x7xf32>, tensor<5x7xf32>) {
  %p = train.matmul %x, %y {transpose_lhs} : tensor<4x3x6x5xf32>, tensor<4x3x6x7xf32> -> tensor<4x3x5x7xf32>
  %a = train.reduce_sum %p {dims = array<i64: 1, 0>} : tensor<4x3x5x7xf32> -> tensor<5x7xf32>
  %q = train.matmul %x, %y {transpose_lhs} : tensor<4x3x6x5xf32>, tensor<4x3x6x7xf32> -> tensor<4x3x5x7xf32>
  %b = train.reduce_sum %q {dims = array<i64: 0, 1>, keep_dims} : tensor<4x3x5x7xf32> -> tensor<1x1x5x7xf32>
  %r = train.matmul %x, %y {transpose_lhs} : tensor<4x3x6x5xf32>, tensor<4x3x6x7xf32> -> tensor<4x3x5x7xf32>
  %c = train.reduce_sum %r {dims = array<i64: 0>} : tensor<4x3x5x7xf32> -> tensor<3x5x7xf32>
  %s = train.matmul %x, %y {transpose_lhs} : tensor<4x3x6x5xf32>, tensor<4x3x6x7xf32> -> tensor<4x3x5x7xf32>
  %d = train.reduce_sum %s {dims = array<i64: 0, 1>} : tensor<4x3x5x7xf32> -> tensor<5x7xf32>
  %t = train.matmul %z, %y : tensor<4x3x5x6xf32>, tensor<4x3x6x7xf32> -> tensor<4x3x5x7xf32>
  %e = train.reduce_sum %t {dims = array<i64: 0, 1>} : tensor<4x3x5x7xf32> -> tensor<5x7xf32>
  return %a, %b, %c, %d, %s, %e : tensor<5x7xf32>, tensor<1x1x5x7xf32>, tensor<3x5x7xf32>, tensor<5x7xf32>, tensor<4x3x5x7xf32>, tensor<5x7xf32>
}

// -----

// A transpose whose last step exchanges a matmul operand's last two
// dimensions (through a reshape of the batch only) becomes the operand's
// transpose flag; what is left of it keeps the last dimension. Kept: a
// transpose that would leave a transpose moving the last dimension.
// CHECK-LABEL: func.func @transpose_into_matmul
// CHECK: %[[X:.*]] = train.reshape %arg0 : tensor<2x3x4x5xf32> -> tensor<6x4x5xf32>
// CHECK: train.matmul %[[X]], %arg3 {transpose_lhs} : tensor<6x4x5xf32>, tensor<6x4x7xf32> -> tensor<6x5x7xf32>
// CHECK: %[[K:.*]] = train.transpose %arg1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32> -> tensor<2x3x5x4xf32>
// CHECK: %[[R:.*]] = train.reshape %[[K]] : tensor<2x3x5x4xf32> -> tensor<6x5x4xf32>
// CHECK: train.matmul %arg2, %[[R]] {transpose_rhs} : tensor<6x7x4xf32>, tensor<6x5x4xf32> -> tensor<6x7x5xf32>
// CHECK: train.matmul %arg4, %arg5 : tensor<7x4xf32>, tensor<4x5xf32> -> tensor<7x5xf32>
// CHECK: %[[T:.*]] = train.transpose %arg1 {permutation = array<i64: 0, 2, 1, 3>}
// CHECK: %[[U:.*]] = train.reshape %[[T]]
// CHECK: train.matmul %[[U]], %arg6 : tensor<6x5x4xf32>, tensor<6x4x2xf32> -> tensor<6x5x2xf32>
func.func @transpose_into_matmul(%x: tensor<2x3x4x5xf32>, %k: tensor<2x5x3x4xf32>, %q: tensor<6x7x4xf32>, %y: tensor<6x4x7xf32>, %a: tensor<7x4xf32>, %bt: tensor<4x5xf32>, %z: tensor<6x4x2xf32>) -> (tensor<6x5x7xf32>, tensor<6x7x5xf32>, tensor<7x5xf32>, tensor<6x5x2xf32>) {
  %xt = train.transpose %x {permutation = array<i64: 0, 1, 3, 2>} : tensor<2x3x4x5xf32> -> tensor<2x3x5x4xf32>
  %xr = train.reshape %xt : tensor<2x3x5x4xf32> -> tensor<6x5x4xf32>
  %p = train.matmul %xr, %y : tensor<6x5x4xf32>, tensor<6x4x7xf32> -> tensor<6x5x7xf32>
  %kt = train.transpose %k {permutation = array<i64: 0, 2, 3, 1>} : tensor<2x5x3x4xf32> -> tensor<2x3x4x5xf32>
  %kr = train.reshape %kt : tensor<2x3x4x5xf32> -> tensor<6x4x5xf32>
  %s = train.matmul %q, %kr : tensor<6x7x4xf32>, tensor<6x4x5xf32> -> tensor<6x7x5xf32>
  %b = train.transpose %bt {permutation = array<i64: 1, 0>} : tensor<4x5xf32> -> tensor<5x4xf32>
  %c = train.matmul %a, %b {transpose_rhs} : tensor<7x4xf32>, tensor<5x4xf32> -> tensor<7x5xf32>
  %m = train.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32> -> tensor<2x3x5x4xf32>
  %mr = train.reshape %m : tensor<2x3x5x4xf32> -> tensor<6x5x4xf32>
  %d = train.matmul %mr, %z : tensor<6x5x4xf32>, tensor<6x4x2xf32> -> tensor<6x5x2xf32>
  return %p, %s, %c, %d : tensor<6x5x7xf32>, tensor<6x7x5xf32>, tensor<7x5xf32>, tensor<6x5x2xf32>
}

// -----

// Kept: a fold that would leave a transpose (a row-moving one) while
// something else reads the original too: both would run.
// CHECK-LABEL: func.func @shared_transpose_kept
// CHECK: %[[T:.*]] = train.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[R:.*]] = train.reshape %[[T]]
// CHECK: train.matmul %arg1, %[[R]] : tensor<6x7x4xf32>, tensor<6x4x5xf32> -> tensor<6x7x5xf32>
func.func @shared_transpose_kept(%k: tensor<2x5x3x4xf32>, %q: tensor<6x7x4xf32>) -> (tensor<6x7x5xf32>, tensor<2x3x4x5xf32>) {
  %kt = train.transpose %k {permutation = array<i64: 0, 2, 3, 1>} : tensor<2x5x3x4xf32> -> tensor<2x3x4x5xf32>
  %kr = train.reshape %kt : tensor<2x3x4x5xf32> -> tensor<6x4x5xf32>
  %s = train.matmul %q, %kr : tensor<6x7x4xf32>, tensor<6x4x5xf32> -> tensor<6x7x5xf32>
  return %s, %kt : tensor<6x7x5xf32>, tensor<2x3x4x5xf32>
}
