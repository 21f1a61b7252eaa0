// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_float16" --mp-insert-casts | FileCheck %s -DLOW=f16
// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts | FileCheck %s -DLOW=bf16
// RUN: mp-opt %examples/cnn.mlir --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts | FileCheck %s --check-prefix=CNN

// The "returned" rule pins an op to fp32 when any of its results is
// returned, also a result that is not convertible and stays f32 anyway.
// Every training step returns batch_norm's new running mean / variance
// (role "buffer"), so no forward batch_norm of any CNN is ever 16-bit
// (examples/cnn.mlir: both are "returned", with casts around them), and a
// step that reports layer_norm's mean or the optimizer-bound grad_scale
// pins those too. Expected: only returned results that the painting would
// retype (convertible results) pin the op; x/y stay 16-bit here as in
// insert-casts.mlir.

// CHECK-LABEL: func.func @batch_norm_stats_returned(
// CHECK: [[Y:%[^ ,]+]] = train.conv2d NCHW {{.*}}-> tensor<2x3x6x6x[[LOW]]>
// CHECK-NEXT: [[BY:%[^ ,]+]], [[RM:%[^ ,]+]], [[RV:%[^ ,]+]], {{.*}} = train.batch_norm [[Y]], {{.*}}: tensor<2x3x6x6x[[LOW]]>, tensor<3xf32>
// CHECK-NEXT: train.relu [[BY]] {{.*}}: tensor<2x3x6x6x[[LOW]]>
// CHECK: return {{%[^ ,]+}}, [[RM]], [[RV]] :
func.func @batch_norm_stats_returned(%x: tensor<2x3x8x8xf32>, %w: tensor<3x3x3x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  %y = train.conv2d NCHW %x, %w : tensor<2x3x8x8xf32>, tensor<3x3x3x3xf32> -> tensor<2x3x6x6xf32>
  %bn:5 = train.batch_norm %y, %s, %o, %m, %v : tensor<2x3x6x6xf32>, tensor<3xf32>
  %r = train.relu %bn#0 : tensor<2x3x6x6xf32>
  %z = train.conv2d NCHW %r, %w : tensor<2x3x6x6xf32>, tensor<3x3x3x3xf32> -> tensor<2x3x4x4xf32>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x4xf32> -> tensor<f32>
  return %l, %bn#1, %bn#2 : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_mean_returned(
// CHECK: [[H:%[^ ,]+]] = train.matmul {{.*}}-> tensor<4x8x[[LOW]]>
// CHECK-NEXT: [[Y:%[^ ,]+]], [[MEAN:%[^ ,]+]], {{.*}} = train.layer_norm [[H]], {{.*}}: tensor<4x8x[[LOW]]>, tensor<8xf32> -> tensor<4xf32>
// CHECK-NEXT: train.matmul [[Y]], {{.*}}-> tensor<4x8x[[LOW]]>
// CHECK: return {{%[^ ,]+}}, [[MEAN]] :
func.func @layer_norm_mean_returned(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %s: tensor<8xf32>, %o: tensor<8xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %ln:3 = train.layer_norm %h, %s, %o : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  %z = train.matmul %ln#0, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l, %ln#1 : tensor<f32>, tensor<4xf32>
}

// CNN-LABEL: func.func @train_step(
// CNN: train.conv2d NCHW {{.*}}-> tensor<16x32x28x28xbf16>
// CNN-NEXT: train.batch_norm {{.*}}: tensor<16x32x28x28xbf16>, tensor<32xf32>
// CNN: train.conv2d NCHW {{.*}}-> tensor<16x64x14x14xbf16>
// CNN-NEXT: train.batch_norm {{.*}}: tensor<16x64x14x14xbf16>, tensor<64xf32>
