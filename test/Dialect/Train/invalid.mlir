// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Every diagnostic the train dialect's verifiers (TrainOps.cpp, Roles.cpp,
// TrainDialect.cpp) can emit, plus a sample of the ODS-generated ones.

//===----------------------------------------------------------------------===//
// ODS-generated constraints
//===----------------------------------------------------------------------===//

func.func @same_operands_and_result_type(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "train.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @unary_result_type_differs(%a: tensor<2xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "train.neg"(%a) : (tensor<2xf32>) -> tensor<2xbf16>
  return
}

// -----

func.func @f64_operand(%a: tensor<2xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<2xf64>'}}
  %0 = train.exp %a : tensor<2xf64>
  return
}

// -----

func.func @i8_operand(%a: tensor<2xi8>) {
  // expected-error @+1 {{but got 'tensor<2xi8>'}}
  %0 = train.add %a, %a : tensor<2xi8>
  return
}

// -----

func.func @integer_pow(%a: tensor<2xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = train.pow %a, %a : tensor<2xi32>
  return
}

// -----

func.func @integer_relu(%a: tensor<2xi32>) {
  // expected-error @+1 {{but got 'tensor<2xi32>'}}
  %0 = train.relu %a : tensor<2xi32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = train.sigmoid %a : tensor<?xf32>
  return
}

// -----

func.func @compare_result_not_i1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = "train.compare"(%a, %a) <{predicate = 0 : i64}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @compare_result_shape(%a: tensor<2xf32>) {
  // expected-error @+1 {{result is an i1 tensor of the operands' shape}}
  %0 = "train.compare"(%a, %a) <{predicate = 0 : i64}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @compare_operand_types(%a: tensor<2xf32>, %b: tensor<2xbf16>) {
  // expected-error @+1 {{requires all operands to have the same type}}
  %0 = "train.compare"(%a, %b) <{predicate = 0 : i64}> : (tensor<2xf32>, tensor<2xbf16>) -> tensor<2xi1>
  return
}

// -----

func.func @compare_bad_predicate(%a: tensor<2xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = train.compare less, %a, %a : tensor<2xf32>
  return
}

// -----

func.func @select_condition_shape(%c: tensor<3xi1>, %a: tensor<2xf32>) {
  // expected-error @+1 {{condition is an i1 tensor of the result's shape}}
  %0 = "train.select"(%c, %a, %a) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @select_branch_types(%c: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error @+1 {{all of {true_value, false_value, result} have same type}}
  %0 = "train.select"(%c, %a, %b) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return
}

// -----

func.func @bad_layout(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'layout' [NCHW, NHWC]}}
  %0 = train.global_avg_pool2d CHWN %x : tensor<2x3x8x8xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @bias_add_result_type(%x: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{all of {x, result} have same type}}
  %0 = "train.bias_add"(%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xbf16>
  return
}

// -----

func.func @bias_add_element_types(%x: tensor<2x3xf32>, %b: tensor<3xbf16>) {
  // expected-error @+1 {{all of {x, bias} have same element type}}
  %0 = train.bias_add %x, %b : tensor<2x3xf32>, tensor<3xbf16>
  return
}

// -----

func.func @batch_norm_stats_types(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xbf16>) {
  // expected-error @+1 {{all of {scale, offset, running_mean, running_var, new_running_mean, new_running_var, saved_mean, saved_inv_std} have same type}}
  %0:5 = "train.batch_norm"(%x, %s, %o, %s, %s) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xbf16>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @cross_entropy_float_labels(%l: tensor<4x10xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = train.sparse_cross_entropy %l, %y : tensor<4x10xf32>, tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_loss_not_scalar(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = train.sparse_cross_entropy %l, %y : tensor<4x10xf32>, tensor<4xi32> -> tensor<4xf32>
  return
}

// -----

func.func @grad_seed_not_scalar(%l: tensor<2xf32>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = train.grad_seed %l : tensor<2xf32>
  return
}

// -----

func.func @adam_step_not_scalar(%p: tensor<8xf32>, %t: tensor<1xi64>) {
  // expected-error @+1 {{operand #4 must be 0D tensor of 32-bit signless integer or 64-bit signless integer or 32-bit float values}}
  %0:3 = train.adam %p, %p, %p, %p, %t {lr = 1.0e-3 : f64} : tensor<8xf32>, tensor<1xi64>
  return
}

// -----

func.func @sgd_missing_lr(%p: tensor<8xf32>) {
  // expected-error @+1 {{needs a learning rate: an 'lr' attribute or an operand}}
  %0 = train.sgd %p, %p : tensor<8xf32>
  return
}

// -----

func.func @sgd_two_learning_rates(%p: tensor<8xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{has both an 'lr' attribute and a learning rate operand}}
  %0 = train.sgd %p, %p lr %lr {lr = 0.1 : f64} : tensor<8xf32>
  return
}

// -----

func.func @adamw_learning_rate_not_f32(%p: tensor<8xf32>, %t: tensor<i64>, %lr: tensor<f64>) {
  // expected-error @+1 {{operand #5 must be 0D tensor of 32-bit float values}}
  %0:3 = "train.adamw"(%p, %p, %p, %p, %t, %lr) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<f64>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @lr_schedule_negative_base(%t: tensor<i64>) {
  // expected-error @+1 {{needs a finite 'base_lr' >= 0, got -0.1}}
  %0 = train.lr_schedule %t {base_lr = -0.1 : f64} : tensor<i64>
  return
}

// -----

func.func @lr_schedule_negative_warmup(%t: tensor<i64>) {
  // expected-error @+1 {{needs 'warmup_steps' >= 0, got -3}}
  %0 = train.lr_schedule %t {base_lr = 0.1 : f64, warmup_steps = -3 : i64} : tensor<i64>
  return
}

// -----

func.func @lr_schedule_warmup_factor(%t: tensor<i64>) {
  // expected-error @+1 {{expects 'warmup_start_factor' in [0, 1] but got 2}}
  %0 = train.lr_schedule %t {base_lr = 0.1 : f64, warmup_steps = 3 : i64, warmup_start_factor = 2.0 : f64} : tensor<i64>
  return
}

// -----

func.func @lr_schedule_no_decay_steps(%t: tensor<i64>) {
  // expected-error @+1 {{needs 'decay_steps' >= 1 for the cosine decay, got 0}}
  %0 = train.lr_schedule %t decay cosine {base_lr = 0.1 : f64, decay_steps = 0 : i64} : tensor<i64>
  return
}

// -----

func.func @lr_schedule_end_factor(%t: tensor<i64>) {
  // expected-error @+1 {{expects 'end_factor' in [0, 1] but got 1.5}}
  %0 = train.lr_schedule %t decay linear {base_lr = 0.1 : f64, decay_steps = 10 : i64, end_factor = 1.5 : f64} : tensor<i64>
  return
}

// -----

func.func @lr_schedule_gamma(%t: tensor<i64>) {
  // expected-error @+1 {{expects 'gamma' in [0, 1] but got 3}}
  %0 = train.lr_schedule %t decay exponential {base_lr = 0.1 : f64, gamma = 3.0 : f64} : tensor<i64>
  return
}

// -----

func.func @lr_schedule_float_step(%t: tensor<f32>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "train.lr_schedule"(%t) <{base_lr = 0.1 : f64}> : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @clip_grad_norm_nothing() {
  // expected-error @+1 {{needs at least one gradient}}
  %0 = "train.clip_grad_norm"() <{max_norm = 1.0 : f64}> : () -> tensor<f32>
  return
}

// -----

func.func @clip_grad_norm_max(%g: tensor<8xf32>) {
  // expected-error @+1 {{needs a finite, positive 'max_norm', got 0}}
  %0:2 = train.clip_grad_norm %g {max_norm = 0.0 : f64} : tensor<8xf32>
  return
}

// -----

func.func @clip_grad_norm_type(%g: tensor<8xf32>) {
  // expected-error @+1 {{needs a positive 'norm_type' (or inf), got -2}}
  %0:2 = train.clip_grad_norm %g {max_norm = 1.0 : f64, norm_type = -2.0 : f64} : tensor<8xf32>
  return
}

// -----

func.func @clip_grad_norm_types(%g: tensor<8xf32>) {
  // expected-error @+1 {{every clipped gradient has its gradient's type}}
  %0:2 = "train.clip_grad_norm"(%g) <{max_norm = 1.0 : f64}> : (tensor<8xf32>) -> (tensor<8xbf16>, tensor<f32>)
  return
}

// -----

func.func @clip_grad_value_bound(%g: tensor<8xf32>) {
  // expected-error @+1 {{needs a finite, positive 'clip_value', got -1}}
  %0 = train.clip_grad_value %g {clip_value = -1.0 : f64} : tensor<8xf32>
  return
}

// -----

func.func @dropout_p(%x: tensor<8xf32>, %k: tensor<i64>, %c: tensor<i64>) {
  // expected-error @+1 {{expects 'p' in [0, 1) but got 1}}
  %0 = train.dropout %x, %k, %c {p = 1.0 : f64} : tensor<8xf32>, tensor<i64>, tensor<i64>
  return
}

// -----

func.func @dropout_site(%x: tensor<8xf32>, %k: tensor<i64>, %c: tensor<i64>) {
  // expected-error @+1 {{needs a 'site' in [0, 2^32), got -1}}
  %0 = train.dropout_grad %x, %k, %c {p = 0.5 : f64, site = -1 : i64} : tensor<8xf32>, tensor<i64>, tensor<i64>
  return
}

// -----

func.func @dropout_key_not_scalar(%x: tensor<8xf32>, %k: tensor<2xi64>, %c: tensor<i64>) {
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = train.dropout %x, %k, %c {p = 0.5 : f64} : tensor<8xf32>, tensor<2xi64>, tensor<i64>
  return
}

// -----

func.func @dropout_too_large(%x: tensor<8x4096x4096x256xbf16>, %k: tensor<i64>, %c: tensor<i64>) {
  // expected-error @+1 {{dropout masks cover at most 2^34}}
  %0 = train.dropout %x, %k, %c {p = 0.5 : f64} : tensor<8x4096x4096x256xbf16>, tensor<i64>, tensor<i64>
  return
}

// -----

func.func @dropout_mask_rank(%x: tensor<4x6xf32>, %k: tensor<i64>, %c: tensor<i64>) {
  // expected-error @+1 {{has a mask_shape of rank 1 for x of rank 2}}
  %0 = train.dropout %x, %k, %c {p = 0.5 : f64, mask_shape = array<i64: 4>} : tensor<4x6xf32>, tensor<i64>, tensor<i64>
  return
}

// -----

func.func @dropout_mask_dim(%x: tensor<4x6xf32>, %k: tensor<i64>, %c: tensor<i64>) {
  // expected-error @+1 {{has mask_shape dimension 1 = 3; each must be 1 or x's (6)}}
  %0 = train.dropout_grad %x, %k, %c {p = 0.5 : f64, mask_shape = array<i64: 4, 3>} : tensor<4x6xf32>, tensor<i64>, tensor<i64>
  return
}

// -----

func.func @sgd_types(%p: tensor<8xf32>, %g: tensor<8xbf16>) {
  // expected-error @+1 {{all of {param, grad, new_param} have same type}}
  %0 = "train.sgd"(%p, %g) <{lr = 1.0e-1 : f64}> : (tensor<8xf32>, tensor<8xbf16>) -> tensor<8xf32>
  return
}

// -----

func.func @reduce_missing_dims(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires attribute 'dims'}}
  %0 = train.reduce_sum %x : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @constant_f64() {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf64>'}}
  %0 = train.constant dense<1.0> : tensor<2xf64>
  return
}

// -----

func.func @constant_i8() {
  // expected-error @+1 {{but got 'tensor<2xi8>'}}
  %0 = train.constant dense<1> : tensor<2xi8>
  return
}

// -----

func.func @constant_result_type_mismatch() {
  // expected-error @+2 {{inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "train.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @misspelled_unit_attr(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'train.matmul' op has no attribute 'tranpose_lhs' (only its own attributes and dialect-prefixed ones are allowed)}}
  %0 = train.matmul %a, %b {tranpose_lhs} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @foreign_undotted_attr(%x: tensor<2xf32>) {
  // expected-error @+1 {{'train.neg' op has no attribute 'axis'}}
  %0 = train.neg %x {axis = 0 : i64} : tensor<2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xbf16>) {
  // expected-error @+1 {{expects lhs and rhs to have the same element type but got 'f32' and 'bf16'}}
  %0 = train.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xbf16> -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{expects operands of rank >= 2 but got ranks 1 and 2}}
  %0 = train.matmul %a, %b : tensor<3xf32>, tensor<3x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) {
  // expected-error @+1 {{contracts lhs dimension of size 3 with rhs dimension of size 5}}
  %0 = train.matmul %a, %b : tensor<2x3xf32>, tensor<5x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_transpose_contraction(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // With transpose_rhs the rhs is [N, K] = [3, 4]: K = 4 does not match 3.
  // expected-error @+1 {{contracts lhs dimension of size 3 with rhs dimension of size 4}}
  %0 = train.matmul %a, %b {transpose_rhs} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<5x2x3xf32>, %b: tensor<6x3x4xf32>) {
  // expected-error @+1 {{expects batch dimensions that broadcast but got [5] and [6]}}
  %0 = train.matmul %a, %b : tensor<5x2x3xf32>, tensor<6x3x4xf32> -> tensor<5x2x4xf32>
  return
}

// -----

func.func @matmul_broadcast_result(%a: tensor<2x3xf32>, %b: tensor<6x3x4xf32>) {
  // expected-error @+1 {{expects a result of shape [6, 2, 4] but got [2, 4]}}
  %0 = train.matmul %a, %b : tensor<2x3xf32>, tensor<6x3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{expects a result of shape [2, 4] but got [4, 2]}}
  %0 = train.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<4x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// bias_add
//===----------------------------------------------------------------------===//

func.func @bias_add_dim(%x: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = train.bias_add %x, %b {dim = 2 : i64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bias_add_negative_dim(%x: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{dim -3 is out of range for rank 2}}
  %0 = train.bias_add %x, %b {dim = -3 : i64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bias_add_bias_rank(%x: tensor<2x3xf32>, %b: tensor<1x3xf32>) {
  // expected-error @+1 {{expects a bias of rank 1 but got rank 2}}
  %0 = train.bias_add %x, %b : tensor<2x3xf32>, tensor<1x3xf32>
  return
}

// -----

func.func @bias_add_bias_shape(%x: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects a bias of shape [2] but got [3]}}
  %0 = train.bias_add %x, %b {dim = 0 : i64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// conv2d and its gradients
//===----------------------------------------------------------------------===//

func.func @conv_element_types(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xbf16>) {
  // expected-error @+1 {{expects input and filter to have the same element type but got 'f32' and 'bf16'}}
  %0 = train.conv2d NCHW %x, %f : tensor<1x3x8x8xf32>, tensor<4x3x3x3xbf16> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_input_rank(%x: tensor<3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects input of rank 4 but got rank 3}}
  %0 = train.conv2d NCHW %x, %f : tensor<3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects filter of rank 4 but got rank 3}}
  %0 = train.conv2d NCHW %x, %f : tensor<1x3x8x8xf32>, tensor<4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_output_rank(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects result of rank 4 but got rank 3}}
  %0 = train.conv2d NCHW %x, %f : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<4x6x6xf32>
  return
}

// -----

func.func @conv_channels_nchw(%x: tensor<1x3x8x8xf32>, %f: tensor<4x5x3x3xf32>) {
  // expected-error @+1 {{input has 3 channels but filter expects 5 (filter layout OIHW)}}
  %0 = train.conv2d NCHW %x, %f : tensor<1x3x8x8xf32>, tensor<4x5x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_channels_nhwc(%x: tensor<1x8x8x3xf32>, %f: tensor<4x3x3x3xf32>) {
  // An OIHW [4, 3, 3, 3] filter given with NHWC data is read as HWIO: a 4x3
  // window with 3 output channels.
  // expected-error @+1 {{expects result of shape [1, 5, 6, 3] but got [1, 6, 6, 4]}}
  %0 = train.conv2d NHWC %x, %f : tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32> -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_channels_hwio(%x: tensor<1x8x8x3xf32>, %f: tensor<3x3x5x4xf32>) {
  // expected-error @+1 {{input has 3 channels but filter expects 5 (filter layout HWIO)}}
  %0 = train.conv2d NHWC %x, %f : tensor<1x8x8x3xf32>, tensor<3x3x5x4xf32> -> tensor<1x6x6x4xf32>
  return
}

// -----

// An HWIO-shaped filter read as OIHW (`filter OIHW` beside NHWC images):
// O 3, I 3, 5 x 4 taps.
func.func @conv_channels_nhwc_oihw(%x: tensor<1x8x8x4xf32>, %f: tensor<3x3x5x4xf32>) {
  // expected-error @+1 {{input has 4 channels but filter expects 3 (filter layout OIHW)}}
  %0 = train.conv2d NHWC filter OIHW %x, %f : tensor<1x8x8x4xf32>, tensor<3x3x5x4xf32> -> tensor<1x4x5x3xf32>
  return
}

// -----

func.func @conv_strides_size(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects 'strides' to have 2 entries but got 1}}
  %0 = train.conv2d NCHW %x, %f {strides = array<i64: 2>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects every 'strides' entry to be >= 1 but got 0}}
  %0 = train.conv2d NCHW %x, %f {strides = array<i64: 1, 0>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_padding_size(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects 'padding' to have 4 entries but got 2}}
  %0 = train.conv2d NCHW %x, %f {padding = array<i64: 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_negative_padding(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects every 'padding' entry to be >= 0 but got -1}}
  %0 = train.conv2d NCHW %x, %f {padding = array<i64: 0, 0, -1, 0>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x5xf32>
  return
}

// -----

func.func @conv_dilations_size(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects 'dilations' to have 2 entries but got 3}}
  %0 = train.conv2d NCHW %x, %f {dilations = array<i64: 1, 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_dilation(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects every 'dilations' entry to be >= 1 but got 0}}
  %0 = train.conv2d NCHW %x, %f {dilations = array<i64: 0, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_window_too_big(%x: tensor<1x3x4x4xf32>, %f: tensor<4x3x5x5xf32>) {
  // expected-error @+1 {{window [5, 5] does not fit the padded input [1, 3, 4, 4]}}
  %0 = train.conv2d NCHW %x, %f : tensor<1x3x4x4xf32>, tensor<4x3x5x5xf32> -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @conv_dilated_window_too_big(%x: tensor<1x3x4x4xf32>, %f: tensor<4x3x3x3xf32>) {
  // A 3x3 window dilated by 2 spans 5 > 4.
  // expected-error @+1 {{window [3, 3] does not fit the padded input [1, 3, 4, 4]}}
  %0 = train.conv2d NCHW %x, %f {dilations = array<i64: 2, 2>} : tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @conv_output_shape(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // Stride 2, padding 1: (8 + 2 - 3) / 2 + 1 = 4.
  // expected-error @+1 {{expects result of shape [1, 4, 4, 4] but got [1, 4, 3, 3]}}
  %0 = train.conv2d NCHW %x, %f {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_backward_data_element_types(%dy: tensor<1x4x6x6xf32>, %f: tensor<4x3x3x3xf16>) {
  // expected-error @+1 {{expects grad_output and filter to have the same element type but got 'f32' and 'f16'}}
  %0 = train.conv2d_backward_data NCHW %dy, %f : tensor<1x4x6x6xf32>, tensor<4x3x3x3xf16> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_data_shape(%dy: tensor<1x4x6x6xf32>, %f: tensor<4x3x3x3xf32>) {
  // The result [1, 3, 9, 9] convolved with the filter gives [1, 4, 7, 7].
  // expected-error @+1 {{expects grad_output of shape [1, 4, 7, 7] but got [1, 4, 6, 6]}}
  %0 = train.conv2d_backward_data NCHW %dy, %f : tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x9x9xf32>
  return
}

// -----

func.func @conv_backward_data_channels(%dy: tensor<1x4x6x6xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{result has 2 channels but filter expects 3 (filter layout OIHW)}}
  %0 = train.conv2d_backward_data NCHW %dy, %f : tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @conv_backward_filter_element_types(%x: tensor<1x3x8x8xbf16>, %dy: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{expects input and grad_output to have the same element type but got 'bf16' and 'f32'}}
  %0 = train.conv2d_backward_filter NCHW %x, %dy : tensor<1x3x8x8xbf16>, tensor<1x4x6x6xf32> -> tensor<4x3x3x3xbf16>
  return
}

// -----

func.func @conv_backward_filter_rank(%x: tensor<1x3x8x8xf32>, %dy: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{expects result of rank 4 but got rank 2}}
  %0 = train.conv2d_backward_filter NCHW %x, %dy : tensor<1x3x8x8xf32>, tensor<1x4x6x6xf32> -> tensor<4x27xf32>
  return
}

// -----

func.func @conv_backward_filter_shape(%x: tensor<1x3x8x8xf32>, %dy: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{expects grad_output of shape [1, 5, 6, 6] but got [1, 4, 6, 6]}}
  %0 = train.conv2d_backward_filter NCHW %x, %dy : tensor<1x3x8x8xf32>, tensor<1x4x6x6xf32> -> tensor<5x3x3x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

func.func @batch_norm_momentum(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error-re @+1 {{expects momentum in [0, 1] but got 1.5{{0*(e\+0+)?$}}}}
  %0:5 = train.batch_norm %x, %s, %s, %s, %s {momentum = 1.5 : f64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_negative_momentum(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error-re @+1 {{expects momentum in [0, 1] but got -{{(0\.1|1\.0+e-01)$}}}}
  %0:5 = train.batch_norm %x, %s, %s, %s, %s {momentum = -0.1 : f64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_epsilon(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{expects a positive epsilon}}
  %0:5 = train.batch_norm %x, %s, %s, %s, %s {epsilon = 0.0 : f64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{expects x of rank >= 2 but got rank 1}}
  %0:5 = train.batch_norm %x, %s, %s, %s, %s : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_feature_dim(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{feature_dim 2 is out of range for rank 2}}
  %0:5 = train.batch_norm %x, %s, %s, %s, %s {feature_dim = 2 : i64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_per_feature_shape(%x: tensor<2x3x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{expects per-feature tensors of shape [3] but got [4]}}
  %0:5 = train.batch_norm %x, %s, %s, %s, %s : tensor<2x3x4x4xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_grad_rank(%x: tensor<3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{expects x of rank >= 2 but got rank 1}}
  %0:3 = train.batch_norm_grad %x, %x, %s, %s, %s : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_grad_feature_dim(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{feature_dim -3 is out of range for rank 2}}
  %0:3 = train.batch_norm_grad %x, %x, %s, %s, %s {feature_dim = -3 : i64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_grad_per_feature_shape(%x: tensor<2x3xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{expects per-feature tensors of shape [3] but got [2]}}
  %0:3 = train.batch_norm_grad %x, %x, %s, %s, %s : tensor<2x3xf32>, tensor<2xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{expects a positive epsilon}}
  %0:3 = train.layer_norm %x, %s, %s {epsilon = -1.0e-5 : f64} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0:3 = train.layer_norm %x, %s, %s {axis = 2 : i64} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{expects scale and offset of shape [5, 8] but got [8]}}
  %0:3 = train.layer_norm %x, %s, %s {axis = 1 : i64} : tensor<2x5x8xf32>, tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @layer_norm_stats_shape(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{expects mean and inv_std of shape [2, 5] but got [2]}}
  %0:3 = train.layer_norm %x, %s, %s : tensor<2x5x8xf32>, tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @layer_norm_grad_axis(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %m: tensor<2xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0:3 = train.layer_norm_grad %x, %x, %s, %m, %m {axis = -3 : i64} : tensor<2x8xf32>, tensor<8xf32>, tensor<2xf32>
  return
}

// -----

func.func @layer_norm_grad_scale_shape(%x: tensor<2x8xf32>, %s: tensor<4xf32>, %m: tensor<2xf32>) {
  // expected-error @+1 {{expects scale and offset of shape [8] but got [4]}}
  %0:3 = train.layer_norm_grad %x, %x, %s, %m, %m : tensor<2x8xf32>, tensor<4xf32>, tensor<2xf32>
  return
}

// -----

func.func @layer_norm_grad_stats_shape(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %m: tensor<8xf32>) {
  // expected-error @+1 {{expects mean and inv_std of shape [2] but got [8]}}
  %0:3 = train.layer_norm_grad %x, %x, %s, %m, %m : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Softmax and losses
//===----------------------------------------------------------------------===//

func.func @softmax_axis(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = train.softmax %x {axis = 2 : i64} : tensor<4x10xf32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = train.log_softmax %x {axis = -3 : i64} : tensor<4x10xf32>
  return
}

// -----

func.func @softmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{axis -1 is out of range for rank 0}}
  %0 = train.softmax %x : tensor<f32>
  return
}

// -----

func.func @softmax_grad_axis(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{axis 5 is out of range for rank 2}}
  %0 = train.softmax_grad %x, %x {axis = 5 : i64} : tensor<4x10xf32>
  return
}

// -----

func.func @log_softmax_grad_axis(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{axis -5 is out of range for rank 2}}
  %0 = train.log_softmax_grad %x, %x {axis = -5 : i64} : tensor<4x10xf32>
  return
}

// -----

func.func @cross_entropy_logits_rank(%l: tensor<4x2x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{expects logits of rank 2 but got rank 3}}
  %0 = train.sparse_cross_entropy %l, %y : tensor<4x2x10xf32>, tensor<4xi32> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_labels_shape(%l: tensor<4x10xf32>, %y: tensor<5xi32>) {
  // expected-error @+1 {{expects labels of shape [4] but got [5]}}
  %0 = train.sparse_cross_entropy %l, %y : tensor<4x10xf32>, tensor<5xi32> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_grad_logits_rank(%l: tensor<10xf32>, %y: tensor<4xi32>, %g: tensor<f32>) {
  // expected-error @+1 {{expects logits of rank 2 but got rank 1}}
  %0 = train.sparse_cross_entropy_grad %l, %y, %g : tensor<10xf32>, tensor<4xi32>, tensor<f32>
  return
}

// -----

func.func @cross_entropy_grad_labels_shape(%l: tensor<4x10xf32>, %y: tensor<4x1xi32>, %g: tensor<f32>) {
  // expected-error @+1 {{expects labels of shape [4] but got [4, 1]}}
  %0 = train.sparse_cross_entropy_grad %l, %y, %g : tensor<4x10xf32>, tensor<4x1xi32>, tensor<f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @reduce_dim_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reduction dimension 2 is out of range for rank 2}}
  %0 = train.reduce_sum %x {dims = array<i64: 2>} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_dim_twice(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reduces dimension 1 twice}}
  %0 = train.reduce_mean %x {dims = array<i64: 1, -1>} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a result of shape [2] but got [3]}}
  %0 = train.reduce_sum %x {dims = array<i64: 1>} : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @reduce_keep_dims_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a result of shape [2, 1] but got [2]}}
  %0 = train.reduce_mean %x {dims = array<i64: 1>, keep_dims} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_max_element_type(%x: tensor<2x3xbf16>) {
  // expected-error @+1 {{expects x and result to have the same element type but got 'bf16' and 'f32'}}
  %0 = train.reduce_max %x {dims = array<i64: 1>} : tensor<2x3xbf16> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_max_dim_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reduction dimension -3 is out of range for rank 2}}
  %0 = train.reduce_max %x {dims = array<i64: -3>} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

func.func @pool_kernel_size(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects 'kernel' to have 2 entries but got 3}}
  %0 = train.max_pool2d NCHW %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_zero_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects every 'kernel' entry to be >= 1 but got 0}}
  %0 = train.avg_pool2d NCHW %x {kernel = array<i64: 0, 2>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_strides_size(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects 'strides' to have 2 entries but got 1}}
  %0 = train.max_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_negative_stride(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects every 'strides' entry to be >= 1 but got -2}}
  %0 = train.max_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: -2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_padding_size(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects 'padding' to have 4 entries but got 2}}
  %0 = train.avg_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_input_rank(%x: tensor<3x8x8xf32>) {
  // expected-error @+1 {{expects an input of rank 4 but got rank 3}}
  %0 = train.max_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<3x8x8xf32> -> tensor<3x4x4xf32>
  return
}

// -----

func.func @pool_element_type(%x: tensor<1x3x8x8xbf16>) {
  // expected-error @+1 {{expects input and output to have the same element type but got 'bf16' and 'f32'}}
  %0 = train.avg_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xbf16> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_padding_not_smaller_than_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects padding smaller than the kernel}}
  %0 = train.max_pool2d NCHW %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 2, 0>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x6xf32>
  return
}

// -----

func.func @pool_window_too_big(%x: tensor<1x3x2x8xf32>) {
  // expected-error @+1 {{window [3, 3] does not fit the padded input [1, 3, 2, 8]}}
  %0 = train.max_pool2d NCHW %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<1x3x2x8xf32> -> tensor<1x3x1x6xf32>
  return
}

// -----

func.func @pool_output_shape(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{expects an output of shape [1, 4, 4, 3] but got [1, 3, 4, 4]}}
  %0 = train.max_pool2d NHWC %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x8x8x3xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @max_pool_grad_shape(%g: tensor<1x3x3x3xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects an output of shape [1, 3, 4, 4] but got [1, 3, 3, 3]}}
  %0 = train.max_pool2d_grad NCHW %g, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x3x3xf32>, tensor<1x3x8x8xf32>
  return
}

// -----

func.func @max_pool_grad_element_type(%g: tensor<1x3x4x4xf16>, %x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects input and output to have the same element type but got 'f32' and 'f16'}}
  %0 = train.max_pool2d_grad NCHW %g, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x4x4xf16>, tensor<1x3x8x8xf32>
  return
}

// -----

func.func @avg_pool_grad_shape(%g: tensor<1x3x4x4xf32>) {
  // The result is the forward input: [1, 3, 6, 6] pools to [1, 3, 3, 3].
  // expected-error @+1 {{expects an output of shape [1, 3, 3, 3] but got [1, 3, 4, 4]}}
  %0 = train.avg_pool2d_grad NCHW %g {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @avg_pool_grad_rank(%g: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{expects an input of rank 4 but got rank 3}}
  %0 = train.avg_pool2d_grad NCHW %g {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x4x4xf32> -> tensor<3x8x8xf32>
  return
}

// -----

func.func @global_pool_rank(%x: tensor<2x3x8xf32>) {
  // expected-error @+1 {{expects an image of rank 4 but got rank 3}}
  %0 = train.global_avg_pool2d NCHW %x : tensor<2x3x8xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @global_pool_shape(%x: tensor<2x8x8x3xf32>) {
  // NHWC: the channels are the last dimension.
  // expected-error @+1 {{expects a pooled tensor of shape [2, 3] but got [2, 8]}}
  %0 = train.global_avg_pool2d NHWC %x : tensor<2x8x8x3xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @global_pool_grad_rank(%g: tensor<2x3xf32>) {
  // expected-error @+1 {{expects an image of rank 4 but got rank 2}}
  %0 = train.global_avg_pool2d_grad NCHW %g : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @global_pool_grad_shape(%g: tensor<2x4xf32>) {
  // expected-error @+1 {{expects a pooled tensor of shape [2, 3] but got [2, 4]}}
  %0 = train.global_avg_pool2d_grad NCHW %g : tensor<2x4xf32> -> tensor<2x3x8x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

func.func @embedding_element_type(%t: tensor<100x16xbf16>, %i: tensor<4xi32>) {
  // expected-error @+1 {{expects table and result to have the same element type but got 'bf16' and 'f32'}}
  %0 = train.embedding %t, %i : tensor<100x16xbf16>, tensor<4xi32> -> tensor<4x16xf32>
  return
}

// -----

func.func @embedding_table_rank(%t: tensor<100xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{expects a table of rank 2 but got rank 1}}
  %0 = train.embedding %t, %i : tensor<100xf32>, tensor<4xi32> -> tensor<4xf32>
  return
}

// -----

func.func @embedding_rows_shape(%t: tensor<100x16xf32>, %i: tensor<4x7xi32>) {
  // expected-error @+1 {{expects gathered rows of shape [4, 7, 16] but got [28, 16]}}
  %0 = train.embedding %t, %i : tensor<100x16xf32>, tensor<4x7xi32> -> tensor<28x16xf32>
  return
}

// -----

func.func @embedding_grad_table_rank(%g: tensor<4x16xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{expects a table of rank 2 but got rank 3}}
  %0 = train.embedding_grad %g, %i : tensor<4x16xf32>, tensor<4xi32> -> tensor<1x100x16xf32>
  return
}

// -----

func.func @embedding_grad_rows_shape(%g: tensor<4x8xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{expects gathered rows of shape [4, 16] but got [4, 8]}}
  %0 = train.embedding_grad %g, %i : tensor<4x8xf32>, tensor<4xi32> -> tensor<100x16xf32>
  return
}

// -----

func.func @conv1d_channels(%x: tensor<2x4x10xf32>, %f: tensor<6x3x3xf32>) {
  // expected-error @+1 {{an input has 4 channels and a filter 6 outputs of 3 channels (filter layout OIK): they do not fit 1 group(s)}}
  %0 = train.conv1d NCL %x, %f : tensor<2x4x10xf32>, tensor<6x3x3xf32> -> tensor<2x6x8xf32>
  return
}

// -----

func.func @conv1d_output(%x: tensor<2x10x4xf32>, %f: tensor<3x4x6xf32>) {
  // expected-error @+1 {{expects a result of shape [2, 8, 6] but got [2, 6, 8]}}
  %0 = train.conv1d NLC %x, %f : tensor<2x10x4xf32>, tensor<3x4x6xf32> -> tensor<2x6x8xf32>
  return
}

// -----

func.func @conv1d_window(%x: tensor<2x4x2xf32>, %f: tensor<6x4x3xf32>) {
  // expected-error @+1 {{a window of 3 taps does not fit the padded length 2}}
  %0 = train.conv1d NCL %x, %f {dilation = 1} : tensor<2x4x2xf32>, tensor<6x4x3xf32> -> tensor<2x6x1xf32>
  return
}

// -----

func.func @conv1d_padding(%x: tensor<2x4x8xf32>, %f: tensor<6x4x3xf32>) {
  // expected-error @+1 {{expects 'padding' to have 2 entries but got 1}}
  %0 = train.conv1d NCL %x, %f {padding = array<i64: 1>} : tensor<2x4x8xf32>, tensor<6x4x3xf32> -> tensor<2x6x8xf32>
  return
}

// -----

func.func @adaptive_pool_channels(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{expects the pooled image to keep N and C (2, 3) but got (2, 4)}}
  %0 = train.adaptive_avg_pool2d NCHW %x : tensor<2x3x8x8xf32> -> tensor<2x4x2x2xf32>
  return
}

// -----

func.func @adaptive_pool_rank(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{expects a pooled image of rank 4 but got rank 2}}
  %0 = train.adaptive_avg_pool2d NCHW %x : tensor<2x3x8x8xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @adaptive_pool_grad_type(%g: tensor<2x1x1x3xbf16>) {
  // expected-error @+1 {{expects grad and result to have the same element type but got 'bf16' and 'f32'}}
  %0 = train.adaptive_avg_pool2d_grad NHWC %g : tensor<2x1x1x3xbf16> -> tensor<2x4x4x3xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x6xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{gathers along axis 2 of a rank-2 tensor}}
  %0 = train.gather %x, %i {axis = 2} : tensor<4x6xf32>, tensor<3xi64> -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_negative_axis(%x: tensor<4x6xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{gathers along axis -1 of a rank-2 tensor}}
  %0 = train.gather %x, %i {axis = -1} : tensor<4x6xf32>, tensor<3xi64> -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_shape(%x: tensor<4x6x5xi32>, %i: tensor<2x3xi32>) {
  // expected-error @+1 {{expects gathered slices of shape [4, 2, 3, 5] but got [4, 6, 5]}}
  %0 = train.gather %x, %i {axis = 1} : tensor<4x6x5xi32>, tensor<2x3xi32> -> tensor<4x6x5xi32>
  return
}

// -----

func.func @gather_element_type(%x: tensor<4x6xbf16>, %i: tensor<3xi64>) {
  // expected-error @+1 {{all of {x, result} have same element type}}
  %0 = train.gather %x, %i {axis = 0} : tensor<4x6xbf16>, tensor<3xi64> -> tensor<3x6xf32>
  return
}

// -----

func.func @gather_grad_shape(%g: tensor<4x3xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{expects gathered slices of shape [3, 6] but got [4, 3]}}
  %0 = train.gather_grad %g, %i {axis = 0} : tensor<4x3xf32>, tensor<3xi64> -> tensor<4x6xf32>
  return
}

// -----

func.func @gather_grad_narrower(%g: tensor<4x3xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{expects an f32 result (never narrower than the f32 input) but got 'bf16'}}
  %0 = train.gather_grad %g, %i {axis = 1} : tensor<4x3xf32>, tensor<3xi64> -> tensor<4x6xbf16>
  return
}

// -----

func.func @group_norm_groups(%x: tensor<2x6x4x4xf32>, %s: tensor<6xf32>) {
  // expected-error @+1 {{cannot split 6 channels into 4 groups}}
  %y, %m, %r = train.group_norm %x, %s, %s {groups = 4} : tensor<2x6x4x4xf32>, tensor<6xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @group_norm_batch_dim(%x: tensor<2x6x4x4xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{expects feature_dim in [1, 4) (dimension 0 is the batch) but got 0}}
  %y, %m, %r = train.group_norm %x, %s, %s {groups = 2, feature_dim = 0} : tensor<2x6x4x4xf32>, tensor<2xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @group_norm_scale_shape(%x: tensor<2x4x4x6xbf16>, %s: tensor<4xf32>) {
  // expected-error @+1 {{expects per-channel tensors of shape [6] but got [4]}}
  %y, %m, %r = train.group_norm %x, %s, %s {groups = 3, feature_dim = 3} : tensor<2x4x4x6xbf16>, tensor<4xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @group_norm_grad_stats(%g: tensor<2x6x4xf32>, %s: tensor<6xf32>, %m: tensor<2x2xf32>) {
  // expected-error @+1 {{expects statistics of shape [2, 3] but got [2, 2]}}
  %dx, %ds, %db = train.group_norm_grad %g, %g, %s, %m, %m {groups = 3} : tensor<2x6x4xf32>, tensor<6xf32>, tensor<2x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects x and result to have the same element type but got 'f32' and 'f16'}}
  %0 = train.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot reshape 6 elements into 8}}
  %0 = train.reshape %x : tensor<2x3xf32> -> tensor<8xf32>
  return
}

// -----

func.func @transpose_element_type(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{expects x and result to have the same element type but got 'i32' and 'i64'}}
  %0 = train.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xi32> -> tensor<3x2xi64>
  return
}

// -----

func.func @transpose_permutation_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a permutation of 2 dimensions but got 3}}
  %0 = train.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_repeated_entry(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'permutation' is not a permutation of [0, 2)}}
  %0 = train.transpose %x {permutation = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_out_of_range_entry(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'permutation' is not a permutation of [0, 2)}}
  %0 = train.transpose %x {permutation = array<i64: 0, 2>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a result of shape [3, 2] but got [2, 3]}}
  %0 = train.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects x and result to have the same element type but got 'f32' and 'bf16'}}
  %0 = train.broadcast %x {dims = array<i64: 1>} : tensor<3xf32> -> tensor<2x3xbf16>
  return
}

// -----

func.func @broadcast_dims_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects one entry in 'dims' per operand dimension (1) but got 2}}
  %0 = train.broadcast %x {dims = array<i64: 0, 1>} : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_dims_not_increasing(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{expects 'dims' strictly increasing and below 3}}
  %0 = train.broadcast %x {dims = array<i64: 2, 1>} : tensor<3x3xf32> -> tensor<2x3x3xf32>
  return
}

// -----

func.func @broadcast_dims_out_of_range(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects 'dims' strictly increasing and below 2}}
  %0 = train.broadcast %x {dims = array<i64: 2>} : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{cannot broadcast dimension 0 of size 3 to size 2}}
  %0 = train.broadcast %x {dims = array<i64: 0>} : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects x and result to have the same element type but got 'f32' and 'i32'}}
  %0 = train.slice %x {offsets = array<i64: 0>} : tensor<4xf32> -> tensor<2xi32>
  return
}

// -----

func.func @slice_rank(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{expects a result of rank 2 but got rank 1}}
  %0 = train.slice %x {offsets = array<i64: 0, 0>} : tensor<4x4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @slice_offsets_size(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{expects 'offsets' to have 2 entries but got 1}}
  %0 = train.slice %x {offsets = array<i64: 0>} : tensor<4x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_negative_offset(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{expects every 'offsets' entry to be >= 0 but got -1}}
  %0 = train.slice %x {offsets = array<i64: 0, -1>} : tensor<4x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_strides_size(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{expects 'strides' to have 2 entries but got 3}}
  %0 = train.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1, 1>} : tensor<4x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_zero_stride(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{expects every 'strides' entry to be >= 1 but got 0}}
  %0 = train.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{slice of dimension 1 reads past its size 4}}
  %0 = train.slice %x {offsets = array<i64: 0, 3>} : tensor<4x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_strided_out_of_bounds(%x: tensor<4x4xf32>) {
  // Offset 1, three elements with stride 2: indices 1, 3, 5.
  // expected-error @+1 {{slice of dimension 0 reads past its size 4}}
  %0 = train.slice %x {offsets = array<i64: 1, 0>, strides = array<i64: 2, 1>} : tensor<4x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{expects at least one input}}
  %0 = "train.concat"() <{dim = 0 : i64}> : () -> tensor<0xf32>
  return
}

// -----

func.func @concat_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = train.concat %x, %x {dim = 2 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type(%x: tensor<2x3xf32>, %y: tensor<2x3xbf16>) {
  // expected-error @+1 {{expects inputs and result to have the same element type but got 'bf16' and 'f32'}}
  %0 = train.concat %x, %y {dim = 1 : i64} : tensor<2x3xf32>, tensor<2x3xbf16> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_rank(%x: tensor<2x3xf32>, %y: tensor<6xf32>) {
  // expected-error @+1 {{expects inputs of rank 2 but got rank 1}}
  %0 = train.concat %x, %y {dim = 1 : i64} : tensor<2x3xf32>, tensor<6xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_other_dim_mismatch(%x: tensor<2x3xf32>, %y: tensor<4x3xf32>) {
  // expected-error @+1 {{input #1 has size 4 in dimension 0 but the result has 2}}
  %0 = train.concat %x, %y {dim = 1 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_total(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{inputs add up to 7 along dimension 1 but the result has 6}}
  %0 = train.concat %x, %y {dim = -1 : i64} : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<2x6xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// constant and fill
//===----------------------------------------------------------------------===//

func.func @constant_not_a_tensor() {
  // expected-error @+1 {{expects a static-shape tensor value}}
  %0 = "train.constant"() <{value = dense<1.0> : vector<2xf32>}> : () -> tensor<2xf32>
  return
}

// -----

func.func @fill_fraction_into_int() {
  // expected-error @+1 {{cannot fill an 'i32' tensor with 1.5}}
  %0 = train.fill 1.5 : tensor<4xi32>
  return
}

// -----

func.func @fill_nan_into_int() {
  // expected-error @+1 {{cannot fill an 'i64' tensor with nan}}
  %0 = train.fill 0x7FF8000000000000 : tensor<4xi64>
  return
}

// -----

func.func @fill_i1() {
  // expected-error @+1 {{cannot fill an 'i1' tensor with 2}}
  %0 = train.fill 2.0 : tensor<4xi1>
  return
}

// -----

func.func @fill_f64() {
  // expected-error @+1 {{result #0 must be statically shaped tensor}}
  %0 = train.fill 1.0 : tensor<4xf64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

func.func @sgd_negative_lr(%p: tensor<8xf32>) {
  // expected-error-re @+1 {{expects 'lr' in [0{{.*}}, inf) but got -{{(0\.1|1\.0+e-01)$}}}}
  %0 = train.sgd %p, %p {lr = -0.1 : f64} : tensor<8xf32>
  return
}

// -----

func.func @sgd_nan_lr(%p: tensor<8xf32>) {
  // expected-error-re @+1 {{expects 'lr' in [0{{.*}}, inf) but got nan}}
  %0 = train.sgd %p, %p {lr = 0x7FF8000000000000 : f64} : tensor<8xf32>
  return
}

// -----

func.func @sgd_weight_decay(%p: tensor<8xf32>) {
  // expected-error-re @+1 {{expects 'weight_decay' in [0{{.*}}, inf) but got -1{{(\.0+e\+00)?$}}}}
  %0 = train.sgd %p, %p {lr = 0.1 : f64, weight_decay = -1.0 : f64} : tensor<8xf32>
  return
}

// -----

func.func @sgd_momentum_lr(%p: tensor<8xf32>) {
  // expected-error-re @+1 {{expects 'lr' in [0{{.*}}, inf) but got -1{{(\.0+e\+00)?$}}}}
  %0:2 = train.sgd_momentum %p, %p, %p {lr = -1.0 : f64, momentum = 0.9 : f64} : tensor<8xf32>
  return
}

// -----

func.func @sgd_momentum_momentum(%p: tensor<8xf32>) {
  // expected-error-re @+1 {{expects 'momentum' in [0{{.*}}, 1{{.*}}] but got 1.1{{0*(e\+00)?$}}}}
  %0:2 = train.sgd_momentum %p, %p, %p {lr = 0.1 : f64, momentum = 1.1 : f64} : tensor<8xf32>
  return
}

// -----

func.func @sgd_momentum_missing_momentum(%p: tensor<8xf32>) {
  // expected-error @+1 {{requires attribute 'momentum'}}
  %0:2 = train.sgd_momentum %p, %p, %p {lr = 0.1 : f64} : tensor<8xf32>
  return
}

// -----

func.func @sgd_momentum_dampening(%p: tensor<8xf32>) {
  // expected-error-re @+1 {{expects 'dampening' in [0{{.*}}, 1{{.*}}] but got -{{(0\.5|5\.0+e-01)$}}}}
  %0:2 = train.sgd_momentum %p, %p, %p {lr = 0.1 : f64, momentum = 0.9 : f64, dampening = -0.5 : f64} : tensor<8xf32>
  return
}

// -----

func.func @sgd_momentum_weight_decay(%p: tensor<8xf32>) {
  // expected-error-re @+1 {{expects 'weight_decay' in [0{{.*}}, inf) but got -{{(0\.001|1\.0+e-03)$}}}}
  %0:2 = train.sgd_momentum %p, %p, %p {lr = 0.1 : f64, momentum = 0.9 : f64, weight_decay = -1.0e-3 : f64} : tensor<8xf32>
  return
}

// -----

func.func @nesterov_zero_momentum(%p: tensor<8xf32>) {
  // expected-error @+1 {{nesterov momentum needs a positive momentum and zero dampening}}
  %0:2 = train.sgd_momentum %p, %p, %p {lr = 0.1 : f64, momentum = 0.0 : f64, nesterov} : tensor<8xf32>
  return
}

// -----

func.func @nesterov_dampening(%p: tensor<8xf32>) {
  // expected-error @+1 {{nesterov momentum needs a positive momentum and zero dampening}}
  %0:2 = train.sgd_momentum %p, %p, %p {lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.1 : f64, nesterov} : tensor<8xf32>
  return
}

// -----

func.func @sgd_momentum_types(%p: tensor<8xf32>, %b: tensor<8xbf16>) {
  // expected-error @+1 {{all of {param, grad, momentum_buffer, new_param, new_momentum_buffer} have same type}}
  %0:2 = "train.sgd_momentum"(%p, %p, %b) <{lr = 0.1 : f64, momentum = 0.9 : f64}> : (tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>) -> (tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @adam_lr(%p: tensor<8xf32>, %t: tensor<i32>) {
  // expected-error-re @+1 {{expects 'lr' in [0{{.*}}, inf) but got -{{(0\.001|1\.0+e-03)$}}}}
  %0:3 = train.adam %p, %p, %p, %p, %t {lr = -1.0e-3 : f64} : tensor<8xf32>, tensor<i32>
  return
}

// -----

func.func @adam_beta1_one(%p: tensor<8xf32>, %t: tensor<i32>) {
  // beta1 = 1 is excluded: the bias correction would divide by zero.
  // expected-error-re @+1 {{expects 'beta1' in [0{{.*}}, 1{{.*}}) but got 1{{(\.0+e\+00)?$}}}}
  %0:3 = train.adam %p, %p, %p, %p, %t {lr = 1.0e-3 : f64, beta1 = 1.0 : f64} : tensor<8xf32>, tensor<i32>
  return
}

// -----

func.func @adam_beta2(%p: tensor<8xf32>, %t: tensor<i32>) {
  // expected-error-re @+1 {{expects 'beta2' in [0{{.*}}, 1{{.*}}) but got -{{(0\.9|9\.0+e-01)$}}}}
  %0:3 = train.adam %p, %p, %p, %p, %t {lr = 1.0e-3 : f64, beta2 = -0.9 : f64} : tensor<8xf32>, tensor<i32>
  return
}

// -----

func.func @adam_weight_decay(%p: tensor<8xf32>, %t: tensor<i32>) {
  // expected-error-re @+1 {{expects 'weight_decay' in [0{{.*}}, inf) but got -{{(0\.01|1\.0+e-02)$}}}}
  %0:3 = train.adam %p, %p, %p, %p, %t {lr = 1.0e-3 : f64, weight_decay = -0.01 : f64} : tensor<8xf32>, tensor<i32>
  return
}

// -----

func.func @adam_epsilon(%p: tensor<8xf32>, %t: tensor<i32>) {
  // expected-error @+1 {{expects a positive epsilon}}
  %0:3 = train.adam %p, %p, %p, %p, %t {lr = 1.0e-3 : f64, epsilon = 0.0 : f64} : tensor<8xf32>, tensor<i32>
  return
}

// -----

func.func @adamw_beta2_one(%p: tensor<8xbf16>, %t: tensor<f32>) {
  // expected-error-re @+1 {{expects 'beta2' in [0{{.*}}, 1{{.*}}) but got 1{{(\.0+e\+00)?$}}}}
  %0:3 = train.adamw %p, %p, %p, %p, %t {lr = 1.0e-3 : f64, beta2 = 1.0 : f64} : tensor<8xbf16>, tensor<f32>
  return
}

// -----

func.func @adamw_epsilon(%p: tensor<8xbf16>, %t: tensor<f32>) {
  // expected-error @+1 {{expects a positive epsilon}}
  %0:3 = train.adamw %p, %p, %p, %p, %t {lr = 1.0e-3 : f64, epsilon = -1.0e-8 : f64} : tensor<8xbf16>, tensor<f32>
  return
}

// -----

func.func @adamw_weight_decay(%p: tensor<8xbf16>, %t: tensor<f32>) {
  // expected-error-re @+1 {{expects 'weight_decay' in [0{{.*}}, inf) but got -1{{(\.0+e\+00)?$}}}}
  %0:3 = train.adamw %p, %p, %p, %p, %t {lr = 1.0e-3 : f64, weight_decay = -1.0 : f64} : tensor<8xbf16>, tensor<f32>
  return
}

// -----

func.func @adam_types(%p: tensor<8xf32>, %m: tensor<8xbf16>, %t: tensor<i32>) {
  // expected-error @+1 {{all of {param, grad, exp_avg, exp_avg_sq, new_param, new_exp_avg, new_exp_avg_sq} have same type}}
  %0:3 = "train.adam"(%p, %p, %m, %m, %t) <{lr = 1.0e-3 : f64}> : (tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xbf16>, tensor<i32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// train.step, train.role and train.name
//===----------------------------------------------------------------------===//

// expected-error @+1 {{training step argument #1 has no 'train.role'}}
func.func @step_arg_without_role(%w: tensor<2xf32> {train.role = "param", train.name = "w"}, %x: tensor<2xf32>)
    -> (tensor<f32> {train.role = "loss"}, tensor<2xf32> {train.role = "param", train.name = "w"})
    attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %w : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{training step result #1 has no 'train.role'}}
func.func @step_result_without_role(%x: tensor<2xf32> {train.role = "input"})
    -> (tensor<f32> {train.role = "loss"}, tensor<2xf32>)
    attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %x : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{argument #0: unknown role "weight" (expected one of param, opt_state,}}
func.func @unknown_arg_role(%w: tensor<2xf32> {train.role = "weight"}) {
  return
}

// -----

// expected-error @+1 {{result #0: unknown role 3 : i64 (expected one of}}
func.func @unknown_result_role() -> (tensor<f32> {train.role = 3}) {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{argument #0: role 'loss' is only valid on results}}
func.func @result_role_on_argument(%l: tensor<f32> {train.role = "loss"}) {
  return
}

// -----

// expected-error @+1 {{argument #1: role 'output' is only valid on results}}
func.func @output_role_on_step_argument(%x: tensor<2xf32> {train.role = "input"}, %o: tensor<2xf32> {train.role = "output"})
    -> (tensor<f32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{result #1: role 'label' is only valid on arguments}}
func.func @argument_role_on_result(%y: tensor<4xi32> {train.role = "label"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xi32> {train.role = "label"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %y : tensor<f32>, tensor<4xi32>
}

// -----

// expected-error @+1 {{argument #0: 'train.name' must be a non-empty string}}
func.func @empty_name(%w: tensor<2xf32> {train.role = "param", train.name = ""}) {
  return
}

// -----

// expected-error @+1 {{result #0: 'train.name' must be a non-empty string}}
func.func @non_string_name() -> (tensor<f32> {train.role = "param", train.name = 1 : i64}) {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error-re @+1 {{argument #0: unknown train dialect attribute '{{"?}}train.foo{{"?}}'}}
func.func @unknown_arg_attr(%x: tensor<2xf32> {train.foo = 1 : i64}) {
  return
}

// -----

// expected-error-re @+1 {{result #0: unknown train dialect attribute '{{"?}}train.foo{{"?}}'}}
func.func @unknown_result_attr() -> (tensor<f32> {train.foo}) {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{persistent argument #0 (param) needs a non-empty 'train.name'}}
func.func @param_arg_without_name(%w: tensor<2xf32> {train.role = "param"})
    -> (tensor<f32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{persistent argument #0 (scaler_state) needs a non-empty 'train.name'}}
func.func @scaler_arg_without_name(%s: tensor<f32> {train.role = "scaler_state"})
    -> (tensor<f32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{persistent result #1 (opt_state) needs a non-empty 'train.name'}}
func.func @opt_state_result_without_name(%m: tensor<2xf32> {train.role = "opt_state", train.name = "m"})
    -> (tensor<f32> {train.role = "loss"}, tensor<2xf32> {train.role = "opt_state"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %m : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{persistent argument #0 (buffer) needs a non-empty 'train.name'}}
func.func @buffer_arg_without_name(%m: tensor<3xf32> {train.role = "buffer"})
    -> (tensor<f32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{buffer 'bn.running_mean' (argument #0) has no updated result (mark it 'train.frozen' if the step only reads it)}}
func.func @buffer_not_updated(%m: tensor<3xf32> {train.role = "buffer", train.name = "bn.running_mean"})
    -> (tensor<f32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{argument #0 is marked 'train.frozen' but is a param; only buffers can be frozen}}
func.func @frozen_param(%w: tensor<3xf32> {train.role = "param", train.name = "w", train.frozen})
    -> (tensor<f32> {train.role = "loss"}, tensor<3xf32> {train.role = "param", train.name = "w"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}

// -----

// expected-error @+1 {{result #1 updates the frozen buffer 'pos' (argument #0); drop 'train.frozen' or the result}}
func.func @frozen_buffer_updated(%p: tensor<3xf32> {train.role = "buffer", train.name = "pos", train.frozen})
    -> (tensor<f32> {train.role = "loss"}, tensor<3xf32> {train.role = "buffer", train.name = "pos"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %p : tensor<f32>, tensor<3xf32>
}

// -----

// expected-error @+1 {{argument #0: 'train.frozen' is a unit attribute of buffer arguments}}
func.func @frozen_with_a_value(%p: tensor<3xf32> {train.role = "buffer", train.name = "pos", train.frozen = 1 : i64})
    -> (tensor<f32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{result #0: 'train.frozen' is a unit attribute of buffer arguments}}
func.func @frozen_result() -> (tensor<f32> {train.role = "loss", train.frozen}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{two param arguments are named 'w'}}
func.func @duplicate_arg_names(%a: tensor<2xf32> {train.role = "param", train.name = "w"},
                               %b: tensor<2xf32> {train.role = "param", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"}, tensor<2xf32> {train.role = "param", train.name = "w"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %a : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{two opt_state results are named 'm'}}
func.func @duplicate_result_names(%m: tensor<2xf32> {train.role = "opt_state", train.name = "m"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<2xf32> {train.role = "opt_state", train.name = "m"},
        tensor<2xf32> {train.role = "opt_state", train.name = "m"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %m, %m : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// A param and an opt_state may share a name: they are told apart by role.
// expected-error @+1 {{param 'w' (argument #0) has no updated result}}
func.func @param_not_updated(%w: tensor<2xf32> {train.role = "param", train.name = "w"},
                             %m: tensor<2xf32> {train.role = "opt_state", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"}, tensor<2xf32> {train.role = "opt_state", train.name = "w"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %m : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{result #1 (param 'v') updates no argument}}
func.func @result_updates_nothing(%w: tensor<2xf32> {train.role = "param", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<2xf32> {train.role = "param", train.name = "v"},
        tensor<2xf32> {train.role = "param", train.name = "w"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %w, %w : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{result #1 (opt_state 'w') updates no argument}}
func.func @result_role_differs(%w: tensor<2xf32> {train.role = "param", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<2xf32> {train.role = "opt_state", train.name = "w"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  return %l, %w : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{param 'w' is 'tensor<2xf32>' as argument #0 but 'tensor<2xbf16>' as result #1}}
func.func @update_type_mismatch(%w: tensor<2xf32> {train.role = "param", train.name = "w"})
    -> (tensor<f32> {train.role = "loss"}, tensor<2xbf16> {train.role = "param", train.name = "w"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  %c = train.fill 0.0 : tensor<2xbf16>
  return %l, %c : tensor<f32>, tensor<2xbf16>
}

// -----

// expected-error @+1 {{training step has no result with role 'loss'}}
func.func @no_loss(%x: tensor<2xf32> {train.role = "input"})
    -> (tensor<2xf32> {train.role = "output"}) attributes {train.step} {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{training step has no result with role 'loss'}}
func.func @no_results() attributes {train.step} {
  return
}

// -----

// expected-error @+1 {{results #0 and #2 are both marked 'loss'}}
func.func @two_losses()
    -> (tensor<f32> {train.role = "loss"}, tensor<2xf32> {train.role = "output"}, tensor<f32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<f32>
  %o = train.fill 0.0 : tensor<2xf32>
  return %l, %o, %l : tensor<f32>, tensor<2xf32>, tensor<f32>
}

// -----

// expected-error @+1 {{the loss (result #0) must be a 0-d f32, bf16 or f16 tensor, got 'tensor<1xf32>'}}
func.func @non_scalar_loss() -> (tensor<1xf32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<1xf32>
  return %l : tensor<1xf32>
}

// -----

// expected-error @+1 {{the loss (result #0) must be a 0-d f32, bf16 or f16 tensor, got 'tensor<i32>'}}
func.func @integer_loss() -> (tensor<i32> {train.role = "loss"}) attributes {train.step} {
  %l = train.fill 0.0 : tensor<i32>
  return %l : tensor<i32>
}

// -----

// expected-error @+1 {{the loss (result #0) must be a 0-d f32, bf16 or f16 tensor, got 'f32'}}
func.func @non_tensor_loss(%l: f32 {train.role = "input"}) -> (f32 {train.role = "loss"}) attributes {train.step} {
  return %l : f32
}

// -----

// expected-error @+1 {{'train.step' must be a unit attribute}}
func.func @step_not_unit() -> (tensor<f32> {train.role = "loss"}) attributes {train.step = true} {
  %l = train.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'train.step' is only valid on functions}}
module attributes {train.step} {
}

// -----

func.func @step_on_op(%x: tensor<2xf32>) {
  // expected-error @+1 {{'train.step' is only valid on functions}}
  %0 = train.neg %x {train.step} : tensor<2xf32>
  return
}

// -----

func.func @role_on_op(%x: tensor<2xf32>) {
  // expected-error @+1 {{is only valid on function arguments and results}}
  %0 = train.neg %x {train.role = "param"} : tensor<2xf32>
  return
}

// -----

// expected-error @+1 {{is only valid on function arguments and results}}
func.func @name_on_function() attributes {train.name = "f"} {
  return
}

// -----

func.func @unknown_op_attribute(%x: tensor<2xf32>) {
  // expected-error-re @+1 {{unknown train dialect attribute '{{"?}}train.foo{{"?}}'}}
  %0 = train.neg %x {train.foo} : tensor<2xf32>
  return
}

// -----
// Regression cases: malformed inputs that once crashed or slipped through.

// A train.step function whose own attributes are malformed: func.func
// reports it; the role check must not crash first.
// expected-error @+1 {{expects argument attribute array to have the same number of elements as the number of function arguments}}
"func.func"() <{arg_attrs = [], function_type = (tensor<2xf32>) -> (tensor<f32>), res_attrs = [{train.role = "loss"}], sym_name = "f"}> ({
^bb0(%a: tensor<2xf32>):
  %0 = "train.fill"() <{value = 0.0 : f64}> : () -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) {train.step} : () -> ()

// -----

func.func @huge_dilation(%x: tensor<2x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) -> tensor<2x4x10x6xf32> {
  // expected-error @+1 {{does not fit the padded input}}
  %0 = train.conv2d NCHW %x, %f {dilations = array<i64: 9223372036854775807, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x10x6xf32>
  return %0 : tensor<2x4x10x6xf32>
}

// -----

func.func @huge_slice_offset(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{offset 9223372036854775807 of dimension 0 is past its size 4}}
  %0 = train.slice %x {offsets = array<i64: 9223372036854775807>} : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @huge_slice_stride(%x: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{slice of dimension 0 reads past its size 4}}
  %0 = train.slice %x {offsets = array<i64: 0>, strides = array<i64: 9223372036854775807>} : tensor<4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @empty_slice_past_end(%x: tensor<4xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{offset 7 of dimension 0 is past its size 4}}
  %0 = train.slice %x {offsets = array<i64: 7>} : tensor<4xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @fill_out_of_range() -> tensor<2xi32> {
  // expected-error @+1 {{cannot fill an 'i32' tensor with 1e+10}}
  %0 = train.fill 1.0e10 : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @nan_epsilon(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects a positive epsilon}}
  %y:3 = train.layer_norm %x, %s, %s {epsilon = 0x7FF8000000000000 : f64} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2xf32>
  return %y#0 : tensor<2x3xf32>
}

// -----

func.func @nan_momentum(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects momentum in [0, 1] but got nan}}
  %y:5 = train.batch_norm %x, %s, %s, %s, %s {momentum = 0x7FF8000000000000 : f64} : tensor<2x3xf32>, tensor<3xf32>
  return %y#0 : tensor<2x3xf32>
}

// -----

func.func @infinite_lr(%p: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{expects 'lr' in [0, inf) but got inf}}
  %0 = train.sgd %p, %p {lr = 0x7FF0000000000000 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @narrowing_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf16> {
  // expected-error @+1 {{expects an f32 result (never narrower than the f32 input) but got 'f16'}}
  %0 = train.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

func.func @embedding_grad_type(%g: tensor<5x16xbf16>, %i: tensor<5xi32>) -> tensor<100x16xf16> {
  // expected-error @+1 {{expects a result element type of 'bf16' or f32 (never narrower than the input) but got 'f16'}}
  %0 = train.embedding_grad %g, %i : tensor<5x16xbf16>, tensor<5xi32> -> tensor<100x16xf16>
  return %0 : tensor<100x16xf16>
}

// -----

func.func @global_pool_type(%x: tensor<2x3x4x4xf32>) -> tensor<2x3xf16> {
  // expected-error @+1 {{expects an f32 result (never narrower than the f32 input) but got 'f16'}}
  %0 = train.global_avg_pool2d NCHW %x : tensor<2x3x4x4xf32> -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

func.func @conv_data_type(%g: tensor<1x4x6x6xf32>, %f: tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf16> {
  // expected-error @+1 {{expects an f32 result (never narrower than the f32 input) but got 'f16'}}
  %0 = train.conv2d_backward_data NCHW %g, %f : tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x8x8xf16>
  return %0 : tensor<1x3x8x8xf16>
}

// -----

// expected-error @+1 {{the loss (result #0) must be a 0-d f32, bf16 or f16 tensor, got 'tensor<f64>'}}
func.func @f64_loss(%x: tensor<2xf32> {train.role = "input"}) -> (tensor<f64> {train.role = "loss"}) attributes {train.step} {
  %0 = arith.constant dense<0.0> : tensor<f64>
  return %0 : tensor<f64>
}

// -----

// expected-error @+1 {{argument #0 has unknown role "weight"}}
func.func @unknown_role_in_step(%x: tensor<2xf32> {train.role = "weight"}) -> (tensor<f32> {train.role = "loss"}) attributes {train.step} {
  %0 = train.fill 0.0 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @bn_one_value_per_feature(%x: tensor<1x3xf32>, %s: tensor<3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{normalizes 1 value per feature; the unbiased running variance needs at least 2}}
  %y:5 = train.batch_norm %x, %s, %s, %s, %s : tensor<1x3xf32>, tensor<3xf32>
  return %y#0 : tensor<1x3xf32>
}

// -----

// expected-error @+1 {{a training step needs a body of exactly one block}}
func.func private @declared_step(%x: tensor<2xf32> {train.role = "input"}) -> (tensor<f32> {train.role = "loss"}) attributes {train.step}

// -----

func.func @bn_zero_features(%x: tensor<4x0x2xf32>, %s: tensor<0xf32>) -> tensor<4x0x2xf32> {
  // expected-error @+1 {{normalizes zero features}}
  %y:5 = train.batch_norm %x, %s, %s, %s, %s : tensor<4x0x2xf32>, tensor<0xf32>
  return %y#0 : tensor<4x0x2xf32>
}

// -----

func.func @leaky_relu_nan_slope(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.leaky_relu' op needs a finite 'negative_slope', got nan}}
  %y = train.leaky_relu %x {negative_slope = 0x7FF8000000000000 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @elu_grad_infinite_alpha(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.elu_grad' op needs a finite 'alpha', got INF}}
  %y = train.elu_grad %g, %x {alpha = 0x7FF0000000000000 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @hardswish_grad_types(%g: tensor<4xf32>, %x: tensor<4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %y = "train.hardswish_grad"(%g, %x) : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @huber_zero_delta(%x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'train.huber_loss' op needs a finite, positive 'delta', got 0}}
  %l = train.huber_loss %x, %t {delta = 0.0 : f64} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @mse_target_shape(%x: tensor<4xf32>, %t: tensor<2x2xf32>) -> tensor<f32> {
  // expected-error @+1 {{all of {input, target} have same type}}
  %l = "train.mse_loss"(%x, %t) : (tensor<4xf32>, tensor<2x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @bce_grad_result(%x: tensor<4xf32>, %t: tensor<4xf32>, %g: tensor<f32>) -> tensor<4xbf16> {
  // expected-error @+1 {{all of {input, target, result} have same type}}
  %r = "train.bce_with_logits_loss_grad"(%x, %t, %g) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

func.func @smoothing_out_of_range(%x: tensor<4x3xf32>, %y: tensor<4xi64>) -> tensor<f32> {
  // expected-error @+1 {{'train.sparse_cross_entropy' op needs a label_smoothing in [0, 1], got 1.5}}
  %l = train.sparse_cross_entropy %x, %y {label_smoothing = 1.5 : f64} : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @conv_groups_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{needs 'groups' >= 1, got 0}}
  %0 = train.conv2d NCHW %x, %w {groups = 0 : i64} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_groups_do_not_divide(%x: tensor<1x6x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{input has 6 channels and filter 3 outputs: both must divide into 2 groups}}
  %0 = train.conv2d NCHW %x, %w {groups = 2 : i64} : tensor<1x6x8x8xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @conv_groups_filter_channels(%x: tensor<1x8x8x6xf32>, %w: tensor<3x3x6x6xf32>) {
  // expected-error @+1 {{input has 6 channels but filter expects 36 (filter layout HWIO, 6 per group of 6)}}
  %0 = train.conv2d NHWC %x, %w {groups = 6 : i64} : tensor<1x8x8x6xf32>, tensor<3x3x6x6xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_backward_filter_groups(%x: tensor<1x6x8x8xf32>, %dy: tensor<1x6x6x6xf32>) {
  // expected-error @+1 {{input has 6 channels but result expects 12 (filter layout OIHW, 2 per group of 6)}}
  %0 = train.conv2d_backward_filter NCHW %x, %dy {groups = 6 : i64} : tensor<1x6x8x8xf32>, tensor<1x6x6x6xf32> -> tensor<6x2x3x3xf32>
  return
}

// -----

func.func @rms_norm_epsilon(%x: tensor<4x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{expects a positive epsilon}}
  %y, %r = train.rms_norm %x, %s {epsilon = 0.0 : f64} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @rms_norm_scale_shape(%x: tensor<4x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{scale}}
  %y, %r = train.rms_norm %x, %s : tensor<4x8xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @rms_norm_grad_stats_shape(%dy: tensor<4x8xf32>, %s: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{inv_rms}}
  %dx, %ds = train.rms_norm_grad %dy, %dy, %s, %r : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @argmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = train.argmax %x {dim = 2 : i64} : tensor<4x8xf32> -> tensor<4xi64>
  return
}

// -----

func.func @argmax_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects a result of shape [4] but got [8]}}
  %0 = train.argmax %x {dim = 1 : i64} : tensor<4x8xf32> -> tensor<8xi64>
  return
}

// -----

func.func @argmax_empty(%x: tensor<4x0xf32>) {
  // expected-error @+1 {{takes the argmax of an empty dimension}}
  %0 = train.argmax %x {dim = 1 : i64} : tensor<4x0xf32> -> tensor<4xi64>
  return
}

// -----

func.func @logsumexp_narrow(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result}}
  %0 = train.logsumexp %x {dims = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xbf16>
  return
}

// -----

func.func @pad_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{needs 'low' and 'high' of 2 values (one per dimension)}}
  %0 = train.pad %x {low = array<i64: 1>, high = array<i64: 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{pads by -1 and 0 in dimension 1; padding must be >= 0 (crop with train.slice)}}
  %0 = train.pad %x {low = array<i64: 0, -1>, high = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a result of shape [3, 5] but got [3, 4]}}
  %0 = train.pad %x {low = array<i64: 1, 1>, high = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_int_value(%x: tensor<2xi32>) {
  // expected-error @+1 {{cannot pad an 'i32' tensor with 0.5}}
  %0 = train.pad %x {low = array<i64: 1>, high = array<i64: 0>, value = 0.5 : f64} : tensor<2xi32> -> tensor<3xi32>
  return
}

// -----

func.func @one_hot_shape(%i: tensor<4xi64>) {
  // expected-error @+1 {{expects a result of shape [4] + [classes], got [5, 3]}}
  %0 = train.one_hot %i : tensor<4xi64> -> tensor<5x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Attention and recurrent cells (SequenceOps.cpp)
//===----------------------------------------------------------------------===//

// -----

func.func @attention_rank(%q: tensor<8xf32>) {
  // expected-error @+1 {{expects a query of rank >= 2 ([..., Tq, D]) but got [8]}}
  %0 = train.attention %q, %q, %q : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @attention_ranks(%q: tensor<2x3x4xf32>, %k: tensor<5x4xf32>) {
  // expected-error @+1 {{expects query, key and value of one rank but got [2, 3, 4], [5, 4] and [5, 4]}}
  %0 = train.attention %q, %k, %k : tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x3x4xf32>, %k: tensor<3x5x4xf32>) {
  // expected-error @+1 {{expects query, key and value with the same batch dimensions but got [2, 3, 4], [3, 5, 4] and [3, 5, 4]}}
  %0 = train.attention %q, %k, %k : tensor<2x3x4xf32>, tensor<3x5x4xf32>, tensor<3x5x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_depth(%q: tensor<3x4xf32>, %k: tensor<5x6xf32>) {
  // expected-error @+1 {{expects key [5, 6] to have the query's depth 4}}
  %0 = train.attention %q, %k, %k : tensor<3x4xf32>, tensor<5x6xf32>, tensor<5x6xf32> -> tensor<3x6xf32>
  return
}

// -----

func.func @attention_value_length(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<6x2xf32>) {
  // expected-error @+1 {{expects value [6, 2] to have the key's length 5}}
  %0 = train.attention %q, %k, %v : tensor<3x4xf32>, tensor<5x4xf32>, tensor<6x2xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @attention_result(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x2xf32>) {
  // expected-error @+1 {{expects the result (or its gradient) of shape [3, 2] but got [3, 4]}}
  %0 = train.attention %q, %k, %v : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x2xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>) {
  // expected-error @+1 {{needs a finite positive scale, got -1}}
  %0 = train.attention %q, %k, %k {scale = -1.0 : f64} : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @attention_mask_type(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %m: tensor<5xi64>) {
  // expected-error @+1 {{expects an i1 or float mask but got 'i64'}}
  %0 = train.attention %q, %k, %k mask %m : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5xi64> -> tensor<3x4xf32>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>, %m: tensor<3x3xi1>) {
  // expected-error @+1 {{expects a mask that broadcasts to the scores [2, 3, 5] but got [3, 3]}}
  %0 = train.attention %q, %k, %k mask %m : tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<3x3xi1> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_grad_shape(%g: tensor<3x5xf32>, %q: tensor<3x4xf32>, %k: tensor<5x4xf32>) {
  // expected-error @+1 {{expects the result (or its gradient) of shape [3, 4] but got [3, 5]}}
  %0:3 = train.attention_grad %g, %q, %k, %k : tensor<3x5xf32>, tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>
  return
}

// -----

func.func @lstm_state_rank(%g: tensor<2x8xf32>, %c: tensor<2x2x2xf32>) {
  // expected-error @+1 {{expects a state of rank 2}}
  %0:2 = train.lstm_cell %g, %c : tensor<2x8xf32>, tensor<2x2x2xf32>
  return
}

// -----

func.func @lstm_gates(%g: tensor<2x6xf32>, %c: tensor<2x2xf32>) {
  // expected-error @+1 {{expects gates of shape [2, 8] but got [2, 6]}}
  %0:2 = train.lstm_cell %g, %c : tensor<2x6xf32>, tensor<2x2xf32>
  return
}

// -----

func.func @lstm_grad_gates(%d: tensor<2x2xf32>, %g: tensor<2x6xf32>) {
  // expected-error @+1 {{expects gates of shape [2, 8] but got [2, 6]}}
  %0:2 = train.lstm_cell_grad %d, %d, %g, %d, %d : tensor<2x6xf32>, tensor<2x2xf32>
  return
}

// -----

func.func @gru_gates(%g: tensor<2x8xf32>, %h: tensor<2x2xf32>) {
  // expected-error @+1 {{expects gates of shape [2, 6] but got [2, 8]}}
  %0 = train.gru_cell rzn %g, %g, %h : tensor<2x8xf32>, tensor<2x2xf32>
  return
}

// -----

func.func @gru_grad_gates(%d: tensor<3x2xf32>, %g: tensor<2x6xf32>) {
  // expected-error @+1 {{expects gates of shape [3, 6] but got [2, 6]}}
  %0:3 = train.gru_cell_grad zrn %d, %g, %g, %d : tensor<2x6xf32>, tensor<3x2xf32>
  return
}
