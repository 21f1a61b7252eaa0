// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the mp dialect's verifiers (MPOps.cpp), plus a sample
// of the ODS-generated ones.

//===----------------------------------------------------------------------===//
// mp.cast
//===----------------------------------------------------------------------===//

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{all of {input, result} have same shape}}
  %0 = mp.cast %x : tensor<4xf32> to tensor<2x2xbf16>
  return
}

// -----

func.func @cast_to_f64(%x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xf64>'}}
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xf64>
  return
}

// -----

func.func @cast_from_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0 = mp.cast %x : tensor<4xi32> to tensor<4xf32>
  return
}

// -----

func.func @cast_to_i8(%x: tensor<4xf32>) {
  // expected-error @+1 {{but got 'tensor<4xi8>'}}
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xi8>
  return
}

// -----

func.func @cast_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = mp.cast %x : tensor<?xf32> to tensor<?xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// mp.scale
//===----------------------------------------------------------------------===//

func.func @scale_result_type(%v: tensor<f16>, %s: tensor<f32>) {
  // expected-error @+1 {{all of {value, result} have same type}}
  %0 = "mp.scale"(%v, %s) : (tensor<f16>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @scale_not_f32(%v: tensor<f16>, %s: tensor<f16>) {
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit float values, but got 'tensor<f16>'}}
  %0 = "mp.scale"(%v, %s) : (tensor<f16>, tensor<f16>) -> tensor<f16>
  return
}

// -----

func.func @scale_not_scalar(%v: tensor<2xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = "mp.scale"(%v, %s) : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// mp.unscale_and_check
//===----------------------------------------------------------------------===//

func.func @unscale_no_gradients(%s: tensor<f32>) {
  // expected-error @+1 {{expects at least one gradient}}
  %0 = "mp.unscale_and_check"(%s) : (tensor<f32>) -> tensor<i1>
  return
}

// -----

func.func @unscale_result_count(%s: tensor<f32>, %g: tensor<4xf16>) {
  // expected-error @+1 {{has 2 gradients but 1 unscaled results}}
  %0:2 = mp.unscale_and_check %s, %g, %g : tensor<4xf16>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @unscale_shape(%s: tensor<f32>, %g: tensor<4xf16>, %h: tensor<2xbf16>) {
  // expected-error @+1 {{gradient #1 is 'tensor<2xbf16>' but its unscaled result is 'tensor<3xf32>'}}
  %0:3 = mp.unscale_and_check %s, %g, %h : tensor<4xf16>, tensor<2xbf16> -> tensor<4xf32>, tensor<3xf32>
  return
}

// -----

func.func @unscale_scale_not_f32(%s: tensor<bf16>, %g: tensor<4xf16>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 32-bit float values, but got 'tensor<bf16>'}}
  %0:2 = "mp.unscale_and_check"(%s, %g) : (tensor<bf16>, tensor<4xf16>) -> (tensor<4xf32>, tensor<i1>)
  return
}

// -----

func.func @unscale_integer_gradient(%s: tensor<f32>, %g: tensor<4xi32>) {
  // expected-error @+1 {{operand #1 must be variadic of statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0:2 = mp.unscale_and_check %s, %g : tensor<4xi32> -> tensor<4xf32>
  return
}

// -----

func.func @unscale_flag_not_i1(%s: tensor<f32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{result #1 must be 0D tensor of 1-bit signless integer values, but got 'tensor<i32>'}}
  %0:2 = "mp.unscale_and_check"(%s, %g) : (tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// mp.all_finite
//===----------------------------------------------------------------------===//

func.func @all_finite_no_operands() {
  // expected-error @+1 {{expects at least one operand}}
  %0 = "mp.all_finite"() : () -> tensor<i1>
  return
}

// -----

func.func @all_finite_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be variadic of statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0 = mp.all_finite %x : tensor<4xi32>
  return
}

// -----

func.func @all_finite_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = "mp.all_finite"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

//===----------------------------------------------------------------------===//
// mp.select
//===----------------------------------------------------------------------===//

func.func @select_counts(%p: tensor<i1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{selects between 2 new and 1 old values}}
  %0:2 = "mp.select"(%p, %a, %a, %a) <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (tensor<i1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @select_types(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{new value #0 is 'tensor<4xf32>' but old value #0 is 'tensor<4xbf16>'}}
  %0 = "mp.select"(%p, %a, %b) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<i1>, tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @select_second_pair(%p: tensor<i1>, %a: tensor<4xf32>, %t: tensor<i32>, %u: tensor<i64>) {
  // expected-error @+1 {{new value #1 is 'tensor<i32>' but old value #1 is 'tensor<i64>'}}
  %0:2 = "mp.select"(%p, %a, %t, %a, %u) <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (tensor<i1>, tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i32>)
  return
}

// -----

func.func @select_result_types(%p: tensor<i1>, %a: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xbf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "mp.select"(%p, %a, %a) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

func.func @select_pred_not_scalar(%p: tensor<4xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = "mp.select"(%p, %a, %a) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_segments(%p: tensor<i1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand count (3) does not match with the total size (4) specified in attribute 'operandSegmentSizes'}}
  %0 = "mp.select"(%p, %a, %a) <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// mp.update_scale
//===----------------------------------------------------------------------===//

func.func @update_scale_interval(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{expects growth_interval >= 1 but got 0}}
  %0:2 = mp.update_scale %s, %c, %ok {growth_interval = 0 : i64} : tensor<i32>
  return
}

// -----

func.func @update_scale_growth(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error-re @+1 {{expects growth_factor >= 1 but got {{(0\.5|5\.0+e-01)$}}}}
  %0:2 = mp.update_scale %s, %c, %ok {growth_factor = 0.5 : f64} : tensor<i32>
  return
}

// -----

func.func @update_scale_growth_nan(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{expects growth_factor >= 1 but got nan}}
  %0:2 = mp.update_scale %s, %c, %ok {growth_factor = 0x7FF8000000000000 : f64} : tensor<i32>
  return
}

// -----

func.func @update_scale_backoff_one(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error-re @+1 {{expects backoff_factor in (0, 1) but got 1{{(\.0+e\+00)?$}}}}
  %0:2 = mp.update_scale %s, %c, %ok {backoff_factor = 1.0 : f64} : tensor<i32>
  return
}

// -----

func.func @update_scale_backoff_zero(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error-re @+1 {{expects backoff_factor in (0, 1) but got 0{{(\.0+e\+00)?$}}}}
  %0:2 = mp.update_scale %s, %c, %ok {backoff_factor = 0.0 : f64} : tensor<i32>
  return
}

// -----

func.func @update_scale_negative_min(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{expects 0 <= min_scale <= max_scale but got}}
  %0:2 = mp.update_scale %s, %c, %ok {min_scale = -1.0 : f64} : tensor<i32>
  return
}

// -----

func.func @update_scale_min_above_max(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error-re @+1 {{expects 0 <= min_scale <= max_scale but got {{(1024|1\.0240*e\+03)}} and {{(16|1\.60*e\+01)$}}}}
  %0:2 = mp.update_scale %s, %c, %ok {min_scale = 1024.0 : f64, max_scale = 16.0 : f64} : tensor<i32>
  return
}

// -----

func.func @update_scale_counter_float(%s: tensor<f32>, %c: tensor<f32>, %ok: tensor<i1>) {
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %0:2 = mp.update_scale %s, %c, %ok : tensor<f32>
  return
}

// -----

func.func @update_scale_scale_bf16(%s: tensor<bf16>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 32-bit float values, but got 'tensor<bf16>'}}
  %0:2 = "mp.update_scale"(%s, %c, %ok) : (tensor<bf16>, tensor<i32>, tensor<i1>) -> (tensor<bf16>, tensor<i32>)
  return
}

// -----

func.func @update_scale_counter_types(%s: tensor<f32>, %c: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{all of {growth_count, new_growth_count} have same type}}
  %0:2 = "mp.update_scale"(%s, %c, %ok) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

func.func @empty_select(%p: tensor<i1>) {
  // expected-error @+1 {{expects at least one state value}}
  "mp.select"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<i1>) -> ()
  return
}

// -----

func.func @bogus_attribute(%x: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @+1 {{has no attribute 'bogus'}}
  %0 = mp.cast %x {bogus} : tensor<4xf32> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// mp.matmul_epilogue
//===----------------------------------------------------------------------===//

func.func @epilogue_mixed_operands(%a: tensor<4x8xbf16>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{expects lhs and rhs of one element type but got 'bf16' and 'f32'}}
  %0 = mp.matmul_epilogue %a, %b : tensor<4x8xbf16>, tensor<8x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @epilogue_narrow_result(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{expects a result of element type 'f32' or f32 (the accumulator) but got 'bf16'}}
  %0 = mp.matmul_epilogue %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xbf16>
  return
}

// -----

func.func @epilogue_contraction(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) {
  // expected-error @+1 {{contracts lhs dimension of size 8 with rhs dimension of size 7}}
  %0 = mp.matmul_epilogue %a, %b : tensor<4x8xf32>, tensor<7x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @epilogue_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x3xf32>) {
  // expected-error @+1 {{expects rhs batch dimensions [2] (or a rank-2 rhs) but got [3]}}
  %0 = mp.matmul_epilogue %a, %b : tensor<2x4x8xf32>, tensor<3x8x3xf32> -> tensor<2x4x3xf32>
  return
}

// -----

func.func @epilogue_result_shape(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{expects a result of shape [4, 3] but got [3, 4]}}
  %0 = mp.matmul_epilogue %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @epilogue_bias_shape(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects a bias of shape [3] (the result's last dimension) but got [4]}}
  %0 = mp.matmul_epilogue %a, %b bias %c : tensor<4x8xf32>, tensor<8x3xf32>, tensor<4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @epilogue_bias_type(%a: tensor<4x8xbf16>, %b: tensor<8x3xbf16>, %c: tensor<3xf16>) {
  // expected-error @+1 {{expects a bias of element type f32 or 'bf16' (the result's) but got 'f16'}}
  %0 = mp.matmul_epilogue %a, %b bias %c : tensor<4x8xbf16>, tensor<8x3xbf16>, tensor<3xf16> -> tensor<4x3xbf16>
  return
}

// -----

func.func @epilogue_activation(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{expects activation "none" or "relu" but got "gelu"}}
  %0 = mp.matmul_epilogue %a, %b {activation = "gelu"} : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  return
}
