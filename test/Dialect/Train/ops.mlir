// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s --mlir-print-op-generic | mp-opt | FileCheck %s

// Round trip of every train op, in the custom and the generic form. Default
// attribute values are elided by the printer; non-default ones are kept.

// CHECK-LABEL: func.func @unary(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3xf32>, [[H:%[^:]+]]: tensor<4xbf16>, [[G:%[^:]+]]: tensor<4xf16>) -> (tensor<2x3xf32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf16>)
// CHECK-NEXT: [[NEG:%[^ ,]+]] = train.neg [[X]] : tensor<2x3xf32>
// CHECK-NEXT: [[EXP:%[^ ,]+]] = train.exp [[NEG]] : tensor<2x3xf32>
// CHECK-NEXT: [[LOG:%[^ ,]+]] = train.log [[EXP]] : tensor<2x3xf32>
// CHECK-NEXT: [[SQRT:%[^ ,]+]] = train.sqrt [[LOG]] : tensor<2x3xf32>
// CHECK-NEXT: [[RSQRT:%[^ ,]+]] = train.rsqrt [[SQRT]] : tensor<2x3xf32>
// CHECK-NEXT: [[TANH:%[^ ,]+]] = train.tanh [[RSQRT]] : tensor<2x3xf32>
// CHECK-NEXT: [[SIGMOID:%[^ ,]+]] = train.sigmoid [[H]] : tensor<4xbf16>
// CHECK-NEXT: [[ERF:%[^ ,]+]] = train.erf [[SIGMOID]] : tensor<4xbf16>
// CHECK-NEXT: [[RELU:%[^ ,]+]] = train.relu [[G]] : tensor<4xf16>
// CHECK-NEXT: [[GELU:%[^ ,]+]] = train.gelu [[RELU]] : tensor<4xf16>
// CHECK-NEXT: [[GELU2:%[^ ,]+]] = train.gelu [[GELU]] {tanh_approx} : tensor<4xf16>
// CHECK-NEXT: return [[TANH]], [[ERF]], [[GELU]], [[GELU2]] : tensor<2x3xf32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf16>
func.func @unary(%x: tensor<2x3xf32>, %h: tensor<4xbf16>, %g: tensor<4xf16>) -> (tensor<2x3xf32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf16>) {
  %0 = train.neg %x : tensor<2x3xf32>
  %1 = train.exp %0 : tensor<2x3xf32>
  %2 = train.log %1 : tensor<2x3xf32>
  %3 = train.sqrt %2 : tensor<2x3xf32>
  %4 = train.rsqrt %3 : tensor<2x3xf32>
  %5 = train.tanh %4 : tensor<2x3xf32>
  %6 = train.sigmoid %h : tensor<4xbf16>
  %7 = train.erf %6 : tensor<4xbf16>
  %8 = train.relu %g : tensor<4xf16>
  %9 = train.gelu %8 : tensor<4xf16>
  %10 = train.gelu %9 {tanh_approx} : tensor<4xf16>
  return %5, %7, %9, %10 : tensor<2x3xf32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf16>
}

// CHECK-LABEL: func.func @binary(
// CHECK-SAME: [[A:%[^:]+]]: tensor<2x3xf32>, [[B:%[^:]+]]: tensor<2x3xf32>, [[I:%[^:]+]]: tensor<4xi32>, [[J:%[^:]+]]: tensor<4xi32>, [[H:%[^:]+]]: tensor<4xbf16>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<4xbf16>)
// CHECK-NEXT: [[ADD:%[^ ,]+]] = train.add [[A]], [[B]] : tensor<2x3xf32>
// CHECK-NEXT: [[SUB:%[^ ,]+]] = train.sub [[ADD]], [[B]] : tensor<2x3xf32>
// CHECK-NEXT: [[MUL:%[^ ,]+]] = train.mul [[SUB]], [[A]] : tensor<2x3xf32>
// CHECK-NEXT: [[DIV:%[^ ,]+]] = train.div [[MUL]], [[B]] : tensor<2x3xf32>
// CHECK-NEXT: [[MAXIMUM:%[^ ,]+]] = train.maximum [[DIV]], [[A]] : tensor<2x3xf32>
// CHECK-NEXT: [[MINIMUM:%[^ ,]+]] = train.minimum [[MAXIMUM]], [[B]] : tensor<2x3xf32>
// CHECK-NEXT: [[POW:%[^ ,]+]] = train.pow [[MINIMUM]], [[A]] : tensor<2x3xf32>
// CHECK-NEXT: [[ADD2:%[^ ,]+]] = train.add [[I]], [[J]] : tensor<4xi32>
// CHECK-NEXT: [[MUL2:%[^ ,]+]] = train.mul [[ADD2]], [[J]] : tensor<4xi32>
// CHECK-NEXT: [[MAXIMUM2:%[^ ,]+]] = train.maximum [[MUL2]], [[I]] : tensor<4xi32>
// CHECK-NEXT: [[POW2:%[^ ,]+]] = train.pow [[H]], [[H]] : tensor<4xbf16>
// CHECK-NEXT: return [[POW]], [[MAXIMUM2]], [[POW2]] : tensor<2x3xf32>, tensor<4xi32>, tensor<4xbf16>
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>, %h: tensor<4xbf16>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<4xbf16>) {
  %0 = train.add %a, %b : tensor<2x3xf32>
  %1 = train.sub %0, %b : tensor<2x3xf32>
  %2 = train.mul %1, %a : tensor<2x3xf32>
  %3 = train.div %2, %b : tensor<2x3xf32>
  %4 = train.maximum %3, %a : tensor<2x3xf32>
  %5 = train.minimum %4, %b : tensor<2x3xf32>
  %6 = train.pow %5, %a : tensor<2x3xf32>
  %7 = train.add %i, %j : tensor<4xi32>
  %8 = train.mul %7, %j : tensor<4xi32>
  %9 = train.maximum %8, %i : tensor<4xi32>
  %10 = train.pow %h, %h : tensor<4xbf16>
  return %6, %9, %10 : tensor<2x3xf32>, tensor<4xi32>, tensor<4xbf16>
}

// CHECK-LABEL: func.func @compare_select(
// CHECK-SAME: [[A:%[^:]+]]: tensor<2x3xf32>, [[B:%[^:]+]]: tensor<2x3xf32>, [[I:%[^:]+]]: tensor<4xi64>, [[J:%[^:]+]]: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<4xi64>, tensor<4xi1>)
// CHECK-NEXT: [[COMPARE:%[^ ,]+]] = train.compare gt, [[A]], [[B]] : tensor<2x3xf32>
// CHECK-NEXT: [[SELECT:%[^ ,]+]] = train.select [[COMPARE]], [[A]], [[B]] : tensor<2x3xf32>
// CHECK-NEXT: [[COMPARE2:%[^ ,]+]] = train.compare le, [[I]], [[J]] : tensor<4xi64>
// CHECK-NEXT: [[SELECT2:%[^ ,]+]] = train.select [[COMPARE2]], [[I]], [[J]] : tensor<4xi64>
// CHECK-NEXT: [[COMPARE3:%[^ ,]+]] = train.compare eq, [[I]], [[J]] : tensor<4xi64>
// CHECK-NEXT: [[COMPARE4:%[^ ,]+]] = train.compare ne, [[I]], [[J]] : tensor<4xi64>
// CHECK-NEXT: [[COMPARE5:%[^ ,]+]] = train.compare lt, [[I]], [[J]] : tensor<4xi64>
// CHECK-NEXT: [[COMPARE6:%[^ ,]+]] = train.compare ge, [[I]], [[J]] : tensor<4xi64>
// CHECK-NEXT: [[SELECT3:%[^ ,]+]] = train.select [[COMPARE3]], [[COMPARE4]], [[COMPARE5]] : tensor<4xi1>
// CHECK-NEXT: [[SELECT4:%[^ ,]+]] = train.select [[COMPARE6]], [[SELECT3]], [[COMPARE2]] : tensor<4xi1>
// CHECK-NEXT: return [[SELECT]], [[SELECT2]], [[SELECT4]] : tensor<2x3xf32>, tensor<4xi64>, tensor<4xi1>
func.func @compare_select(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<4xi64>, %j: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<4xi64>, tensor<4xi1>) {
  %0 = train.compare gt, %a, %b : tensor<2x3xf32>
  %1 = train.select %0, %a, %b : tensor<2x3xf32>
  %2 = train.compare le, %i, %j : tensor<4xi64>
  %3 = train.select %2, %i, %j : tensor<4xi64>
  %4 = train.compare eq, %i, %j : tensor<4xi64>
  %5 = train.compare ne, %i, %j : tensor<4xi64>
  %6 = train.compare lt, %i, %j : tensor<4xi64>
  %7 = train.compare ge, %i, %j : tensor<4xi64>
  %8 = train.select %4, %5, %6 : tensor<4xi1>
  %9 = train.select %7, %8, %2 : tensor<4xi1>
  return %1, %3, %9 : tensor<2x3xf32>, tensor<4xi64>, tensor<4xi1>
}

// CHECK-LABEL: func.func @activation_grads(
// CHECK-SAME: [[G:%[^:]+]]: tensor<2x3xbf16>, [[S:%[^:]+]]: tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xbf16>)
// CHECK-NEXT: [[RELU_GRAD:%[^ ,]+]] = train.relu_grad [[G]], [[S]] : tensor<2x3xbf16>
// CHECK-NEXT: [[TANH_GRAD:%[^ ,]+]] = train.tanh_grad [[RELU_GRAD]], [[S]] : tensor<2x3xbf16>
// CHECK-NEXT: [[SIGMOID_GRAD:%[^ ,]+]] = train.sigmoid_grad [[TANH_GRAD]], [[S]] : tensor<2x3xbf16>
// CHECK-NEXT: [[GELU_GRAD:%[^ ,]+]] = train.gelu_grad [[SIGMOID_GRAD]], [[S]] : tensor<2x3xbf16>
// CHECK-NEXT: [[GELU_GRAD2:%[^ ,]+]] = train.gelu_grad [[SIGMOID_GRAD]], [[S]] {tanh_approx} : tensor<2x3xbf16>
// CHECK-NEXT: return [[GELU_GRAD]], [[GELU_GRAD2]] : tensor<2x3xbf16>, tensor<2x3xbf16>
func.func @activation_grads(%g: tensor<2x3xbf16>, %s: tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xbf16>) {
  %0 = train.relu_grad %g, %s : tensor<2x3xbf16>
  %1 = train.tanh_grad %0, %s : tensor<2x3xbf16>
  %2 = train.sigmoid_grad %1, %s : tensor<2x3xbf16>
  %3 = train.gelu_grad %2, %s : tensor<2x3xbf16>
  %4 = train.gelu_grad %2, %s {tanh_approx} : tensor<2x3xbf16>
  return %3, %4 : tensor<2x3xbf16>, tensor<2x3xbf16>
}

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: [[A:%[^:]+]]: tensor<4x8xbf16>, [[B:%[^:]+]]: tensor<8x16xbf16>, [[AT:%[^:]+]]: tensor<8x4xbf16>, [[BT:%[^:]+]]: tensor<16x8xbf16>, [[BA:%[^:]+]]: tensor<3x4x8xf32>, [[BB:%[^:]+]]: tensor<3x8x16xf32>, [[W:%[^:]+]]: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<3x4x16xf32>, tensor<3x4x16xf32>)
// CHECK-NEXT: [[MATMUL:%[^ ,]+]] = train.matmul [[A]], [[B]] : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xf32>
// CHECK-NEXT: [[MATMUL2:%[^ ,]+]] = train.matmul [[AT]], [[BT]] {transpose_lhs, transpose_rhs} : tensor<8x4xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
// CHECK-NEXT: [[MATMUL3:%[^ ,]+]] = train.matmul [[A]], [[BT]] {transpose_rhs} : tensor<4x8xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
// CHECK-NEXT: [[MATMUL4:%[^ ,]+]] = train.matmul [[BA]], [[BB]] : tensor<3x4x8xf32>, tensor<3x8x16xf32> -> tensor<3x4x16xf32>
// CHECK-NEXT: [[MATMUL5:%[^ ,]+]] = train.matmul [[BA]], [[W]] : tensor<3x4x8xf32>, tensor<8x16xf32> -> tensor<3x4x16xf32>
// CHECK-NEXT: return [[MATMUL]], [[MATMUL2]], [[MATMUL3]], [[MATMUL4]], [[MATMUL5]] : tensor<4x16xf32>, tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<3x4x16xf32>, tensor<3x4x16xf32>
func.func @matmul(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>, %at: tensor<8x4xbf16>, %bt: tensor<16x8xbf16>, %ba: tensor<3x4x8xf32>, %bb: tensor<3x8x16xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<3x4x16xf32>, tensor<3x4x16xf32>) {
  %0 = train.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xf32>
  %1 = train.matmul %at, %bt {transpose_lhs, transpose_rhs} : tensor<8x4xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
  %2 = train.matmul %a, %bt {transpose_rhs} : tensor<4x8xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
  %3 = train.matmul %ba, %bb : tensor<3x4x8xf32>, tensor<3x8x16xf32> -> tensor<3x4x16xf32>
  %4 = train.matmul %ba, %w : tensor<3x4x8xf32>, tensor<8x16xf32> -> tensor<3x4x16xf32>
  return %0, %1, %2, %3, %4 : tensor<4x16xf32>, tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<3x4x16xf32>, tensor<3x4x16xf32>
}

// CHECK-LABEL: func.func @bias_add(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4x16xf32>, [[B:%[^:]+]]: tensor<16xf32>, [[Y:%[^:]+]]: tensor<2x3x8x8xf16>, [[C:%[^:]+]]: tensor<3xf16>) -> (tensor<4x16xf32>, tensor<2x3x8x8xf16>)
// CHECK-NEXT: [[BIAS_ADD:%[^ ,]+]] = train.bias_add [[X]], [[B]] : tensor<4x16xf32>, tensor<16xf32>
// CHECK-NEXT: [[BIAS_ADD2:%[^ ,]+]] = train.bias_add [[Y]], [[C]] {dim = 1 : i64} : tensor<2x3x8x8xf16>, tensor<3xf16>
// CHECK-NEXT: return [[BIAS_ADD]], [[BIAS_ADD2]] : tensor<4x16xf32>, tensor<2x3x8x8xf16>
func.func @bias_add(%x: tensor<4x16xf32>, %b: tensor<16xf32>, %y: tensor<2x3x8x8xf16>, %c: tensor<3xf16>) -> (tensor<4x16xf32>, tensor<2x3x8x8xf16>) {
  %0 = train.bias_add %x, %b : tensor<4x16xf32>, tensor<16xf32>
  %1 = train.bias_add %y, %c {dim = 1 : i64} : tensor<2x3x8x8xf16>, tensor<3xf16>
  return %0, %1 : tensor<4x16xf32>, tensor<2x3x8x8xf16>
}

// CHECK-LABEL: func.func @conv_nchw(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3x8x8xf32>, [[F:%[^:]+]]: tensor<4x3x3x3xf32>, [[DY:%[^:]+]]: tensor<2x4x6x6xf32>) -> (tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>)
// CHECK-NEXT: [[CONV2D:%[^ ,]+]] = train.conv2d NCHW [[X]], [[F]] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
// CHECK-NEXT: [[CONV2D_BACKWARD_DATA:%[^ ,]+]] = train.conv2d_backward_data NCHW [[DY]], [[F]] : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
// CHECK-NEXT: [[CONV2D_BACKWARD_FILTER:%[^ ,]+]] = train.conv2d_backward_filter NCHW [[X]], [[DY]] : tensor<2x3x8x8xf32>, tensor<2x4x6x6xf32> -> tensor<4x3x3x3xf32>
// CHECK-NEXT: return [[CONV2D]], [[CONV2D_BACKWARD_DATA]], [[CONV2D_BACKWARD_FILTER]] : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
func.func @conv_nchw(%x: tensor<2x3x8x8xf32>, %f: tensor<4x3x3x3xf32>, %dy: tensor<2x4x6x6xf32>) -> (tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) {
  %0 = train.conv2d NCHW %x, %f : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  %1 = train.conv2d_backward_data NCHW %dy, %f : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  %2 = train.conv2d_backward_filter NCHW %x, %dy : tensor<2x3x8x8xf32>, tensor<2x4x6x6xf32> -> tensor<4x3x3x3xf32>
  return %0, %1, %2 : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
}

// CHECK-LABEL: func.func @conv_nhwc(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x8x8x3xbf16>, [[F:%[^:]+]]: tensor<3x3x3x4xbf16>, [[DY:%[^:]+]]: tensor<2x3x3x4xbf16>) -> (tensor<2x3x3x4xbf16>, tensor<2x8x8x3xbf16>, tensor<3x3x3x4xbf16>)
// CHECK-NEXT: [[CONV2D:%[^ ,]+]] = train.conv2d NHWC [[X]], [[F]] {dilations = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x8x8x3xbf16>, tensor<3x3x3x4xbf16> -> tensor<2x3x3x4xbf16>
// CHECK-NEXT: [[CONV2D_BACKWARD_DATA:%[^ ,]+]] = train.conv2d_backward_data NHWC [[DY]], [[F]] {dilations = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x3x4xbf16>, tensor<3x3x3x4xbf16> -> tensor<2x8x8x3xbf16>
// CHECK-NEXT: [[CONV2D_BACKWARD_FILTER:%[^ ,]+]] = train.conv2d_backward_filter NHWC [[X]], [[DY]] {dilations = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x8x8x3xbf16>, tensor<2x3x3x4xbf16> -> tensor<3x3x3x4xbf16>
// CHECK-NEXT: return [[CONV2D]], [[CONV2D_BACKWARD_DATA]], [[CONV2D_BACKWARD_FILTER]] : tensor<2x3x3x4xbf16>, tensor<2x8x8x3xbf16>, tensor<3x3x3x4xbf16>
func.func @conv_nhwc(%x: tensor<2x8x8x3xbf16>, %f: tensor<3x3x3x4xbf16>, %dy: tensor<2x3x3x4xbf16>) -> (tensor<2x3x3x4xbf16>, tensor<2x8x8x3xbf16>, tensor<3x3x3x4xbf16>) {
  %0 = train.conv2d NHWC %x, %f {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>} : tensor<2x8x8x3xbf16>, tensor<3x3x3x4xbf16> -> tensor<2x3x3x4xbf16>
  %1 = train.conv2d_backward_data NHWC %dy, %f {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>} : tensor<2x3x3x4xbf16>, tensor<3x3x3x4xbf16> -> tensor<2x8x8x3xbf16>
  %2 = train.conv2d_backward_filter NHWC %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>} : tensor<2x8x8x3xbf16>, tensor<2x3x3x4xbf16> -> tensor<3x3x3x4xbf16>
  return %0, %1, %2 : tensor<2x3x3x4xbf16>, tensor<2x8x8x3xbf16>, tensor<3x3x3x4xbf16>
}

// The filter in the other layout than the images' own round-trips.
// CHECK-LABEL: func.func @conv_nhwc_oihw(
// CHECK-NEXT: train.conv2d NHWC filter OIHW %{{.*}} : tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32> -> tensor<2x6x6x4xf32>
// CHECK-NEXT: train.conv2d_backward_data NCHW filter HWIO %{{.*}} : tensor<2x4x6x6xf32>, tensor<3x3x3x4xf32> -> tensor<2x3x8x8xf32>
// CHECK-NEXT: train.conv2d_backward_filter NHWC filter OIHW %{{.*}} : tensor<2x8x8x3xf32>, tensor<2x6x6x4xf32> -> tensor<4x3x3x3xf32>
func.func @conv_nhwc_oihw(%x: tensor<2x8x8x3xf32>, %f: tensor<4x3x3x3xf32>, %dy: tensor<2x6x6x4xf32>, %g: tensor<2x4x6x6xf32>, %h: tensor<3x3x3x4xf32>) -> (tensor<2x6x6x4xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) {
  %0 = train.conv2d NHWC filter OIHW %x, %f : tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32> -> tensor<2x6x6x4xf32>
  %1 = train.conv2d_backward_data NCHW filter HWIO %g, %h : tensor<2x4x6x6xf32>, tensor<3x3x3x4xf32> -> tensor<2x3x8x8xf32>
  %2 = train.conv2d_backward_filter NHWC filter OIHW %x, %dy : tensor<2x8x8x3xf32>, tensor<2x6x6x4xf32> -> tensor<4x3x3x3xf32>
  return %0, %1, %2 : tensor<2x6x6x4xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
}

// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3x4x4xbf16>, [[S:%[^:]+]]: tensor<3xf32>, [[O:%[^:]+]]: tensor<3xf32>, [[M:%[^:]+]]: tensor<3xf32>, [[V:%[^:]+]]: tensor<3xf32>, [[DY:%[^:]+]]: tensor<2x3x4x4xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: [[Y:%[^ ,]+]], [[NM:%[^ ,]+]], [[NV:%[^ ,]+]], [[SM:%[^ ,]+]], [[SI:%[^ ,]+]] = train.batch_norm [[X]], [[S]], [[O]], [[M]], [[V]] : tensor<2x3x4x4xbf16>, tensor<3xf32>
// CHECK-NEXT: [[DX:%[^ ,]+]], [[DS:%[^ ,]+]], [[DO:%[^ ,]+]] = train.batch_norm_grad [[DY]], [[X]], [[S]], [[SM]], [[SI]] : tensor<2x3x4x4xbf16>, tensor<3xf32>
// CHECK-NEXT: return [[Y]], [[NM]], [[NV]], [[DX]], [[DS]], [[DO]] : tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>
func.func @batch_norm(%x: tensor<2x3x4x4xbf16>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %dy: tensor<2x3x4x4xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>) {
  %y, %nm, %nv, %sm, %si = train.batch_norm %x, %s, %o, %m, %v : tensor<2x3x4x4xbf16>, tensor<3xf32>
  %dx, %ds, %do = train.batch_norm_grad %dy, %x, %s, %sm, %si : tensor<2x3x4x4xbf16>, tensor<3xf32>
  return %y, %nm, %nv, %dx, %ds, %do : tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @batch_norm_nhwc(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x4x4x3xf32>, [[S:%[^:]+]]: tensor<3xf32>, [[O:%[^:]+]]: tensor<3xf32>, [[M:%[^:]+]]: tensor<3xf32>, [[V:%[^:]+]]: tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>)
// CHECK-NEXT: [[Y:%[^ ,]+]], [[NM:%[^ ,]+]], [[NV:%[^ ,]+]], [[SM:%[^ ,]+]], [[SI:%[^ ,]+]] = train.batch_norm [[X]], [[S]], [[O]], [[M]], [[V]] {epsilon = 1.000000e-03 : f64, feature_dim = 3 : i64, momentum = 1.000000e-02 : f64} : tensor<2x4x4x3xf32>, tensor<3xf32>
// CHECK-NEXT: [[DX:%[^ ,]+]], [[DS:%[^ ,]+]], [[DO:%[^ ,]+]] = train.batch_norm_grad [[Y]], [[X]], [[S]], [[SM]], [[SI]] {feature_dim = -1 : i64} : tensor<2x4x4x3xf32>, tensor<3xf32>
// CHECK-NEXT: return [[Y]], [[DX]] : tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>
func.func @batch_norm_nhwc(%x: tensor<2x4x4x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>) {
  %y, %nm, %nv, %sm, %si = train.batch_norm %x, %s, %o, %m, %v {epsilon = 1.000000e-03 : f64, momentum = 0.01 : f64, feature_dim = 3 : i64} : tensor<2x4x4x3xf32>, tensor<3xf32>
  %dx, %ds, %do = train.batch_norm_grad %y, %x, %s, %sm, %si {feature_dim = -1 : i64} : tensor<2x4x4x3xf32>, tensor<3xf32>
  return %y, %dx : tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>
}

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x5x8xf16>, [[S:%[^:]+]]: tensor<8xf32>, [[O:%[^:]+]]: tensor<8xf32>, [[S2:%[^:]+]]: tensor<5x8xf16>, [[O2:%[^:]+]]: tensor<5x8xf16>) -> (tensor<2x5x8xf16>, tensor<8xf32>, tensor<2x5x8xf16>, tensor<5x8xf16>)
// CHECK-NEXT: [[Y:%[^ ,]+]], [[MEAN:%[^ ,]+]], [[ISTD:%[^ ,]+]] = train.layer_norm [[X]], [[S]], [[O]] : tensor<2x5x8xf16>, tensor<8xf32> -> tensor<2x5xf32>
// CHECK-NEXT: [[DX:%[^ ,]+]], [[DS:%[^ ,]+]], [[DO:%[^ ,]+]] = train.layer_norm_grad [[Y]], [[X]], [[S]], [[MEAN]], [[ISTD]] : tensor<2x5x8xf16>, tensor<8xf32>, tensor<2x5xf32>
// CHECK-NEXT: [[Y2:%[^ ,]+]], [[MEAN2:%[^ ,]+]], [[ISTD2:%[^ ,]+]] = train.layer_norm [[X]], [[S2]], [[O2]] {axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64} : tensor<2x5x8xf16>, tensor<5x8xf16> -> tensor<2xf32>
// CHECK-NEXT: [[DX2:%[^ ,]+]], [[DS2:%[^ ,]+]], [[DO2:%[^ ,]+]] = train.layer_norm_grad [[Y2]], [[X]], [[S2]], [[MEAN2]], [[ISTD2]] {axis = 1 : i64} : tensor<2x5x8xf16>, tensor<5x8xf16>, tensor<2xf32>
// CHECK-NEXT: return [[DX]], [[DS]], [[DX2]], [[DS2]] : tensor<2x5x8xf16>, tensor<8xf32>, tensor<2x5x8xf16>, tensor<5x8xf16>
func.func @layer_norm(%x: tensor<2x5x8xf16>, %s: tensor<8xf32>, %o: tensor<8xf32>, %s2: tensor<5x8xf16>, %o2: tensor<5x8xf16>) -> (tensor<2x5x8xf16>, tensor<8xf32>, tensor<2x5x8xf16>, tensor<5x8xf16>) {
  %y, %mean, %istd = train.layer_norm %x, %s, %o : tensor<2x5x8xf16>, tensor<8xf32> -> tensor<2x5xf32>
  %dx, %ds, %do = train.layer_norm_grad %y, %x, %s, %mean, %istd : tensor<2x5x8xf16>, tensor<8xf32>, tensor<2x5xf32>
  %y2, %mean2, %istd2 = train.layer_norm %x, %s2, %o2 {axis = 1 : i64, epsilon = 1.000000e-06 : f64} : tensor<2x5x8xf16>, tensor<5x8xf16> -> tensor<2xf32>
  %dx2, %ds2, %do2 = train.layer_norm_grad %y2, %x, %s2, %mean2, %istd2 {axis = 1 : i64} : tensor<2x5x8xf16>, tensor<5x8xf16>, tensor<2xf32>
  return %dx, %ds, %dx2, %ds2 : tensor<2x5x8xf16>, tensor<8xf32>, tensor<2x5x8xf16>, tensor<5x8xf16>
}

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4x10xf32>, [[G:%[^:]+]]: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>)
// CHECK-NEXT: [[SOFTMAX:%[^ ,]+]] = train.softmax [[X]] : tensor<4x10xf32>
// CHECK-NEXT: [[SOFTMAX2:%[^ ,]+]] = train.softmax [[X]] {axis = 0 : i64} : tensor<4x10xf32>
// CHECK-NEXT: [[LOG_SOFTMAX:%[^ ,]+]] = train.log_softmax [[X]] {axis = 1 : i64} : tensor<4x10xf32>
// CHECK-NEXT: [[SOFTMAX_GRAD:%[^ ,]+]] = train.softmax_grad [[G]], [[SOFTMAX]] : tensor<4x10xf32>
// CHECK-NEXT: [[LOG_SOFTMAX_GRAD:%[^ ,]+]] = train.log_softmax_grad [[G]], [[LOG_SOFTMAX]] {axis = -2 : i64} : tensor<4x10xf32>
// CHECK-NEXT: return [[SOFTMAX_GRAD]], [[LOG_SOFTMAX_GRAD]] : tensor<4x10xf32>, tensor<4x10xf32>
func.func @softmax(%x: tensor<4x10xf32>, %g: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
  %0 = train.softmax %x : tensor<4x10xf32>
  %1 = train.softmax %x {axis = 0 : i64} : tensor<4x10xf32>
  %2 = train.log_softmax %x {axis = 1 : i64} : tensor<4x10xf32>
  %3 = train.softmax_grad %g, %0 : tensor<4x10xf32>
  %4 = train.log_softmax_grad %g, %2 {axis = -2 : i64} : tensor<4x10xf32>
  return %3, %4 : tensor<4x10xf32>, tensor<4x10xf32>
}

// CHECK-LABEL: func.func @cross_entropy(
// CHECK-SAME: [[LOGITS:%[^:]+]]: tensor<4x10xbf16>, [[LABELS:%[^:]+]]: tensor<4xi32>, [[LABELS64:%[^:]+]]: tensor<4xi64>) -> (tensor<f32>, tensor<4x10xbf16>)
// CHECK-NEXT: [[SPARSE_CROSS_ENTROPY:%[^ ,]+]] = train.sparse_cross_entropy [[LOGITS]], [[LABELS]] : tensor<4x10xbf16>, tensor<4xi32> -> tensor<f32>
// CHECK-NEXT: [[GRAD_SEED:%[^ ,]+]] = train.grad_seed [[SPARSE_CROSS_ENTROPY]] : tensor<f32>
// CHECK-NEXT: [[SPARSE_CROSS_ENTROPY_GRAD:%[^ ,]+]] = train.sparse_cross_entropy_grad [[LOGITS]], [[LABELS64]], [[GRAD_SEED]] : tensor<4x10xbf16>, tensor<4xi64>, tensor<f32>
// CHECK-NEXT: return [[SPARSE_CROSS_ENTROPY]], [[SPARSE_CROSS_ENTROPY_GRAD]] : tensor<f32>, tensor<4x10xbf16>
func.func @cross_entropy(%logits: tensor<4x10xbf16>, %labels: tensor<4xi32>, %labels64: tensor<4xi64>) -> (tensor<f32>, tensor<4x10xbf16>) {
  %0 = train.sparse_cross_entropy %logits, %labels : tensor<4x10xbf16>, tensor<4xi32> -> tensor<f32>
  %1 = train.grad_seed %0 : tensor<f32>
  %2 = train.sparse_cross_entropy_grad %logits, %labels64, %1 : tensor<4x10xbf16>, tensor<4xi64>, tensor<f32>
  return %0, %2 : tensor<f32>, tensor<4x10xbf16>
}

// CHECK-LABEL: func.func @reductions(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3x4xbf16>) -> (tensor<3xf32>, tensor<2x1x4xbf16>, tensor<2x3x1xbf16>, tensor<bf16>)
// CHECK-NEXT: [[REDUCE_SUM:%[^ ,]+]] = train.reduce_sum [[X]] {dims = array<i64: 0, 2>} : tensor<2x3x4xbf16> -> tensor<3xf32>
// CHECK-NEXT: [[REDUCE_MEAN:%[^ ,]+]] = train.reduce_mean [[X]] {dims = array<i64: 1>, keep_dims} : tensor<2x3x4xbf16> -> tensor<2x1x4xbf16>
// CHECK-NEXT: [[REDUCE_MAX:%[^ ,]+]] = train.reduce_max [[X]] {dims = array<i64: -1>, keep_dims} : tensor<2x3x4xbf16> -> tensor<2x3x1xbf16>
// CHECK-NEXT: [[REDUCE_MAX2:%[^ ,]+]] = train.reduce_max [[X]] {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xbf16> -> tensor<bf16>
// CHECK-NEXT: return [[REDUCE_SUM]], [[REDUCE_MEAN]], [[REDUCE_MAX]], [[REDUCE_MAX2]] : tensor<3xf32>, tensor<2x1x4xbf16>, tensor<2x3x1xbf16>, tensor<bf16>
func.func @reductions(%x: tensor<2x3x4xbf16>) -> (tensor<3xf32>, tensor<2x1x4xbf16>, tensor<2x3x1xbf16>, tensor<bf16>) {
  %0 = train.reduce_sum %x {dims = array<i64: 0, 2>} : tensor<2x3x4xbf16> -> tensor<3xf32>
  %1 = train.reduce_mean %x {dims = array<i64: 1>, keep_dims} : tensor<2x3x4xbf16> -> tensor<2x1x4xbf16>
  %2 = train.reduce_max %x {dims = array<i64: -1>, keep_dims} : tensor<2x3x4xbf16> -> tensor<2x3x1xbf16>
  %3 = train.reduce_max %x {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xbf16> -> tensor<bf16>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<2x1x4xbf16>, tensor<2x3x1xbf16>, tensor<bf16>
}

// CHECK-LABEL: func.func @pooling_nchw(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3x8x8xf32>, [[G:%[^:]+]]: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>)
// CHECK-NEXT: [[MAX_POOL2D:%[^ ,]+]] = train.max_pool2d NCHW [[X]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
// CHECK-NEXT: [[AVG_POOL2D:%[^ ,]+]] = train.avg_pool2d NCHW [[X]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
// CHECK-NEXT: [[MAX_POOL2D_GRAD:%[^ ,]+]] = train.max_pool2d_grad NCHW [[G]], [[X]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>
// CHECK-NEXT: [[AVG_POOL2D_GRAD:%[^ ,]+]] = train.avg_pool2d_grad NCHW [[G]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x4x4xf32> -> tensor<2x3x8x8xf32>
// CHECK-NEXT: return [[MAX_POOL2D]], [[AVG_POOL2D]], [[MAX_POOL2D_GRAD]], [[AVG_POOL2D_GRAD]] : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>
func.func @pooling_nchw(%x: tensor<2x3x8x8xf32>, %g: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) {
  %0 = train.max_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  %1 = train.avg_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  %2 = train.max_pool2d_grad NCHW %g, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>
  %3 = train.avg_pool2d_grad NCHW %g {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x4x4xf32> -> tensor<2x3x8x8xf32>
  return %0, %1, %2, %3 : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>
}

// CHECK-LABEL: func.func @pooling_nhwc(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x8x8x3xbf16>, [[G:%[^:]+]]: tensor<2x4x4x3xbf16>) -> (tensor<2x4x4x3xbf16>, tensor<2x4x4x3xbf16>, tensor<2x8x8x3xbf16>, tensor<2x8x8x3xbf16>)
// CHECK-NEXT: [[MAX_POOL2D:%[^ ,]+]] = train.max_pool2d NHWC [[X]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x8x8x3xbf16> -> tensor<2x4x4x3xbf16>
// CHECK-NEXT: [[AVG_POOL2D:%[^ ,]+]] = train.avg_pool2d NHWC [[X]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x8x8x3xbf16> -> tensor<2x4x4x3xbf16>
// CHECK-NEXT: [[MAX_POOL2D_GRAD:%[^ ,]+]] = train.max_pool2d_grad NHWC [[G]], [[X]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x4x4x3xbf16>, tensor<2x8x8x3xbf16>
// CHECK-NEXT: [[AVG_POOL2D_GRAD:%[^ ,]+]] = train.avg_pool2d_grad NHWC [[G]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x4x4x3xbf16> -> tensor<2x8x8x3xbf16>
// CHECK-NEXT: return [[MAX_POOL2D]], [[AVG_POOL2D]], [[MAX_POOL2D_GRAD]], [[AVG_POOL2D_GRAD]] : tensor<2x4x4x3xbf16>, tensor<2x4x4x3xbf16>, tensor<2x8x8x3xbf16>, tensor<2x8x8x3xbf16>
func.func @pooling_nhwc(%x: tensor<2x8x8x3xbf16>, %g: tensor<2x4x4x3xbf16>) -> (tensor<2x4x4x3xbf16>, tensor<2x4x4x3xbf16>, tensor<2x8x8x3xbf16>, tensor<2x8x8x3xbf16>) {
  %0 = train.max_pool2d NHWC %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<2x8x8x3xbf16> -> tensor<2x4x4x3xbf16>
  %1 = train.avg_pool2d NHWC %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<2x8x8x3xbf16> -> tensor<2x4x4x3xbf16>
  %2 = train.max_pool2d_grad NHWC %g, %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x3xbf16>, tensor<2x8x8x3xbf16>
  %3 = train.avg_pool2d_grad NHWC %g {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x3xbf16> -> tensor<2x8x8x3xbf16>
  return %0, %1, %2, %3 : tensor<2x4x4x3xbf16>, tensor<2x4x4x3xbf16>, tensor<2x8x8x3xbf16>, tensor<2x8x8x3xbf16>
}

// CHECK-LABEL: func.func @global_pooling(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3x8x8xf32>, [[XN:%[^:]+]]: tensor<2x8x8x3xf16>) -> (tensor<2x3x8x8xf32>, tensor<2x8x8x3xf16>)
// CHECK-NEXT: [[GLOBAL_AVG_POOL2D:%[^ ,]+]] = train.global_avg_pool2d NCHW [[X]] : tensor<2x3x8x8xf32> -> tensor<2x3xf32>
// CHECK-NEXT: [[GLOBAL_AVG_POOL2D_GRAD:%[^ ,]+]] = train.global_avg_pool2d_grad NCHW [[GLOBAL_AVG_POOL2D]] : tensor<2x3xf32> -> tensor<2x3x8x8xf32>
// CHECK-NEXT: [[GLOBAL_AVG_POOL2D2:%[^ ,]+]] = train.global_avg_pool2d NHWC [[XN]] : tensor<2x8x8x3xf16> -> tensor<2x3xf16>
// CHECK-NEXT: [[GLOBAL_AVG_POOL2D_GRAD2:%[^ ,]+]] = train.global_avg_pool2d_grad NHWC [[GLOBAL_AVG_POOL2D2]] : tensor<2x3xf16> -> tensor<2x8x8x3xf16>
// CHECK-NEXT: return [[GLOBAL_AVG_POOL2D_GRAD]], [[GLOBAL_AVG_POOL2D_GRAD2]] : tensor<2x3x8x8xf32>, tensor<2x8x8x3xf16>
func.func @global_pooling(%x: tensor<2x3x8x8xf32>, %xn: tensor<2x8x8x3xf16>) -> (tensor<2x3x8x8xf32>, tensor<2x8x8x3xf16>) {
  %0 = train.global_avg_pool2d NCHW %x : tensor<2x3x8x8xf32> -> tensor<2x3xf32>
  %1 = train.global_avg_pool2d_grad NCHW %0 : tensor<2x3xf32> -> tensor<2x3x8x8xf32>
  %2 = train.global_avg_pool2d NHWC %xn : tensor<2x8x8x3xf16> -> tensor<2x3xf16>
  %3 = train.global_avg_pool2d_grad NHWC %2 : tensor<2x3xf16> -> tensor<2x8x8x3xf16>
  return %1, %3 : tensor<2x3x8x8xf32>, tensor<2x8x8x3xf16>
}

// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: [[TABLE:%[^:]+]]: tensor<100x16xbf16>, [[IDS:%[^:]+]]: tensor<4x7xi32>, [[IDS64:%[^:]+]]: tensor<5xi64>, [[G:%[^:]+]]: tensor<5x16xf32>) -> (tensor<4x7x16xbf16>, tensor<100x16xf32>)
// CHECK-NEXT: [[EMBEDDING:%[^ ,]+]] = train.embedding [[TABLE]], [[IDS]] : tensor<100x16xbf16>, tensor<4x7xi32> -> tensor<4x7x16xbf16>
// CHECK-NEXT: [[EMBEDDING_GRAD:%[^ ,]+]] = train.embedding_grad [[G]], [[IDS64]] : tensor<5x16xf32>, tensor<5xi64> -> tensor<100x16xf32>
// CHECK-NEXT: return [[EMBEDDING]], [[EMBEDDING_GRAD]] : tensor<4x7x16xbf16>, tensor<100x16xf32>
func.func @embedding(%table: tensor<100x16xbf16>, %ids: tensor<4x7xi32>, %ids64: tensor<5xi64>, %g: tensor<5x16xf32>) -> (tensor<4x7x16xbf16>, tensor<100x16xf32>) {
  %0 = train.embedding %table, %ids : tensor<100x16xbf16>, tensor<4x7xi32> -> tensor<4x7x16xbf16>
  %1 = train.embedding_grad %g, %ids64 : tensor<5x16xf32>, tensor<5xi64> -> tensor<100x16xf32>
  return %0, %1 : tensor<4x7x16xbf16>, tensor<100x16xf32>
}

// CHECK-LABEL: func.func @group_norm(
// CHECK: train.group_norm %{{.*}}, %{{.*}}, %{{.*}} {feature_dim = 3 : i64, groups = 2 : i64} : tensor<2x4x4x6xbf16>, tensor<6xf32> -> tensor<2x2xf32>
// CHECK: train.group_norm_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {feature_dim = 3 : i64, groups = 2 : i64} : tensor<2x4x4x6xbf16>, tensor<6xf32>, tensor<2x2xf32>
func.func @group_norm(%x: tensor<2x4x4x6xbf16>, %s: tensor<6xf32>) -> tensor<2x4x4x6xbf16> {
  %y, %m, %r = train.group_norm %x, %s, %s {groups = 2, feature_dim = 3} : tensor<2x4x4x6xbf16>, tensor<6xf32> -> tensor<2x2xf32>
  %dx, %ds, %db = train.group_norm_grad %y, %x, %s, %m, %r {groups = 2, feature_dim = 3} : tensor<2x4x4x6xbf16>, tensor<6xf32>, tensor<2x2xf32>
  return %dx : tensor<2x4x4x6xbf16>
}

// CHECK-LABEL: func.func @gather(
// CHECK: train.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<4x6x5xi64>, tensor<2x3xi32> -> tensor<4x2x3x5xi64>
// CHECK: train.gather_grad %{{.*}}, %{{.*}} {axis = 0 : i64} : tensor<3x5xbf16>, tensor<3xi64> -> tensor<6x5xf32>
func.func @gather(%x: tensor<4x6x5xi64>, %i: tensor<2x3xi32>, %g: tensor<3x5xbf16>, %j: tensor<3xi64>) -> (tensor<4x2x3x5xi64>, tensor<6x5xf32>) {
  %0 = train.gather %x, %i {axis = 1} : tensor<4x6x5xi64>, tensor<2x3xi32> -> tensor<4x2x3x5xi64>
  %1 = train.gather_grad %g, %j {axis = 0} : tensor<3x5xbf16>, tensor<3xi64> -> tensor<6x5xf32>
  return %0, %1 : tensor<4x2x3x5xi64>, tensor<6x5xf32>
}

// CHECK-LABEL: func.func @shapes(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3x4xf32>, [[M:%[^:]+]]: tensor<3xi1>, [[Y:%[^:]+]]: tensor<2x5x4xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x3x5xi1>, tensor<1x2x2xf32>, tensor<2x2x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>)
// CHECK-NEXT: [[RESHAPE:%[^ ,]+]] = train.reshape [[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT: [[TRANSPOSE:%[^ ,]+]] = train.transpose [[X]] {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: [[BROADCAST:%[^ ,]+]] = train.broadcast [[M]] {dims = array<i64: 1>} : tensor<3xi1> -> tensor<2x3x5xi1>
// CHECK-NEXT: [[SLICE:%[^ ,]+]] = train.slice [[X]] {offsets = array<i64: 1, 0, 1>, strides = array<i64: 1, 2, 2>} : tensor<2x3x4xf32> -> tensor<1x2x2xf32>
// CHECK-NEXT: [[SLICE2:%[^ ,]+]] = train.slice [[X]] {offsets = array<i64: 0, 1, 0>} : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
// CHECK-NEXT: [[CONCAT:%[^ ,]+]] = train.concat [[X]], [[Y]] {dim = 1 : i64} : tensor<2x3x4xf32>, tensor<2x5x4xf32> -> tensor<2x8x4xf32>
// CHECK-NEXT: [[CONCAT2:%[^ ,]+]] = train.concat [[X]], [[Y]] {dim = -2 : i64} : tensor<2x3x4xf32>, tensor<2x5x4xf32> -> tensor<2x8x4xf32>
// CHECK-NEXT: return [[RESHAPE]], [[TRANSPOSE]], [[BROADCAST]], [[SLICE]], [[SLICE2]], [[CONCAT]], [[CONCAT2]] : tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x3x5xi1>, tensor<1x2x2xf32>, tensor<2x2x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
func.func @shapes(%x: tensor<2x3x4xf32>, %m: tensor<3xi1>, %y: tensor<2x5x4xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x3x5xi1>, tensor<1x2x2xf32>, tensor<2x2x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) {
  %0 = train.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = train.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %2 = train.broadcast %m {dims = array<i64: 1>} : tensor<3xi1> -> tensor<2x3x5xi1>
  %3 = train.slice %x {offsets = array<i64: 1, 0, 1>, strides = array<i64: 1, 2, 2>} : tensor<2x3x4xf32> -> tensor<1x2x2xf32>
  %4 = train.slice %x {offsets = array<i64: 0, 1, 0>} : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  %5 = train.concat %x, %y {dim = 1 : i64} : tensor<2x3x4xf32>, tensor<2x5x4xf32> -> tensor<2x8x4xf32>
  %6 = train.concat %x, %y {dim = -2 : i64} : tensor<2x3x4xf32>, tensor<2x5x4xf32> -> tensor<2x8x4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x3x5xi1>, tensor<1x2x2xf32>, tensor<2x2x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
}

// CHECK-LABEL: func.func @broadcast_unit_dim(
// CHECK-SAME: [[X:%[^:]+]]: tensor<1x4xbf16>) -> tensor<3x5x4xbf16>
// CHECK-NEXT: [[BROADCAST:%[^ ,]+]] = train.broadcast [[X]] {dims = array<i64: 1, 2>} : tensor<1x4xbf16> -> tensor<3x5x4xbf16>
// CHECK-NEXT: return [[BROADCAST]] : tensor<3x5x4xbf16>
func.func @broadcast_unit_dim(%x: tensor<1x4xbf16>) -> tensor<3x5x4xbf16> {
  %0 = train.broadcast %x {dims = array<i64: 1, 2>} : tensor<1x4xbf16> -> tensor<3x5x4xbf16>
  return %0 : tensor<3x5x4xbf16>
}

// CHECK-LABEL: func.func @constants() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<bf16>, tensor<4xi1>, tensor<2x3xf16>, tensor<i64>)
// CHECK-NEXT: [[CONSTANT:%[^ ,]+]] = train.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: [[CONSTANT2:%[^ ,]+]] = train.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK-NEXT: [[CONSTANT3:%[^ ,]+]] = train.constant dense<5.000000e-01> : tensor<bf16>
// CHECK-NEXT: [[FILL:%[^ ,]+]] = train.fill 1.000000e+00 : tensor<4xi1>
// CHECK-NEXT: [[FILL2:%[^ ,]+]] = train.fill -2.500000e+00 : tensor<2x3xf16>
// CHECK-NEXT: [[FILL3:%[^ ,]+]] = train.fill 7.000000e+00 : tensor<i64>
// CHECK-NEXT: return [[CONSTANT]], [[CONSTANT2]], [[CONSTANT3]], [[FILL]], [[FILL2]], [[FILL3]] : tensor<2x2xf32>, tensor<3xi32>, tensor<bf16>, tensor<4xi1>, tensor<2x3xf16>, tensor<i64>
func.func @constants() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<bf16>, tensor<4xi1>, tensor<2x3xf16>, tensor<i64>) {
  %0 = train.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = train.constant dense<[1, 2, 3]> : tensor<3xi32>
  %2 = train.constant dense<0.5> : tensor<bf16>
  %3 = train.fill 1.0 : tensor<4xi1>
  %4 = train.fill -2.5 : tensor<2x3xf16>
  %5 = train.fill 7.0 : tensor<i64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<3xi32>, tensor<bf16>, tensor<4xi1>, tensor<2x3xf16>, tensor<i64>
}

// CHECK-LABEL: func.func @sgd(
// CHECK-SAME: [[P:%[^:]+]]: tensor<4x2xf32>, [[G:%[^:]+]]: tensor<4x2xf32>, [[B:%[^:]+]]: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
// CHECK-NEXT: [[SGD:%[^ ,]+]] = train.sgd [[P]], [[G]] {lr = 1.000000e-01 : f64} : tensor<4x2xf32>
// CHECK-NEXT: [[SGD2:%[^ ,]+]] = train.sgd [[P]], [[G]] {lr = 1.000000e-02 : f64, weight_decay = 5.000000e-04 : f64} : tensor<4x2xf32>
// CHECK-NEXT: [[SGD_MOMENTUM:%[^ ,]+]], [[SGD_MOMENTUM2:%[^ ,]+]] = train.sgd_momentum [[P]], [[G]], [[B]] {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64} : tensor<4x2xf32>
// CHECK-NEXT: [[SGD_MOMENTUM3:%[^ ,]+]], [[SGD_MOMENTUM4:%[^ ,]+]] = train.sgd_momentum [[P]], [[G]], [[B]] {dampening = 1.000000e-01 : f64, lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, weight_decay = 1.000000e-04 : f64} : tensor<4x2xf32>
// CHECK-NEXT: [[SGD_MOMENTUM5:%[^ ,]+]], [[SGD_MOMENTUM6:%[^ ,]+]] = train.sgd_momentum [[P]], [[G]], [[B]] {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov} : tensor<4x2xf32>
// CHECK-NEXT: return [[SGD]], [[SGD2]], [[SGD_MOMENTUM2]], [[SGD_MOMENTUM4]], [[SGD_MOMENTUM5]] : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
func.func @sgd(%p: tensor<4x2xf32>, %g: tensor<4x2xf32>, %b: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = train.sgd %p, %g {lr = 1.000000e-01 : f64} : tensor<4x2xf32>
  %1 = train.sgd %p, %g {lr = 1.000000e-02 : f64, weight_decay = 5.000000e-04 : f64} : tensor<4x2xf32>
  %2, %3 = train.sgd_momentum %p, %g, %b {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64} : tensor<4x2xf32>
  %4, %5 = train.sgd_momentum %p, %g, %b {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, dampening = 1.000000e-01 : f64, weight_decay = 1.000000e-04 : f64} : tensor<4x2xf32>
  %6, %7 = train.sgd_momentum %p, %g, %b {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov} : tensor<4x2xf32>
  return %0, %1, %3, %5, %6 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// CHECK-LABEL: func.func @adam(
// CHECK-SAME: [[P:%[^:]+]]: tensor<8xbf16>, [[G:%[^:]+]]: tensor<8xbf16>, [[M:%[^:]+]]: tensor<8xbf16>, [[V:%[^:]+]]: tensor<8xbf16>, [[T:%[^:]+]]: tensor<i64>, [[TF:%[^:]+]]: tensor<f32>) -> (tensor<8xbf16>, tensor<8xbf16>)
// CHECK-NEXT: [[P1:%[^ ,]+]], [[M1:%[^ ,]+]], [[V1:%[^ ,]+]] = train.adam [[P]], [[G]], [[M]], [[V]], [[T]] {lr = 1.000000e-03 : f64} : tensor<8xbf16>, tensor<i64>
// CHECK-NEXT: [[P2:%[^ ,]+]], [[M2:%[^ ,]+]], [[V2:%[^ ,]+]] = train.adamw [[P1]], [[G]], [[M1]], [[V1]], [[TF]] {beta1 = 8.000000e-01 : f64, beta2 = 0.98999999999999999 : f64, epsilon = 9.9999999999999995E-7 : f64, lr = 1.000000e-03 : f64, weight_decay = 1.000000e-01 : f64} : tensor<8xbf16>, tensor<f32>
// CHECK-NEXT: [[P3:%[^ ,]+]], [[M3:%[^ ,]+]], [[V3:%[^ ,]+]] = train.adamw [[P2]], [[G]], [[M2]], [[V2]], [[TF]] {lr = 1.000000e-03 : f64} : tensor<8xbf16>, tensor<f32>
// CHECK-NEXT: return [[P3]], [[V3]] : tensor<8xbf16>, tensor<8xbf16>
func.func @adam(%p: tensor<8xbf16>, %g: tensor<8xbf16>, %m: tensor<8xbf16>, %v: tensor<8xbf16>, %t: tensor<i64>, %tf: tensor<f32>) -> (tensor<8xbf16>, tensor<8xbf16>) {
  %p1, %m1, %v1 = train.adam %p, %g, %m, %v, %t {lr = 1.000000e-03 : f64} : tensor<8xbf16>, tensor<i64>
  %p2, %m2, %v2 = train.adamw %p1, %g, %m1, %v1, %tf {lr = 1.000000e-03 : f64, beta1 = 8.000000e-01 : f64, beta2 = 9.900000e-01 : f64, epsilon = 1.000000e-06 : f64, weight_decay = 1.000000e-01 : f64} : tensor<8xbf16>, tensor<f32>
  %p3, %m3, %v3 = train.adamw %p2, %g, %m2, %v2, %tf {lr = 1.000000e-03 : f64} : tensor<8xbf16>, tensor<f32>
  return %p3, %v3 : tensor<8xbf16>, tensor<8xbf16>
}

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: [[W:%[^:]+]]: tensor<4x3xf32> {train.name = "fc.weight", train.role = "param"}
// CHECK-SAME: [[B:%[^:]+]]: tensor<3xf32> {train.name = "fc.bias", train.role = "param"}
// CHECK-SAME: [[MW:%[^:]+]]: tensor<4x3xf32> {train.name = "fc.weight", train.role = "opt_state"}
// CHECK-SAME: [[MB:%[^:]+]]: tensor<3xf32> {train.name = "fc.bias", train.role = "opt_state"}
// CHECK-SAME: [[SCALE:%[^:]+]]: tensor<f32> {train.name = "scale", train.role = "scaler_state"}
// CHECK-SAME: [[X:%[^:]+]]: tensor<8x4xf32> {train.role = "input"}
// CHECK-SAME: [[Y:%[^:]+]]: tensor<8xi32> {train.role = "label"}
// CHECK-SAME: -> (
// CHECK-SAME: tensor<f32> {train.role = "loss"}
// CHECK-SAME: tensor<4x3xf32> {train.name = "fc.weight", train.role = "param"}
// CHECK-SAME: tensor<3xf32> {train.name = "fc.bias", train.role = "param"}
// CHECK-SAME: tensor<4x3xf32> {train.name = "fc.weight", train.role = "opt_state"}
// CHECK-SAME: tensor<3xf32> {train.name = "fc.bias", train.role = "opt_state"}
// CHECK-SAME: tensor<f32> {train.name = "scale", train.role = "scaler_state"}
// CHECK-SAME: tensor<8x3xf32> {train.role = "output"}
// CHECK-SAME: ) attributes {train.step}
// CHECK-NEXT: [[H:%[^ ,]+]] = train.matmul [[X]], [[W]] : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
// CHECK-NEXT: [[LOGITS:%[^ ,]+]] = train.bias_add [[H]], [[B]] : tensor<8x3xf32>, tensor<3xf32>
// CHECK-NEXT: [[LOSS:%[^ ,]+]] = train.sparse_cross_entropy [[LOGITS]], [[Y]] : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
// CHECK-NEXT: [[SEED:%[^ ,]+]] = train.grad_seed [[LOSS]] : tensor<f32>
// CHECK-NEXT: [[DLOGITS:%[^ ,]+]] = train.sparse_cross_entropy_grad [[LOGITS]], [[Y]], [[SEED]] : tensor<8x3xf32>, tensor<8xi32>, tensor<f32>
// CHECK-NEXT: [[DB:%[^ ,]+]] = train.reduce_sum [[DLOGITS]] {dims = array<i64: 0>} : tensor<8x3xf32> -> tensor<3xf32>
// CHECK-NEXT: [[DW:%[^ ,]+]] = train.matmul [[X]], [[DLOGITS]] {transpose_lhs} : tensor<8x4xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: [[NW:%[^ ,]+]], [[NMW:%[^ ,]+]] = train.sgd_momentum [[W]], [[DW]], [[MW]] {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov} : tensor<4x3xf32>
// CHECK-NEXT: [[NB:%[^ ,]+]], [[NMB:%[^ ,]+]] = train.sgd_momentum [[B]], [[DB]], [[MB]] {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov} : tensor<3xf32>
// CHECK-NEXT: return [[LOSS]], [[NW]], [[NB]], [[NMW]], [[NMB]], [[SCALE]], [[LOGITS]] : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<f32>, tensor<8x3xf32>
func.func @train_step(
    %w: tensor<4x3xf32> {train.role = "param", train.name = "fc.weight"},
    %b: tensor<3xf32> {train.role = "param", train.name = "fc.bias"},
    %mw: tensor<4x3xf32> {train.role = "opt_state", train.name = "fc.weight"},
    %mb: tensor<3xf32> {train.role = "opt_state", train.name = "fc.bias"},
    %scale: tensor<f32> {train.role = "scaler_state", train.name = "scale"},
    %x: tensor<8x4xf32> {train.role = "input"},
    %y: tensor<8xi32> {train.role = "label"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<4x3xf32> {train.role = "param", train.name = "fc.weight"},
        tensor<3xf32> {train.role = "param", train.name = "fc.bias"},
        tensor<4x3xf32> {train.role = "opt_state", train.name = "fc.weight"},
        tensor<3xf32> {train.role = "opt_state", train.name = "fc.bias"},
        tensor<f32> {train.role = "scaler_state", train.name = "scale"},
        tensor<8x3xf32> {train.role = "output"})
    attributes {train.step} {
  %h = train.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %logits = train.bias_add %h, %b : tensor<8x3xf32>, tensor<3xf32>
  %loss = train.sparse_cross_entropy %logits, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %dlogits = train.sparse_cross_entropy_grad %logits, %y, %seed : tensor<8x3xf32>, tensor<8xi32>, tensor<f32>
  %db = train.reduce_sum %dlogits {dims = array<i64: 0>} : tensor<8x3xf32> -> tensor<3xf32>
  %dw = train.matmul %x, %dlogits {transpose_lhs} : tensor<8x4xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %nw, %nmw = train.sgd_momentum %w, %dw, %mw {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov} : tensor<4x3xf32>
  %nb, %nmb = train.sgd_momentum %b, %db, %mb {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov} : tensor<3xf32>
  return %loss, %nw, %nb, %nmw, %nmb, %scale, %logits : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<f32>, tensor<8x3xf32>
}

// Batch-norm running statistics are 'buffer' state: persistent and updated,
// but not trained.
// CHECK-LABEL: func.func @train_step_buffers(
// CHECK-SAME: [[G:%[^:]+]]: tensor<3xf32> {train.name = "bn.weight", train.role = "param"}
// CHECK-SAME: [[RM:%[^:]+]]: tensor<3xf32> {train.name = "bn.running_mean", train.role = "buffer"}
// CHECK-SAME: [[RV:%[^:]+]]: tensor<3xf32> {train.name = "bn.running_var", train.role = "buffer"}
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3x4x4xbf16> {train.role = "input"}
// CHECK-SAME: -> (
// CHECK-SAME: tensor<f32> {train.role = "loss"}
// CHECK-SAME: tensor<3xf32> {train.name = "bn.weight", train.role = "param"}
// CHECK-SAME: tensor<3xf32> {train.name = "bn.running_mean", train.role = "buffer"}
// CHECK-SAME: tensor<3xf32> {train.name = "bn.running_var", train.role = "buffer"}
// CHECK-SAME: ) attributes {train.step}
// CHECK-NEXT: [[ZERO:%[^ ,]+]] = train.fill 0.000000e+00 : tensor<3xf32>
// CHECK-NEXT: [[Y:%[^ ,]+]], [[NRM:%[^ ,]+]], [[NRV:%[^ ,]+]], [[SM:%[^ ,]+]], [[SI:%[^ ,]+]] = train.batch_norm [[X]], [[G]], [[ZERO]], [[RM]], [[RV]] : tensor<2x3x4x4xbf16>, tensor<3xf32>
// CHECK-NEXT: [[LOSS:%[^ ,]+]] = train.reduce_mean [[Y]] {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x4xbf16> -> tensor<f32>
// CHECK-NEXT: [[SEED:%[^ ,]+]] = train.grad_seed [[LOSS]] : tensor<f32>
// CHECK-NEXT: [[DYH:%[^ ,]+]] = train.fill 1.000000e+00 : tensor<2x3x4x4xbf16>
// CHECK-NEXT: [[DX:%[^ ,]+]], [[DG:%[^ ,]+]], [[DB:%[^ ,]+]] = train.batch_norm_grad [[DYH]], [[X]], [[G]], [[SM]], [[SI]] : tensor<2x3x4x4xbf16>, tensor<3xf32>
// CHECK-NEXT: [[NG:%[^ ,]+]] = train.sgd [[G]], [[DG]] {lr = 1.000000e-02 : f64} : tensor<3xf32>
// CHECK-NEXT: return [[LOSS]], [[NG]], [[NRM]], [[NRV]] : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
func.func @train_step_buffers(
    %gamma: tensor<3xf32> {train.role = "param", train.name = "bn.weight"},
    %rm: tensor<3xf32> {train.role = "buffer", train.name = "bn.running_mean"},
    %rv: tensor<3xf32> {train.role = "buffer", train.name = "bn.running_var"},
    %x: tensor<2x3x4x4xbf16> {train.role = "input"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<3xf32> {train.role = "param", train.name = "bn.weight"},
        tensor<3xf32> {train.role = "buffer", train.name = "bn.running_mean"},
        tensor<3xf32> {train.role = "buffer", train.name = "bn.running_var"})
    attributes {train.step} {
  %zero = train.fill 0.0 : tensor<3xf32>
  %y, %nrm, %nrv, %sm, %si = train.batch_norm %x, %gamma, %zero, %rm, %rv : tensor<2x3x4x4xbf16>, tensor<3xf32>
  %loss = train.reduce_mean %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x4xbf16> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  // The seed is 1; its broadcast into the bf16 activation shape is a fill.
  %dyh = train.fill 1.0 : tensor<2x3x4x4xbf16>
  %dx, %dgamma, %dbeta = train.batch_norm_grad %dyh, %x, %gamma, %sm, %si : tensor<2x3x4x4xbf16>, tensor<3xf32>
  %ngamma = train.sgd %gamma, %dgamma {lr = 1.000000e-02 : f64} : tensor<3xf32>
  return %loss, %ngamma, %nrm, %nrv : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @dropout_mask_shape(
// CHECK: train.dropout %{{.*}}, %{{.*}}, %{{.*}} {mask_shape = array<i64: 2, 1, 1, 3>, p = 2.000000e-01 : f64}
// CHECK: train.dropout_grad %{{.*}}, %{{.*}}, %{{.*}} {mask_shape = array<i64: 2, 1, 1, 3>, p = 2.000000e-01 : f64, site = 1 : i64}
func.func @dropout_mask_shape(%x: tensor<2x4x4x3xbf16>, %k: tensor<i64>, %c: tensor<i64>) -> (tensor<2x4x4x3xbf16>, tensor<2x4x4x3xbf16>) {
  %0 = train.dropout %x, %k, %c {p = 0.2 : f64, mask_shape = array<i64: 2, 1, 1, 3>} : tensor<2x4x4x3xbf16>, tensor<i64>, tensor<i64>
  %1 = train.dropout_grad %x, %k, %c {p = 0.2 : f64, site = 1 : i64, mask_shape = array<i64: 2, 1, 1, 3>} : tensor<2x4x4x3xbf16>, tensor<i64>, tensor<i64>
  return %0, %1 : tensor<2x4x4x3xbf16>, tensor<2x4x4x3xbf16>
}
