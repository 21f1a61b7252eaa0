// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_float16" --mp-insert-casts | FileCheck %s --check-prefixes=CHECK,F16 -DLOW=f16
// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts | FileCheck %s --check-prefixes=CHECK,BF16 -DLOW=bf16
// RUN: mp-opt %s -split-input-file --mp-insert-casts | FileCheck %s --check-prefix=NOOP --implicit-check-not=mp.cast
// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=float32" --mp-insert-casts | FileCheck %s --check-prefix=NOOP --implicit-check-not=mp.cast

// mp-insert-casts gives painted ops their dtype: casts only at the
// boundaries between 16-bit and fp32 ops, placed right after the value they
// convert, at most one per (value, target dtype); function signatures never
// change; constants are converted at compile time. Without annotations
// (no mp-assign-precision, or the float32 policy) it changes nothing.

// CHECK-LABEL: func.func @boundaries(
// CHECK-SAME: [[A:%[^:]+]]: tensor<4x4xf32>, [[B:%[^:]+]]: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK-DAG: [[BL:%[^ ,]+]] = mp.cast [[B]] : tensor<4x4xf32> to tensor<4x4x[[LOW]]>
// CHECK-DAG: [[AL:%[^ ,]+]] = mp.cast [[A]] : tensor<4x4xf32> to tensor<4x4x[[LOW]]>
// CHECK: [[M1:%[^ ,]+]] = train.matmul [[AL]], [[BL]] {{.*}}: tensor<4x4x[[LOW]]>, tensor<4x4x[[LOW]]> -> tensor<4x4x[[LOW]]>
// CHECK-NEXT: [[R:%[^ ,]+]] = train.relu [[M1]] {{.*}}: tensor<4x4x[[LOW]]>
// CHECK-NEXT: [[M2:%[^ ,]+]] = train.matmul [[R]], [[BL]] {{.*}}: tensor<4x4x[[LOW]]>, tensor<4x4x[[LOW]]> -> tensor<4x4x[[LOW]]>
// CHECK-NEXT: [[M2F:%[^ ,]+]] = mp.cast [[M2]] : tensor<4x4x[[LOW]]> to tensor<4x4xf32>
// CHECK-NEXT: [[E:%[^ ,]+]] = train.exp [[M2F]] {{.*}}: tensor<4x4xf32>
// CHECK-NEXT: [[L:%[^ ,]+]] = train.log [[M2F]] {{.*}}: tensor<4x4xf32>
// CHECK-NEXT: return [[E]], [[L]] : tensor<4x4xf32>, tensor<4x4xf32>
// NOOP-LABEL: func.func @boundaries(
// NOOP-NEXT: train.matmul {{%[^ ]+}}, {{%[^ ]+}} {{.*}}: tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
func.func @boundaries(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.relu %0 : tensor<4x4xf32>
  %2 = train.matmul %1, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = train.exp %2 : tensor<4x4xf32>
  %4 = train.log %2 : tensor<4x4xf32>
  return %3, %4 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A training step: the fp32 parameter is cast once and the cast is shared
// by both forward matmuls; the optimizer reads the fp32 parameter itself
// and an fp32 gradient; the signature is unchanged.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: [[X:%[^:]+]]: tensor<8x4xf32>, [[W:%[^:]+]]: tensor<4x4xf32>, [[DY:%[^:]+]]: tensor<8x4xf32>) -> (tensor<f32>, tensor<4x4xf32>)
// CHECK-DAG: [[DYL:%[^ ,]+]] = mp.cast [[DY]] : tensor<8x4xf32> to tensor<8x4x[[LOW]]>
// CHECK-DAG: [[WL:%[^ ,]+]] = mp.cast [[W]] : tensor<4x4xf32> to tensor<4x4x[[LOW]]>
// CHECK-DAG: [[XL:%[^ ,]+]] = mp.cast [[X]] : tensor<8x4xf32> to tensor<8x4x[[LOW]]>
// CHECK: [[H:%[^ ,]+]] = train.matmul [[XL]], [[WL]] {{.*}}-> tensor<8x4x[[LOW]]>
// CHECK-NEXT: [[O:%[^ ,]+]] = train.matmul [[H]], [[WL]] {{.*}}-> tensor<8x4x[[LOW]]>
// CHECK-NEXT: [[OF:%[^ ,]+]] = mp.cast [[O]] : tensor<8x4x[[LOW]]> to tensor<8x4xf32>
// CHECK-NEXT: [[L:%[^ ,]+]] = train.reduce_sum [[OF]] {{.*}}: tensor<8x4xf32> -> tensor<f32>
// CHECK-NEXT: [[DW:%[^ ,]+]] = train.matmul [[XL]], [[DYL]] {{.*}}-> tensor<4x4x[[LOW]]>
// CHECK-NEXT: [[DWF:%[^ ,]+]] = mp.cast [[DW]] : tensor<4x4x[[LOW]]> to tensor<4x4xf32>
// CHECK-NEXT: [[NW:%[^ ,]+]] = train.sgd [[W]], [[DWF]] {{.*}}: tensor<4x4xf32>
// CHECK-NEXT: return [[L]], [[NW]] : tensor<f32>, tensor<4x4xf32>
func.func @step(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %dy: tensor<8x4xf32>) -> (tensor<f32>, tensor<4x4xf32>) {
  %0 = train.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %1 = train.matmul %0, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %loss = train.reduce_sum %1 {dims = array<i64: 0, 1>} : tensor<8x4xf32> -> tensor<f32>
  %dw = train.matmul %x, %dy {transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %nw = train.sgd %w, %dw {lr = 0.1 : f64} : tensor<4x4xf32>
  return %loss, %nw : tensor<f32>, tensor<4x4xf32>
}

// -----

// Exactly one cast per (value, dtype): a parameter used by three low ops
// and twice by one of them, and a low value read by three fp32 ops.
// CHECK-LABEL: func.func @one_cast_per_value(
// CHECK-SAME: [[A:%[^:]+]]: tensor<4x4xf32>
// CHECK-COUNT-1: mp.cast [[A]] :
// CHECK-NOT: mp.cast [[A]] :
// CHECK-COUNT-1: mp.cast {{%[^ ]+}} : tensor<4x4x[[LOW]]> to tensor<4x4xf32>
// CHECK-NOT: mp.cast
// CHECK: return
func.func @one_cast_per_value(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>) {
  %0 = train.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.matmul %0, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = train.matmul %a, %1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = train.exp %2 : tensor<4x4xf32>
  %4 = train.reduce_sum %2 {dims = array<i64: 0>} : tensor<4x4xf32> -> tensor<4xf32>
  %5 = train.softmax %2 : tensor<4x4xf32>
  return %3, %5, %4 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>
}

// -----

// Constants read by low ops are converted at compile time: a new 16-bit
// train.constant with rounded values, no mp.cast; the fp32 original stays
// for its fp32 user. A train.fill painted low is retyped in place.
// CHECK-LABEL: func.func @constants(
// CHECK-SAME: [[A:%[^:]+]]: tensor<2x2xf32>, [[B:%[^:]+]]: tensor<2x2xf32>)
// CHECK-DAG: [[C:%[^ ,]+]] = train.constant {{.*}}dense<{{\[\[}}1.000000e-01, 1.000000e+00], [2.000000e+00, 3.000000e+00]]> : tensor<2x2xf32>
// F16-DAG: [[CL:%[^ ,]+]] = train.constant {{.*}}dense<{{\[\[}}9.997550e-02, 1.000000e+00], [2.000000e+00, 3.000000e+00]]> : tensor<2x2xf16>
// BF16-DAG: [[CL:%[^ ,]+]] = train.constant {{.*}}dense<{{\[\[}}1.000980e-01, 1.000000e+00], [2.000000e+00, 3.000000e+00]]> : tensor<2x2xbf16>
// CHECK-DAG: [[F:%[^ ,]+]] = train.fill 1.000000e-01 {{.*}}: tensor<2x2x[[LOW]]>
// CHECK-DAG: [[AL:%[^ ,]+]] = mp.cast [[A]] : tensor<2x2xf32> to tensor<2x2x[[LOW]]>
// CHECK: [[M:%[^ ,]+]] = train.matmul [[AL]], [[CL]] {{.*}}-> tensor<2x2x[[LOW]]>
// CHECK-NEXT: train.mul [[M]], [[F]] {{.*}}: tensor<2x2x[[LOW]]>
// CHECK-NEXT: train.matmul {{.*}}-> tensor<2x2x[[LOW]]>
// CHECK-NEXT: train.exp [[C]] {{.*}}: tensor<2x2xf32>
// CHECK-NEXT: return
func.func @constants(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = train.constant dense<[[0.1, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %f = train.fill 0.1 : tensor<2x2xf32>
  %0 = train.matmul %a, %c : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = train.mul %0, %f : tensor<2x2xf32>
  %2 = train.matmul %1, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %3 = train.exp %c : tensor<2x2xf32>
  return %3 : tensor<2x2xf32>
}

// -----

// Batch norm computes x/y in 16 bits while scale, offset, running and saved
// statistics stay f32; its gradient reads 16-bit grad_y and x and gives a
// 16-bit grad_x and f32 grad_scale / grad_offset, which reach the
// optimizer without a cast. (Returning the running statistics is covered
// by assign-precision-returned-stats.mlir.)
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3x8x8xf32>, [[W:%[^:]+]]: tensor<3x3x3x3xf32>, [[S:%[^:]+]]: tensor<3xf32>, [[O:%[^:]+]]: tensor<3xf32>, [[M:%[^:]+]]: tensor<3xf32>, [[V:%[^:]+]]: tensor<3xf32>, [[DZ:%[^:]+]]: tensor<2x3x4x4xf32>)
// CHECK-SAME: -> (tensor<3xf32>, tensor<3xf32>, tensor<3x3x3x3xf32>, tensor<f32>)
// CHECK-NOT: mp.cast [[S]]
// CHECK-NOT: mp.cast [[O]]
// CHECK-NOT: mp.cast [[M]]
// CHECK-NOT: mp.cast [[V]]
// CHECK: [[Y:%[^ ,]+]] = train.conv2d NCHW {{.*}}-> tensor<2x3x6x6x[[LOW]]>
// CHECK-NEXT: [[BY:%[^ ,]+]], [[RM:%[^ ,]+]], [[RV:%[^ ,]+]], [[SM:%[^ ,]+]], [[SI:%[^ ,]+]] = train.batch_norm [[Y]], [[S]], [[O]], [[M]], [[V]] {{.*}}: tensor<2x3x6x6x[[LOW]]>, tensor<3xf32>
// CHECK-NEXT: [[R:%[^ ,]+]] = train.relu [[BY]] {{.*}}: tensor<2x3x6x6x[[LOW]]>
// CHECK-NEXT: train.conv2d NCHW [[R]], {{.*}}-> tensor<2x3x4x4x[[LOW]]>
// CHECK-NEXT: [[ZF:%[^ ,]+]] = mp.cast {{.*}} to tensor<2x3x4x4xf32>
// CHECK: train.conv2d_backward_data {{.*}}-> tensor<2x3x6x6x[[LOW]]>
// CHECK-NEXT: [[D:%[^ ,]+]] = train.relu_grad {{%[^ ,]+}}, [[BY]] {{.*}}: tensor<2x3x6x6x[[LOW]]>
// CHECK-NEXT: [[GX:%[^ ,]+]], [[GS:%[^ ,]+]], [[GO:%[^ ,]+]] = train.batch_norm_grad [[D]], [[Y]], [[S]], [[SM]], [[SI]] {{.*}}: tensor<2x3x6x6x[[LOW]]>, tensor<3xf32>
// CHECK-NEXT: train.conv2d_backward_filter NCHW {{%[^ ,]+}}, [[GX]] {{.*}}-> tensor<3x3x3x3x[[LOW]]>
// CHECK-NEXT: [[DW:%[^ ,]+]] = mp.cast {{.*}} to tensor<3x3x3x3xf32>
// CHECK-NEXT: [[NS:%[^ ,]+]] = train.sgd [[S]], [[GS]] {{.*}}: tensor<3xf32>
// CHECK-NEXT: [[NO:%[^ ,]+]] = train.sgd [[O]], [[GO]] {{.*}}: tensor<3xf32>
// CHECK-NEXT: [[NW:%[^ ,]+]] = train.sgd [[W]], [[DW]] {{.*}}: tensor<3x3x3x3xf32>
// CHECK-NEXT: [[L:%[^ ,]+]] = train.reduce_sum [[ZF]]
// CHECK-NEXT: return [[NS]], [[NO]], [[NW]], [[L]] : tensor<3xf32>, tensor<3xf32>, tensor<3x3x3x3xf32>, tensor<f32>
func.func @batch_norm(%x: tensor<2x3x8x8xf32>, %w: tensor<3x3x3x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %dz: tensor<2x3x4x4xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x3x3x3xf32>, tensor<f32>) {
  %y = train.conv2d NCHW %x, %w : tensor<2x3x8x8xf32>, tensor<3x3x3x3xf32> -> tensor<2x3x6x6xf32>
  %bn:5 = train.batch_norm %y, %s, %o, %m, %v : tensor<2x3x6x6xf32>, tensor<3xf32>
  %r = train.relu %bn#0 : tensor<2x3x6x6xf32>
  %z = train.conv2d NCHW %r, %w : tensor<2x3x6x6xf32>, tensor<3x3x3x3xf32> -> tensor<2x3x4x4xf32>
  %dr = train.conv2d_backward_data NCHW %dz, %w : tensor<2x3x4x4xf32>, tensor<3x3x3x3xf32> -> tensor<2x3x6x6xf32>
  %dbn = train.relu_grad %dr, %bn#0 : tensor<2x3x6x6xf32>
  %g:3 = train.batch_norm_grad %dbn, %y, %s, %bn#3, %bn#4 : tensor<2x3x6x6xf32>, tensor<3xf32>
  %dw = train.conv2d_backward_filter NCHW %x, %g#0 : tensor<2x3x8x8xf32>, tensor<2x3x6x6xf32> -> tensor<3x3x3x3xf32>
  %ns = train.sgd %s, %g#1 {lr = 0.1 : f64} : tensor<3xf32>
  %no = train.sgd %o, %g#2 {lr = 0.1 : f64} : tensor<3xf32>
  %nw = train.sgd %w, %dw {lr = 0.1 : f64} : tensor<3x3x3x3xf32>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x4xf32> -> tensor<f32>
  return %ns, %no, %nw, %l : tensor<3xf32>, tensor<3xf32>, tensor<3x3x3x3xf32>, tensor<f32>
}

// -----

// Layer norm likewise: x/y 16-bit, scale/offset and the per-row mean and
// inv_std f32; layer_norm_grad reads the f32 statistics directly.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4x8xf32>, [[W:%[^:]+]]: tensor<8x8xf32>, [[S:%[^:]+]]: tensor<8xf32>, [[O:%[^:]+]]: tensor<8xf32>, [[DZ:%[^:]+]]: tensor<4x8xf32>)
// CHECK-NOT: mp.cast [[S]]
// CHECK-NOT: mp.cast [[O]]
// CHECK: [[H:%[^ ,]+]] = train.matmul {{.*}}-> tensor<4x8x[[LOW]]>
// CHECK-NEXT: [[Y:%[^ ,]+]], [[MEAN:%[^ ,]+]], [[IS:%[^ ,]+]] = train.layer_norm [[H]], [[S]], [[O]] {{.*}}: tensor<4x8x[[LOW]]>, tensor<8xf32> -> tensor<4xf32>
// CHECK-NEXT: train.matmul [[Y]], {{.*}}-> tensor<4x8x[[LOW]]>
// CHECK: [[DY:%[^ ,]+]] = train.matmul {{.*}}transpose_rhs{{.*}}-> tensor<4x8x[[LOW]]>
// CHECK-NEXT: [[GX:%[^ ,]+]], [[GS:%[^ ,]+]], [[GO:%[^ ,]+]] = train.layer_norm_grad [[DY]], [[H]], [[S]], [[MEAN]], [[IS]] {{.*}}: tensor<4x8x[[LOW]]>, tensor<8xf32>, tensor<4xf32>
// CHECK-NEXT: train.matmul {{%[^ ,]+}}, [[GX]] {{.*}}-> tensor<8x8x[[LOW]]>
// CHECK-NEXT: [[DW:%[^ ,]+]] = mp.cast {{.*}} to tensor<8x8xf32>
// CHECK-NEXT: [[NS:%[^ ,]+]] = train.sgd [[S]], [[GS]] {{.*}}: tensor<8xf32>
// CHECK-NEXT: [[NO:%[^ ,]+]] = train.sgd [[O]], [[GO]] {{.*}}: tensor<8xf32>
// CHECK-NEXT: [[NW:%[^ ,]+]] = train.sgd [[W]], [[DW]] {{.*}}: tensor<8x8xf32>
// CHECK-NEXT: return [[NS]], [[NO]], [[NW]] : tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>
func.func @layer_norm(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %s: tensor<8xf32>, %o: tensor<8xf32>, %dz: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>) {
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %ln:3 = train.layer_norm %h, %s, %o : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  %z = train.matmul %ln#0, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %dln = train.matmul %dz, %w {transpose_rhs} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %g:3 = train.layer_norm_grad %dln, %h, %s, %ln#1, %ln#2 : tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>
  %dw = train.matmul %x, %g#0 {transpose_lhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %ns = train.sgd %s, %g#1 {lr = 0.1 : f64} : tensor<8xf32>
  %no = train.sgd %o, %g#2 {lr = 0.1 : f64} : tensor<8xf32>
  %nw = train.sgd %w, %dw {lr = 0.1 : f64} : tensor<8x8xf32>
  return %ns, %no, %nw : tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>
}

// -----

// Function results keep their declared dtypes whatever the painting did
// to the ops that produce them.
// CHECK-LABEL: func.func @results(
// CHECK-SAME: -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK: return {{%[^ ,]+}}, {{%[^ ,]+}} : tensor<4x4xf32>, tensor<4x4xf32>
func.func @results(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.relu %0 : tensor<4x4xf32>
  %2 = train.matmul %1, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// An op nested in a region keeps its types: it reads a low value through a
// widening cast placed outside the region, right after the value.
// CHECK-LABEL: func.func @nested(
// CHECK: [[M:%[^ ,]+]] = train.matmul {{.*}}-> tensor<4x4x[[LOW]]>
// CHECK-NEXT: [[MF:%[^ ,]+]] = mp.cast [[M]] : tensor<4x4x[[LOW]]> to tensor<4x4xf32>
// CHECK-NEXT: tensor.generate
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor.extract [[MF]][{{.*}}] : tensor<4x4xf32>
func.func @nested(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %0[%j, %i] : tensor<4x4xf32>
    tensor.yield %e : f32
  } : tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
