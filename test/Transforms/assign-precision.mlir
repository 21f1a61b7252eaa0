// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_float16" | FileCheck %s --check-prefixes=CHECK,F16 -DLOW=f16
// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_bfloat16" | FileCheck %s --check-prefixes=CHECK,BF16 -DLOW=bf16
// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=float32" | FileCheck %s --check-prefix=FP32 --implicit-check-not=mp.precision

// The painting rules (PrecisionAnalysis.h, docs/precision.md) on small
// adversarial graphs:
//   1. allow ops are low;
//   2. deny spreads forward through infer and clear ops that lead to an
//      infer or deny op;
//   3. infer and clear ops both downstream and upstream of allow ops are low;
//   4. (bf16 only) an op with a low input and no deny input is low;
//   5. low spreads through clear ops in both directions.
// CHECK lines hold for both 16-bit policies ([[LOW]] is the compute dtype);
// F16 / BF16 lines are where the policies differ (rule 4). Under bf16 the
// rule name of a clear op right after a low op is left open here (see
// assign-precision-bf16-follow.mlir). The functions return nothing, so that
// the "returned" rule (assign-precision-returned.mlir) stays out of the
// way. The pass only annotates: no type changes, no casts. Under float32 it
// only sets mp.policy.

// CHECK-LABEL: func.func @allow_ops(
// CHECK-SAME: attributes {mp.policy = "mixed_{{b?}}float16"}
// CHECK-NEXT: train.matmul {{.*}}mp.precision = {category = "allow", dtype = [[LOW]], rule = "allow", source = "default-list"}} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: train.conv2d {{.*}}mp.precision = {category = "allow", dtype = [[LOW]], rule = "allow", source = "default-list"}} : tensor<2x3x8x8xf32>
// CHECK-NEXT: train.conv2d_backward_data {{.*}}mp.precision = {category = "allow", dtype = [[LOW]], rule = "allow", source = "default-list"}} : tensor<2x4x6x6xf32>
// CHECK-NEXT: train.conv2d_backward_filter {{.*}}mp.precision = {category = "allow", dtype = [[LOW]], rule = "allow", source = "default-list"}} : tensor<2x3x8x8xf32>
// CHECK-NEXT: return
// FP32-LABEL: func.func @allow_ops(
// FP32-SAME: attributes {mp.policy = "float32"}
// FP32-NEXT: train.matmul {{%[^ ]+}}, {{%[^ ]+}} : tensor<4x4xf32>
func.func @allow_ops(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %dy: tensor<2x4x6x6xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.conv2d NCHW %x, %w : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  %2 = train.conv2d_backward_data NCHW %dy, %w : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  %3 = train.conv2d_backward_filter NCHW %x, %dy : tensor<2x3x8x8xf32>, tensor<2x4x6x6xf32> -> tensor<4x3x3x3xf32>
  return
}

// -----

// Deny -> infer -> clear -> allow: the infer op is denied; the clear op
// right before the allow op leads to no infer/deny op, so it stays free and
// rule 5 makes it low.
// CHECK-LABEL: func.func @deny_infer_clear_allow(
// CHECK-NEXT: train.exp {{.*}}mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "default-list"}
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.relu {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}mp.precision = {category = "allow", dtype = [[LOW]], rule = "allow", source = "default-list"}
// FP32-LABEL: func.func @deny_infer_clear_allow(
// FP32-SAME: attributes {mp.policy = "float32"}
func.func @deny_infer_clear_allow(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.exp %a : tensor<4x4xf32>
  %1 = train.add %0, %a : tensor<4x4xf32>
  %2 = train.relu %1 : tensor<4x4xf32>
  %3 = train.matmul %2, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Deny -> clear -> infer -> clear -> clear -> allow: the first clear op
// leads to an infer op (denied); the two clear ops after the infer op only
// lead to the allow op (free, then low through rule 5).
// CHECK-LABEL: func.func @deny_clear_infer_clear_clear_allow(
// CHECK-NEXT: train.log {{.*}}rule = "deny"
// CHECK-NEXT: train.neg {{.*}}mp.precision = {category = "clear", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.tanh {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.reshape {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}
// CHECK-NEXT: train.transpose {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}dtype = [[LOW]], rule = "allow"
func.func @deny_clear_infer_clear_clear_allow(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.log %a : tensor<4x4xf32>
  %1 = train.neg %0 : tensor<4x4xf32>
  %2 = train.tanh %1 : tensor<4x4xf32>
  %3 = train.reshape %2 : tensor<4x4xf32> -> tensor<4x4xf32>
  %4 = train.transpose %3 {permutation = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %5 = train.matmul %4, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Deny -> clear -> clear -> deny: both clear ops are on a path between deny
// ops, so they are denied even though the second one also reads a low
// matmul (rule 5 does not override a denied clear op).
// CHECK-LABEL: func.func @deny_clear_clear_deny(
// CHECK-NEXT: train.matmul {{.*}}dtype = [[LOW]], rule = "allow"
// CHECK-NEXT: train.exp {{.*}}rule = "deny"
// CHECK-NEXT: train.relu {{.*}}mp.precision = {category = "clear", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.maximum {{.*}}mp.precision = {category = "clear", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.log {{.*}}mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "default-list"}
func.func @deny_clear_clear_deny(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %m = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %0 = train.exp %a : tensor<4x4xf32>
  %1 = train.relu %0 : tensor<4x4xf32>
  %2 = train.maximum %1, %m : tensor<4x4xf32>
  %3 = train.log %2 : tensor<4x4xf32>
  return
}

// -----

// A clear op after a deny op that feeds both an allow op and an infer op is
// denied (it leads to an infer op), so the allow op reads an fp32 value.
// CHECK-LABEL: func.func @deny_clear_fork(
// CHECK-NEXT: train.softmax {{.*}}rule = "deny"
// CHECK-NEXT: train.transpose {{.*}}mp.precision = {category = "clear", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}dtype = [[LOW]], rule = "allow"
// CHECK-NEXT: train.sigmoid {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
func.func @deny_clear_fork(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.softmax %a : tensor<4x4xf32>
  %1 = train.transpose %0 {permutation = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = train.matmul %1, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = train.sigmoid %1 : tensor<4x4xf32>
  return
}

// -----

// Deny spreads forward only: an infer op upstream of a deny op is not
// denied (here it is between two allow ops).
// CHECK-LABEL: func.func @deny_does_not_spread_backward(
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.reduce_sum {{.*}}mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "default-list"}
func.func @deny_does_not_spread_backward(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.mul %0, %a : tensor<4x4xf32>
  %2 = train.matmul %1, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = train.reduce_sum %1 {dims = array<i64: 0>} : tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

// Infer and clear ops between allow ops are low under both policies.
// CHECK-LABEL: func.func @between_allow(
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.bias_add {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.relu {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.gelu {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.reshape {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
func.func @between_allow(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %bias: tensor<4xf32>, %c: tensor<8x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.bias_add %0, %bias : tensor<4x4xf32>, tensor<4xf32>
  %2 = train.relu %1 : tensor<4x4xf32>
  %3 = train.gelu %2 : tensor<4x4xf32>
  %4 = train.reshape %3 : tensor<4x4xf32> -> tensor<2x8xf32>
  %5 = train.matmul %4, %c : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  return
}

// -----

// An infer op before the first allow op (upstream only) or after the last
// one (downstream only) is not between allow ops: fp32 under mixed_float16;
// under mixed_bfloat16 the one after the allow op follows its low input.
// CHECK-LABEL: func.func @infer_at_the_ends(
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.tanh {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
// F16-NEXT: train.sigmoid {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
// BF16-NEXT: train.tanh {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "follows-low-input", source = "default-list"}
// BF16-NEXT: train.sigmoid {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "follows-low-input", source = "default-list"}
func.func @infer_at_the_ends(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.add %a, %b : tensor<4x4xf32>
  %1 = train.matmul %0, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = train.tanh %1 : tensor<4x4xf32>
  %3 = train.sigmoid %2 : tensor<4x4xf32>
  return
}

// -----

// Rule 4 needs a low input and no deny input: an infer op reading a low
// matmul and a deny op is denied under both policies; one reading a low
// matmul and a forced-fp32 op (not deny) follows under bf16.
// CHECK-LABEL: func.func @follows_low_input_guards(
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.exp {{.*}}rule = "deny"
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "forced-fp32"}}
// F16-NEXT: train.sub {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
// BF16-NEXT: train.sub {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "follows-low-input", source = "default-list"}
func.func @follows_low_input_guards(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.exp %a : tensor<4x4xf32>
  %2 = train.add %0, %1 : tensor<4x4xf32>
  %3 = train.matmul %a, %b {mp.force = "fp32"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %4 = train.sub %0, %3 : tensor<4x4xf32>
  return
}

// -----

// Clear ops flood low in both directions from an allow op (a chain before
// it and a chain after it), and stop at an infer op that is not low
// (mixed_float16: the clear op after the infer op stays fp32; for bf16
// see assign-precision-bf16-follow.mlir).
// CHECK-LABEL: func.func @clear_flood(
// CHECK-NEXT: train.transpose {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}
// CHECK-NEXT: train.reshape {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.slice {{.*}}mp.precision = {category = "clear", dtype = f16, rule = "clear-next-to-low", source = "default-list"}
// BF16-NEXT: train.slice {{.*}}mp.precision = {category = "clear", dtype = bf16, rule = "{{[a-z-]+}}", source = "default-list"}
// F16-NEXT: train.concat {{.*}}mp.precision = {category = "clear", dtype = f16, rule = "clear-next-to-low", source = "default-list"}
// BF16-NEXT: train.concat {{.*}}mp.precision = {category = "clear", dtype = bf16, rule = "{{[a-z-]+}}", source = "default-list"}
// F16-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
// F16-NEXT: train.neg {{.*}}mp.precision = {category = "clear", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
func.func @clear_flood(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) {
  %0 = train.transpose %a {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = train.reshape %0 : tensor<8x4xf32> -> tensor<4x8xf32>
  %2 = train.matmul %b, %1 : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = train.slice %2 {offsets = array<i64: 0, 0>} : tensor<4x8xf32> -> tensor<4x4xf32>
  %4 = train.concat %3, %3 {dim = 0 : i64} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %5 = train.add %4, %4 : tensor<8x4xf32>
  %6 = train.neg %5 : tensor<8x4xf32>
  %7 = train.slice %6 {offsets = array<i64: 0, 0>} : tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// A clear op upstream of an allow op floods low even when its input also
// feeds a deny op (deny spreads forward, not sideways).
// CHECK-LABEL: func.func @clear_upstream_shared_with_deny(
// CHECK-NEXT: train.broadcast {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}
// CHECK-NEXT: train.log {{.*}}rule = "deny"
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
func.func @clear_upstream_shared_with_deny(%a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.broadcast %a {dims = array<i64: 1>} : tensor<4xf32> -> tensor<4x4xf32>
  %1 = train.log %0 : tensor<4x4xf32>
  %2 = train.matmul %0, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Diamond between two allow ops: both branches and the join are low.
// CHECK-LABEL: func.func @diamond(
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.tanh {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.relu {{.*}}mp.precision = {category = "clear", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
func.func @diamond(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.tanh %0 : tensor<4x4xf32>
  %2 = train.relu %0 : tensor<4x4xf32>
  %3 = train.add %1, %2 : tensor<4x4xf32>
  %4 = train.matmul %3, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Diamond whose join also reads a deny op: the join is denied, which cuts
// the path between the allow ops. The clear branch is not downstream of
// the deny op, so it is not denied and becomes low through rule 5; the
// infer branch is not between allow ops any more (fp32 under f16, follows
// its low input under bf16).
// CHECK-LABEL: func.func @diamond_with_deny(
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.exp {{.*}}rule = "deny"
// F16-NEXT: train.relu {{.*}}mp.precision = {category = "clear", dtype = f16, rule = "clear-next-to-low", source = "default-list"}
// BF16-NEXT: train.relu {{.*}}mp.precision = {category = "clear", dtype = bf16, rule = "{{[a-z-]+}}", source = "default-list"}
// F16-NEXT: train.tanh {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
// BF16-NEXT: train.tanh {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "follows-low-input", source = "default-list"}
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
func.func @diamond_with_deny(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.exp %a : tensor<4x4xf32>
  %2 = train.relu %0 : tensor<4x4xf32>
  %3 = train.tanh %0 : tensor<4x4xf32>
  %4 = train.add %2, %1 : tensor<4x4xf32>
  %5 = train.add %4, %3 : tensor<4x4xf32>
  %6 = train.matmul %5, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// One value with users of every colour: a low allow op, an fp32 deny op,
// an infer op between allow ops.
// CHECK-LABEL: func.func @users_of_different_colours(
// CHECK-NEXT: [[M:%[^ ,]+]] = train.matmul {{.*}}rule = "allow"{{.*}} -> tensor<4x4xf32>
// CHECK-NEXT: train.softmax [[M]] {{.*}}dtype = f32, rule = "deny"
// CHECK-NEXT: train.sigmoid [[M]] {{.*}}dtype = [[LOW]], rule = "between-allow"
// CHECK-NEXT: train.matmul {{.*}}dtype = [[LOW]], rule = "allow"
func.func @users_of_different_colours(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.softmax %0 : tensor<4x4xf32>
  %2 = train.sigmoid %0 : tensor<4x4xf32>
  %3 = train.matmul %2, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Only the convertible operands/results of batch_norm are edges: a deny op
// feeding its (f32) scale does not deny it, and an infer op reading its
// saved mean does not see a low input.
// CHECK-LABEL: func.func @batch_norm_edges(
// CHECK-NEXT: train.conv2d {{.*}}rule = "allow"
// CHECK-NEXT: train.exp {{.*}}rule = "deny"
// CHECK-NEXT: train.batch_norm {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.relu {{.*}}dtype = [[LOW]], rule = "between-allow"
// CHECK-NEXT: train.conv2d {{.*}}rule = "allow"
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
func.func @batch_norm_edges(%x: tensor<2x3x8x8xf32>, %w: tensor<3x3x3x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) {
  %y = train.conv2d NCHW %x, %w : tensor<2x3x8x8xf32>, tensor<3x3x3x3xf32> -> tensor<2x3x6x6xf32>
  %es = train.exp %s : tensor<3xf32>
  %bn:5 = train.batch_norm %y, %es, %o, %m, %v : tensor<2x3x6x6xf32>, tensor<3xf32>
  %r = train.relu %bn#0 : tensor<2x3x6x6xf32>
  %z = train.conv2d NCHW %r, %w : tensor<2x3x6x6xf32>, tensor<3x3x3x3xf32> -> tensor<2x3x4x4xf32>
  %sm = train.add %bn#3, %s : tensor<3xf32>
  return
}

// -----

// Ops without PrecisionOpInterface (math.sin, arith.remf have no model)
// stay fp32, with source "no-interface"; they count as deny, so an infer op
// reading one is denied. An op with a region is not painted, nor is
// anything nested in it.
// CHECK-LABEL: func.func @no_interface(
// CHECK-NEXT: math.sin {{.*}}{mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "no-interface"}} : tensor<4x4xf32>
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// CHECK-NEXT: arith.remf {{.*}}{mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "no-interface"}} : tensor<4x4xf32>
// CHECK-NEXT: tensor.generate
// CHECK-NOT: mp.precision
// CHECK: } : tensor<4x4xf32>
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
func.func @no_interface(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %s = math.sin %a : tensor<4x4xf32>
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.add %0, %s : tensor<4x4xf32>
  %r = arith.remf %0, %0 : tensor<4x4xf32>
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %z = arith.constant 0.0 : f32
    tensor.yield %z : f32
  } : tensor<4x4xf32>
  %2 = train.matmul %1, %g : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Ops without a float value to convert are not painted (integer add,
// integer constant); a float compare (i1 result) is.
// CHECK-LABEL: func.func @no_float_values(
// CHECK-NEXT: train.add {{%[^ ]+}}, {{%[^ ]+}} : tensor<4xi64>
// CHECK-NEXT: train.constant dense<1> : tensor<4xi64>
// CHECK-NEXT: train.compare gt, {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}} : tensor<4xf32>
func.func @no_float_values(%i: tensor<4xi64>, %x: tensor<4xf32>, %y: tensor<4xf32>) {
  %0 = train.add %i, %i : tensor<4xi64>
  %1 = train.constant dense<1> : tensor<4xi64>
  %2 = train.compare gt, %x, %y : tensor<4xf32>
  return
}

// -----

// The pass changes no types. External functions get no policy. (What
// happens to ops whose results the function returns is in
// assign-precision-returned.mlir.)
// CHECK-LABEL: func.func private @external(tensor<4x4xf32>) -> tensor<4x4xf32>{{$}}
// CHECK-LABEL: func.func @types(
// CHECK-SAME: %{{.*}}: tensor<4x4xf32>, %{{.*}}: tensor<4x4xf32>) attributes {mp.policy =
// CHECK-NEXT: [[M:%[^ ,]+]] = train.matmul {{.*}}dtype = [[LOW]]{{.*}} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: train.relu [[M]] {{.*}}dtype = [[LOW]]{{.*}} : tensor<4x4xf32>
// CHECK-NEXT: return{{$}}
// FP32-LABEL: func.func private @external(tensor<4x4xf32>) -> tensor<4x4xf32>{{$}}
// FP32-LABEL: func.func @types(
// FP32-SAME: attributes {mp.policy = "float32"}
func.func private @external(tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @types(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.relu %0 : tensor<4x4xf32>
  return
}

// -----

// Constants the compute dtype cannot hold (f16 overflows from 65520 on and
// flushes values below half its smallest subnormal, ~2.98e-8, to zero)
// are fp32 under mixed_float16 and keep their infer consumers fp32, even
// between allow ops; bf16 holds them all, so there they are plain clear ops
// next to low ops. Values that round to a finite nonzero f16 (65504, 65519,
// 3e-8), zero and inf fit.
// CHECK-LABEL: func.func @constants(
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.constant {mp.precision = {category = "clear", dtype = f32, rule = "constant-out-of-range", source = "default-list"}} dense<1.000000e+05>
// BF16-NEXT: train.constant {mp.precision = {category = "clear", dtype = bf16, rule = "clear-next-to-low", source = "default-list"}} dense<1.000000e+05>
// F16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// BF16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.fill 7.000000e+04 {mp.precision = {category = "clear", dtype = f32, rule = "constant-out-of-range", source = "default-list"}
// BF16-NEXT: train.fill 7.000000e+04 {mp.precision = {category = "clear", dtype = bf16, rule = "clear-next-to-low", source = "default-list"}
// F16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// BF16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.constant {mp.precision = {category = "clear", dtype = f32, rule = "constant-out-of-range", source = "default-list"}} dense<{{\[\[}}1.000000e+00, {{9.99999993E-9|1.000000e-08}}], [-1.000000e+00, 2.000000e+00]]>
// BF16-NEXT: train.constant {mp.precision = {category = "clear", dtype = bf16, rule = "clear-next-to-low", source = "default-list"}} dense<{{\[\[}}1.000000e+00, {{9.99999993E-9|1.000000e-08}}], [-1.000000e+00, 2.000000e+00]]>
// F16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// BF16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.fill 1.000000e-09 {mp.precision = {category = "clear", dtype = f32, rule = "constant-out-of-range", source = "default-list"}
// BF16-NEXT: train.fill 1.000000e-09 {mp.precision = {category = "clear", dtype = bf16, rule = "clear-next-to-low", source = "default-list"}
// F16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// BF16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.fill -6.552000e+04 {mp.precision = {category = "clear", dtype = f32, rule = "constant-out-of-range", source = "default-list"}
// BF16-NEXT: train.fill -6.552000e+04 {mp.precision = {category = "clear", dtype = bf16, rule = "clear-next-to-low", source = "default-list"}
// F16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// BF16-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.constant {mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}} dense<{{\[\[}}6.550400e+04, 6.551900e+04], [3.000000e-08, 0.000000e+00]]>
// CHECK-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.fill -6.550400e+04 {mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}
// CHECK-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
// CHECK-NEXT: train.constant {mp.precision = {category = "clear", dtype = [[LOW]], rule = "clear-next-to-low", source = "default-list"}} dense<0x7F800000>
// CHECK-NEXT: train.mul {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}rule = "allow"
func.func @constants(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) {
  %m = train.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %c0 = train.constant dense<1.0e5> : tensor<2x2xf32>
  %p0 = train.mul %m, %c0 : tensor<2x2xf32>
  %r0 = train.matmul %p0, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %c1 = train.fill 7.0e4 : tensor<2x2xf32>
  %p1 = train.mul %m, %c1 : tensor<2x2xf32>
  %r1 = train.matmul %p1, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %c2 = train.constant dense<[[1.0, 1.0e-8], [-1.0, 2.0]]> : tensor<2x2xf32>
  %p2 = train.mul %m, %c2 : tensor<2x2xf32>
  %r2 = train.matmul %p2, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %c3 = train.fill 1.0e-9 : tensor<2x2xf32>
  %p3 = train.mul %m, %c3 : tensor<2x2xf32>
  %r3 = train.matmul %p3, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %c4 = train.fill -6.5520e4 : tensor<2x2xf32>
  %p4 = train.mul %m, %c4 : tensor<2x2xf32>
  %r4 = train.matmul %p4, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %c5 = train.constant dense<[[65504.0, 65519.0], [3.0e-8, 0.0]]> : tensor<2x2xf32>
  %p5 = train.mul %m, %c5 : tensor<2x2xf32>
  %r5 = train.matmul %p5, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %c6 = train.fill -6.5504e4 : tensor<2x2xf32>
  %p6 = train.mul %m, %c6 : tensor<2x2xf32>
  %r6 = train.matmul %p6, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %c7 = train.constant dense<0x7F800000> : tensor<2x2xf32>
  %p7 = train.mul %m, %c7 : tensor<2x2xf32>
  %r7 = train.matmul %p7, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return
}

// -----

// mp.force on an instance overrides the lists: "low" makes even a deny op
// an allow op (and its neighbours then follow rule 3); "fp32" pins even an
// allow op to fp32 without spreading deny.
// CHECK-LABEL: func.func @force(
// CHECK-NEXT: train.matmul {{.*}}{mp.force = "fp32", mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "forced-fp32"}}
// CHECK-NEXT: train.exp {{.*}}{mp.force = "low", mp.precision = {category = "allow", dtype = [[LOW]], rule = "allow", source = "forced-low"}
// CHECK-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = [[LOW]], rule = "between-allow", source = "default-list"}
// CHECK-NEXT: train.matmul {{.*}}mp.precision = {category = "allow", dtype = [[LOW]], rule = "allow", source = "default-list"}
// CHECK-NEXT: train.relu {{.*}}{mp.force = "fp32", mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "forced-fp32"}}
// FP32-LABEL: func.func @force(
// FP32-NEXT: train.matmul {{.*}}{mp.force = "fp32"}
func.func @force(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b {mp.force = "fp32"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.exp %0 {mp.force = "low"} : tensor<4x4xf32>
  %2 = train.add %1, %0 : tensor<4x4xf32>
  %3 = train.matmul %2, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %4 = train.relu %3 {mp.force = "fp32"} : tensor<4x4xf32>
  return
}
