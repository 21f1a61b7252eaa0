// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s --mlir-print-op-generic | mp-opt | FileCheck %s

// Round trip of every mp op, in the custom and the generic form.

// CHECK-LABEL: func.func @cast(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4x8xf32>, [[H:%[^:]+]]: tensor<4x8xbf16>, [[G:%[^:]+]]: tensor<2xf16>)
// CHECK-NEXT: [[C0:%[^ ,]+]] = mp.cast [[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NEXT: [[C1:%[^ ,]+]] = mp.cast [[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: [[C2:%[^ ,]+]] = mp.cast [[H]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: [[C3:%[^ ,]+]] = mp.cast [[G]] : tensor<2xf16> to tensor<2xbf16>
// CHECK-NEXT: [[C4:%[^ ,]+]] = mp.cast [[G]] : tensor<2xf16> to tensor<2xf32>
// CHECK-NEXT: return [[C0]], [[C1]], [[C2]], [[C3]], [[C4]] :
func.func @cast(%x: tensor<4x8xf32>, %h: tensor<4x8xbf16>, %g: tensor<2xf16>) -> (tensor<4x8xbf16>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<2xbf16>, tensor<2xf32>) {
  %0 = mp.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %1 = mp.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
  %2 = mp.cast %h : tensor<4x8xbf16> to tensor<4x8xf32>
  %3 = mp.cast %g : tensor<2xf16> to tensor<2xbf16>
  %4 = mp.cast %g : tensor<2xf16> to tensor<2xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xbf16>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<2xbf16>, tensor<2xf32>
}

// CHECK-LABEL: func.func @scale(
// CHECK-SAME: [[SEED:%[^:]+]]: tensor<f32>, [[SEED16:%[^:]+]]: tensor<f16>, [[S:%[^:]+]]: tensor<f32>)
// CHECK-NEXT: [[R0:%[^ ,]+]] = mp.scale [[SEED]], [[S]] : tensor<f32>
// CHECK-NEXT: [[R1:%[^ ,]+]] = mp.scale [[SEED16]], [[S]] : tensor<f16>
// CHECK-NEXT: return [[R0]], [[R1]] : tensor<f32>, tensor<f16>
func.func @scale(%seed: tensor<f32>, %seed16: tensor<f16>, %s: tensor<f32>) -> (tensor<f32>, tensor<f16>) {
  %0 = mp.scale %seed, %s : tensor<f32>
  %1 = mp.scale %seed16, %s : tensor<f16>
  return %0, %1 : tensor<f32>, tensor<f16>
}

// Each gradient may be unscaled into another float type of the same shape.
// CHECK-LABEL: func.func @unscale_and_check(
// CHECK-SAME: [[S:%[^:]+]]: tensor<f32>, [[G1:%[^:]+]]: tensor<4x8xf16>, [[G2:%[^:]+]]: tensor<8xbf16>, [[G3:%[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: [[U:%[^:]+]]:3, [[OK:%[^ ,]+]] = mp.unscale_and_check [[S]], [[G1]], [[G2]], [[G3]] : tensor<4x8xf16>, tensor<8xbf16>, tensor<3xf32> -> tensor<4x8xf32>, tensor<8xbf16>, tensor<3xf32>
// CHECK-NEXT: [[V:%[^ ,]+]], [[OK2:%[^ ,]+]] = mp.unscale_and_check [[S]], [[G3]] : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT: return [[U]]#0, [[U]]#1, [[U]]#2, [[OK]], [[V]], [[OK2]] :
func.func @unscale_and_check(%s: tensor<f32>, %g1: tensor<4x8xf16>, %g2: tensor<8xbf16>, %g3: tensor<3xf32>) -> (tensor<4x8xf32>, tensor<8xbf16>, tensor<3xf32>, tensor<i1>, tensor<3xf32>, tensor<i1>) {
  %u1, %u2, %u3, %ok = mp.unscale_and_check %s, %g1, %g2, %g3 : tensor<4x8xf16>, tensor<8xbf16>, tensor<3xf32> -> tensor<4x8xf32>, tensor<8xbf16>, tensor<3xf32>
  %v, %ok2 = mp.unscale_and_check %s, %g3 : tensor<3xf32> -> tensor<3xf32>
  return %u1, %u2, %u3, %ok, %v, %ok2 : tensor<4x8xf32>, tensor<8xbf16>, tensor<3xf32>, tensor<i1>, tensor<3xf32>, tensor<i1>
}

// CHECK-LABEL: func.func @all_finite(
// CHECK-SAME: [[A:%[^:]+]]: tensor<4x8xf16>, [[B:%[^:]+]]: tensor<8xbf16>, [[C:%[^:]+]]: tensor<f32>)
// CHECK-NEXT: [[F0:%[^ ,]+]] = mp.all_finite [[A]], [[B]], [[C]] : tensor<4x8xf16>, tensor<8xbf16>, tensor<f32>
// CHECK-NEXT: [[F1:%[^ ,]+]] = mp.all_finite [[C]] : tensor<f32>
// CHECK-NEXT: return [[F0]], [[F1]] : tensor<i1>, tensor<i1>
func.func @all_finite(%a: tensor<4x8xf16>, %b: tensor<8xbf16>, %c: tensor<f32>) -> (tensor<i1>, tensor<i1>) {
  %0 = mp.all_finite %a, %b, %c : tensor<4x8xf16>, tensor<8xbf16>, tensor<f32>
  %1 = mp.all_finite %c : tensor<f32>
  return %0, %1 : tensor<i1>, tensor<i1>
}

// mp.select takes any ranked tensors (an integer step counter too) and
// prints their types once.
// CHECK-LABEL: func.func @select(
// CHECK-SAME: [[P:%[^:]+]]: tensor<i1>, [[W:%[^:]+]]: tensor<4x8xf32>, [[NW:%[^:]+]]: tensor<4x8xf32>, [[T:%[^:]+]]: tensor<i64>, [[NT:%[^:]+]]: tensor<i64>, [[M:%[^:]+]]: tensor<8xbf16>, [[NM:%[^:]+]]: tensor<8xbf16>)
// CHECK-NEXT: [[SEL:%[^:]+]]:3 = mp.select [[P]], {{\[}}[[NW]], [[NT]], [[NM]]], {{\[}}[[W]], [[T]], [[M]]] : tensor<4x8xf32>, tensor<i64>, tensor<8xbf16>
// CHECK-NEXT: [[SEL1:%[^ ,]+]] = mp.select [[P]], {{\[}}[[NW]]], {{\[}}[[W]]] : tensor<4x8xf32>
// CHECK-NEXT: return [[SEL]]#0, [[SEL]]#1, [[SEL]]#2, [[SEL1]] :
func.func @select(%p: tensor<i1>, %w: tensor<4x8xf32>, %nw: tensor<4x8xf32>, %t: tensor<i64>, %nt: tensor<i64>, %m: tensor<8xbf16>, %nm: tensor<8xbf16>) -> (tensor<4x8xf32>, tensor<i64>, tensor<8xbf16>, tensor<4x8xf32>) {
  %0:3 = mp.select %p, [%nw, %nt, %nm], [%w, %t, %m] : tensor<4x8xf32>, tensor<i64>, tensor<8xbf16>
  %1 = mp.select %p, [%nw], [%w] : tensor<4x8xf32>
  return %0#0, %0#1, %0#2, %1 : tensor<4x8xf32>, tensor<i64>, tensor<8xbf16>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @update_scale(
// CHECK-SAME: [[S:%[^:]+]]: tensor<f32>, [[C:%[^:]+]]: tensor<i32>, [[C64:%[^:]+]]: tensor<i64>, [[OK:%[^:]+]]: tensor<i1>)
// CHECK-NEXT: [[S1:%[^ ,]+]], [[C1:%[^ ,]+]] = mp.update_scale [[S]], [[C]], [[OK]] : tensor<i32>
// CHECK-NEXT: [[S2:%[^ ,]+]], [[C2:%[^ ,]+]] = mp.update_scale [[S1]], [[C64]], [[OK]] {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 100 : i64, max_scale = 6.553600e+04 : f64, min_scale = 1.000000e+00 : f64} : tensor<i64>
// CHECK-NEXT: return [[S1]], [[C1]], [[S2]], [[C2]] : tensor<f32>, tensor<i32>, tensor<f32>, tensor<i64>
func.func @update_scale(%s: tensor<f32>, %c: tensor<i32>, %c64: tensor<i64>, %ok: tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<f32>, tensor<i64>) {
  %s1, %c1 = mp.update_scale %s, %c, %ok : tensor<i32>
  %s2, %c2 = mp.update_scale %s1, %c64, %ok {growth_interval = 100 : i64, growth_factor = 4.0 : f64, backoff_factor = 2.5e-01 : f64, min_scale = 1.0 : f64, max_scale = 65536.0 : f64} : tensor<i64>
  return %s1, %c1, %s2, %c2 : tensor<f32>, tensor<i32>, tensor<f32>, tensor<i64>
}

// Default hyper-parameters written out are elided when printed.
// CHECK-LABEL: func.func @update_scale_defaults(
// CHECK-NEXT: mp.update_scale %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : tensor<i32>
func.func @update_scale_defaults(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  %s1, %c1 = mp.update_scale %s, %c, %ok {growth_interval = 2000 : i64, growth_factor = 2.0 : f64, backoff_factor = 0.5 : f64, min_scale = 0.0 : f64} : tensor<i32>
  return %s1, %c1 : tensor<f32>, tensor<i32>
}

// The mp ops in a loss-scaled bf16 step, next to train ops.
// CHECK-LABEL: func.func @loss_scaling_step(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4x8xf32>, [[W:%[^:]+]]: tensor<8x2xf32>, [[S:%[^:]+]]: tensor<f32>, [[C:%[^:]+]]: tensor<i32>)
// CHECK-NEXT: [[XH:%[^ ,]+]] = mp.cast [[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NEXT: [[WH:%[^ ,]+]] = mp.cast [[W]] : tensor<8x2xf32> to tensor<8x2xbf16>
// CHECK-NEXT: [[Y:%[^ ,]+]] = train.matmul [[XH]], [[WH]] : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xf32>
// CHECK-NEXT: [[LOSS:%[^ ,]+]] = train.reduce_mean [[Y]] {dims = array<i64: 0, 1>} : tensor<4x2xf32> -> tensor<f32>
// CHECK-NEXT: [[SEED:%[^ ,]+]] = train.grad_seed [[LOSS]] : tensor<f32>
// CHECK-NEXT: [[SCALED:%[^ ,]+]] = mp.scale [[SEED]], [[S]] : tensor<f32>
// CHECK-NEXT: [[DY:%[^ ,]+]] = train.broadcast [[SCALED]] {dims = array<i64>} : tensor<f32> -> tensor<4x2xf32>
// CHECK-NEXT: [[DYH:%[^ ,]+]] = mp.cast [[DY]] : tensor<4x2xf32> to tensor<4x2xbf16>
// CHECK-NEXT: [[DW:%[^ ,]+]] = train.matmul [[XH]], [[DYH]] {transpose_lhs} : tensor<4x8xbf16>, tensor<4x2xbf16> -> tensor<8x2xbf16>
// CHECK-NEXT: [[G:%[^ ,]+]], [[OK:%[^ ,]+]] = mp.unscale_and_check [[S]], [[DW]] : tensor<8x2xbf16> -> tensor<8x2xf32>
// CHECK-NEXT: [[NW:%[^ ,]+]] = train.sgd [[W]], [[G]] {lr = 1.000000e-01 : f64} : tensor<8x2xf32>
// CHECK-NEXT: [[W2:%[^ ,]+]] = mp.select [[OK]], {{\[}}[[NW]]], {{\[}}[[W]]] : tensor<8x2xf32>
// CHECK-NEXT: [[S2:%[^ ,]+]], [[C2:%[^ ,]+]] = mp.update_scale [[S]], [[C]], [[OK]] : tensor<i32>
// CHECK-NEXT: return [[W2]], [[S2]], [[C2]] : tensor<8x2xf32>, tensor<f32>, tensor<i32>
func.func @loss_scaling_step(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %s: tensor<f32>, %c: tensor<i32>) -> (tensor<8x2xf32>, tensor<f32>, tensor<i32>) {
  %xh = mp.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %wh = mp.cast %w : tensor<8x2xf32> to tensor<8x2xbf16>
  %y = train.matmul %xh, %wh : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xf32>
  %loss = train.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<4x2xf32> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %scaled = mp.scale %seed, %s : tensor<f32>
  %dy = train.broadcast %scaled {dims = array<i64>} : tensor<f32> -> tensor<4x2xf32>
  %dyh = mp.cast %dy : tensor<4x2xf32> to tensor<4x2xbf16>
  %dw = train.matmul %xh, %dyh {transpose_lhs} : tensor<4x8xbf16>, tensor<4x2xbf16> -> tensor<8x2xbf16>
  %g, %ok = mp.unscale_and_check %s, %dw : tensor<8x2xbf16> -> tensor<8x2xf32>
  %nw = train.sgd %w, %g {lr = 1.000000e-01 : f64} : tensor<8x2xf32>
  %w2 = mp.select %ok, [%nw], [%w] : tensor<8x2xf32>
  %s2, %c2 = mp.update_scale %s, %c, %ok : tensor<i32>
  return %w2, %s2, %c2 : tensor<8x2xf32>, tensor<f32>, tensor<i32>
}

// CHECK-LABEL: func.func @matmul_epilogue(
// CHECK-SAME: [[A:%[^:]+]]: tensor<2x4x8xbf16>, [[B:%[^:]+]]: tensor<3x8xbf16>, [[C:%[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: mp.matmul_epilogue [[A]], [[B]] bias [[C]] {activation = "relu", transpose_rhs} : tensor<2x4x8xbf16>, tensor<3x8xbf16>, tensor<3xf32> -> tensor<2x4x3xbf16>
// CHECK-NEXT: mp.matmul_epilogue [[A]], [[B]] {transpose_rhs} : tensor<2x4x8xbf16>, tensor<3x8xbf16> -> tensor<2x4x3xf32>
func.func @matmul_epilogue(%a: tensor<2x4x8xbf16>, %b: tensor<3x8xbf16>, %c: tensor<3xf32>) -> (tensor<2x4x3xbf16>, tensor<2x4x3xf32>) {
  %0 = mp.matmul_epilogue %a, %b bias %c {activation = "relu", transpose_rhs} : tensor<2x4x8xbf16>, tensor<3x8xbf16>, tensor<3xf32> -> tensor<2x4x3xbf16>
  %1 = mp.matmul_epilogue %a, %b {activation = "none", transpose_rhs} : tensor<2x4x8xbf16>, tensor<3x8xbf16> -> tensor<2x4x3xf32>
  return %0, %1 : tensor<2x4x3xbf16>, tensor<2x4x3xf32>
}
