// The whole pipeline on the three examples under every policy. Loss
// scaling is off here (float32 and mixed_bfloat16 by default,
// mixed_float16 with loss-scale=none); the default mixed_float16 pipeline,
// with dynamic loss scaling, is pipeline-loss-scaling.mlir.
//
// For every example and policy:
//   - the function signature is unchanged (params and results keep f32);
//   - no loss-scaling ops or scaler state;
//   - under the mixed policies every train.matmul / conv2d /
//     conv2d_backward_* and mp.matmul_epilogue (mp-fuse-epilogues, on by
//     default) reads two 16-bit operands (none reads an f32 one; an
//     epilogue's bias may be f32),
//     softmax, log_softmax, the loss gradient, grad_seed and the optimizer
//     ops see no 16-bit value, and the loss, reduce_sum / reduce_mean and
//     global_avg_pool2d produce f32 (they may read a 16-bit operand
//     directly and widen it as they accumulate: mp-fold-casts);
//   - batch_norm / layer_norm (and their gradients) keep f32 statistics;
//   - running the pipeline again on its output changes nothing.
// Under float32 nothing is converted: no casts, no 16-bit type. The
// gradient check of steps without loss scaling is off here
// (check-finite=false; guard-finite.mlir tests it).

// ===== mlp =====
// RUN: mp-opt %examples/mlp.mlir | grep 'func.func' | sed -e 's/ attributes.*//' > %t.mlp.sig
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=float32 summary=true check-finite=false" -o %t.mlp.fp32.mlir 2>&1 | FileCheck %s --check-prefix=MLP-FP32-REMARK
// RUN: grep 'func.func' %t.mlp.fp32.mlir | sed -e 's/ attributes.*//' | diff %t.mlp.sig -
// RUN: FileCheck %s --check-prefix=FP32 --implicit-check-not=mp.cast --implicit-check-not=f16 --implicit-check-not=scaler_state < %t.mlp.fp32.mlir
// RUN: mp-opt %t.mlp.fp32.mlir --mp-mixed-precision="policy=float32 check-finite=false" | diff %t.mlp.fp32.mlir -
// MLP-FP32-REMARK: remark: float32 policy: nothing converted
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16 summary=true check-finite=false" -o %t.mlp.bf16.mlir 2>&1 | FileCheck %s --check-prefix=BF16-REMARK
// RUN: grep 'func.func' %t.mlp.bf16.mlir | sed -e 's/ attributes.*//' | diff %t.mlp.sig -
// RUN: FileCheck %s --check-prefix=BF16 < %t.mlp.bf16.mlir
// RUN: not grep -E 'mp\.(scale|unscale_and_check|select|update_scale)|scaler_state' %t.mlp.bf16.mlir
// RUN: grep -cE '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : tensor<[0-9x]+xbf16>, tensor<[0-9x]+xbf16>(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.mlp.bf16.mlir | FileCheck %s --check-prefix=MLP-NALLOW
// RUN: not grep -E '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : (tensor<[0-9x]+xf32>, tensor<[0-9x]+x[a-z0-9]+>|tensor<[0-9x]+x[a-z0-9]+>, tensor<[0-9x]+xf32>)(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.mlp.bf16.mlir
// RUN: not grep -E 'train\.(softmax|softmax_grad|log_softmax|log_softmax_grad|sparse_cross_entropy_grad|grad_seed|sgd|sgd_momentum|adam|adamw) .*f16>' %t.mlp.bf16.mlir
// RUN: not grep -E 'train\.(sparse_cross_entropy|reduce_sum|reduce_mean|global_avg_pool2d) .*-> tensor<[0-9x]*b?f16>' %t.mlp.bf16.mlir
// RUN: mp-opt %t.mlp.bf16.mlir --mp-mixed-precision="policy=mixed_bfloat16 check-finite=false" | diff %t.mlp.bf16.mlir -
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_float16 loss-scale=none summary=true check-finite=false" -o %t.mlp.f16.mlir 2>&1 | FileCheck %s --check-prefix=F16-REMARK
// RUN: grep 'func.func' %t.mlp.f16.mlir | sed -e 's/ attributes.*//' | diff %t.mlp.sig -
// RUN: FileCheck %s --check-prefix=F16 < %t.mlp.f16.mlir
// RUN: not grep -E 'mp\.(scale|unscale_and_check|select|update_scale)|scaler_state' %t.mlp.f16.mlir
// RUN: grep -cE '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : tensor<[0-9x]+xf16>, tensor<[0-9x]+xf16>(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.mlp.f16.mlir | FileCheck %s --check-prefix=MLP-NALLOW
// RUN: not grep -E '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : (tensor<[0-9x]+xf32>, tensor<[0-9x]+x[a-z0-9]+>|tensor<[0-9x]+x[a-z0-9]+>, tensor<[0-9x]+xf32>)(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.mlp.f16.mlir
// RUN: not grep -E 'train\.(softmax|softmax_grad|log_softmax|log_softmax_grad|sparse_cross_entropy_grad|grad_seed|sgd|sgd_momentum|adam|adamw) .*f16>' %t.mlp.f16.mlir
// RUN: not grep -E 'train\.(sparse_cross_entropy|reduce_sum|reduce_mean|global_avg_pool2d) .*-> tensor<[0-9x]*b?f16>' %t.mlp.f16.mlir
// RUN: mp-opt %t.mlp.f16.mlir --mp-mixed-precision="policy=mixed_float16 loss-scale=none check-finite=false" | diff %t.mlp.f16.mlir -
// MLP-NALLOW: {{^}}5{{$}}

// ===== cnn =====
// RUN: mp-opt %examples/cnn.mlir | grep 'func.func' | sed -e 's/ attributes.*//' > %t.cnn.sig
// RUN: mp-opt %examples/cnn.mlir --mp-mixed-precision="policy=float32 summary=true check-finite=false" -o %t.cnn.fp32.mlir 2>&1 | FileCheck %s --check-prefix=CNN-FP32-REMARK
// RUN: grep 'func.func' %t.cnn.fp32.mlir | sed -e 's/ attributes.*//' | diff %t.cnn.sig -
// RUN: FileCheck %s --check-prefix=FP32 --implicit-check-not=mp.cast --implicit-check-not=f16 --implicit-check-not=scaler_state < %t.cnn.fp32.mlir
// RUN: mp-opt %t.cnn.fp32.mlir --mp-mixed-precision="policy=float32 check-finite=false" | diff %t.cnn.fp32.mlir -
// CNN-FP32-REMARK: remark: float32 policy: nothing converted
// RUN: mp-opt %examples/cnn.mlir --mp-mixed-precision="policy=mixed_bfloat16 summary=true check-finite=false" -o %t.cnn.bf16.mlir 2>&1 | FileCheck %s --check-prefix=BF16-REMARK
// RUN: grep 'func.func' %t.cnn.bf16.mlir | sed -e 's/ attributes.*//' | diff %t.cnn.sig -
// RUN: FileCheck %s --check-prefixes=BF16,CNN < %t.cnn.bf16.mlir
// RUN: not grep -E 'mp\.(scale|unscale_and_check|select|update_scale)|scaler_state' %t.cnn.bf16.mlir
// RUN: grep -cE '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : tensor<[0-9x]+xbf16>, tensor<[0-9x]+xbf16>(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.cnn.bf16.mlir | FileCheck %s --check-prefix=CNN-NALLOW
// RUN: not grep -E '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : (tensor<[0-9x]+xf32>, tensor<[0-9x]+x[a-z0-9]+>|tensor<[0-9x]+x[a-z0-9]+>, tensor<[0-9x]+xf32>)(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.cnn.bf16.mlir
// RUN: not grep -E 'train\.(softmax|softmax_grad|log_softmax|log_softmax_grad|sparse_cross_entropy_grad|grad_seed|sgd|sgd_momentum|adam|adamw) .*f16>' %t.cnn.bf16.mlir
// RUN: not grep -E 'train\.(sparse_cross_entropy|reduce_sum|reduce_mean|global_avg_pool2d) .*-> tensor<[0-9x]*b?f16>' %t.cnn.bf16.mlir
// RUN: mp-opt %t.cnn.bf16.mlir --mp-mixed-precision="policy=mixed_bfloat16 check-finite=false" | diff %t.cnn.bf16.mlir -
// RUN: mp-opt %examples/cnn.mlir --mp-mixed-precision="policy=mixed_float16 loss-scale=none summary=true check-finite=false" -o %t.cnn.f16.mlir 2>&1 | FileCheck %s --check-prefix=F16-REMARK
// RUN: grep 'func.func' %t.cnn.f16.mlir | sed -e 's/ attributes.*//' | diff %t.cnn.sig -
// RUN: FileCheck %s --check-prefixes=F16,CNN < %t.cnn.f16.mlir
// RUN: not grep -E 'mp\.(scale|unscale_and_check|select|update_scale)|scaler_state' %t.cnn.f16.mlir
// RUN: grep -cE '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : tensor<[0-9x]+xf16>, tensor<[0-9x]+xf16>(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.cnn.f16.mlir | FileCheck %s --check-prefix=CNN-NALLOW
// RUN: not grep -E '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : (tensor<[0-9x]+xf32>, tensor<[0-9x]+x[a-z0-9]+>|tensor<[0-9x]+x[a-z0-9]+>, tensor<[0-9x]+xf32>)(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.cnn.f16.mlir
// RUN: not grep -E 'train\.(softmax|softmax_grad|log_softmax|log_softmax_grad|sparse_cross_entropy_grad|grad_seed|sgd|sgd_momentum|adam|adamw) .*f16>' %t.cnn.f16.mlir
// RUN: not grep -E 'train\.(sparse_cross_entropy|reduce_sum|reduce_mean|global_avg_pool2d) .*-> tensor<[0-9x]*b?f16>' %t.cnn.f16.mlir
// RUN: mp-opt %t.cnn.f16.mlir --mp-mixed-precision="policy=mixed_float16 loss-scale=none check-finite=false" | diff %t.cnn.f16.mlir -
// CNN-NALLOW: {{^}}8{{$}}

// ===== transformer =====
// RUN: mp-opt %examples/transformer.mlir | grep 'func.func' | sed -e 's/ attributes.*//' > %t.transformer.sig
// RUN: mp-opt %examples/transformer.mlir --mp-mixed-precision="policy=float32 summary=true check-finite=false" -o %t.transformer.fp32.mlir 2>&1 | FileCheck %s --check-prefix=TF-FP32-REMARK
// RUN: grep 'func.func' %t.transformer.fp32.mlir | sed -e 's/ attributes.*//' | diff %t.transformer.sig -
// RUN: FileCheck %s --check-prefix=FP32 --implicit-check-not=mp.cast --implicit-check-not=f16 --implicit-check-not=scaler_state < %t.transformer.fp32.mlir
// RUN: mp-opt %t.transformer.fp32.mlir --mp-mixed-precision="policy=float32 check-finite=false" | diff %t.transformer.fp32.mlir -
// TF-FP32-REMARK: remark: float32 policy: nothing converted
// RUN: mp-opt %examples/transformer.mlir --mp-mixed-precision="policy=mixed_bfloat16 summary=true check-finite=false" -o %t.transformer.bf16.mlir 2>&1 | FileCheck %s --check-prefix=BF16-REMARK
// RUN: grep 'func.func' %t.transformer.bf16.mlir | sed -e 's/ attributes.*//' | diff %t.transformer.sig -
// RUN: FileCheck %s --check-prefixes=BF16,TF < %t.transformer.bf16.mlir
// RUN: not grep -E 'mp\.(scale|unscale_and_check|select|update_scale)|scaler_state' %t.transformer.bf16.mlir
// RUN: grep -cE '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : tensor<[0-9x]+xbf16>, tensor<[0-9x]+xbf16>(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.transformer.bf16.mlir | FileCheck %s --check-prefix=TF-NALLOW
// RUN: not grep -E '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : (tensor<[0-9x]+xf32>, tensor<[0-9x]+x[a-z0-9]+>|tensor<[0-9x]+x[a-z0-9]+>, tensor<[0-9x]+xf32>)(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.transformer.bf16.mlir
// RUN: not grep -E 'train\.(softmax|softmax_grad|log_softmax|log_softmax_grad|sparse_cross_entropy_grad|grad_seed|sgd|sgd_momentum|adam|adamw) .*f16>' %t.transformer.bf16.mlir
// RUN: not grep -E 'train\.(sparse_cross_entropy|reduce_sum|reduce_mean|global_avg_pool2d) .*-> tensor<[0-9x]*b?f16>' %t.transformer.bf16.mlir
// RUN: mp-opt %t.transformer.bf16.mlir --mp-mixed-precision="policy=mixed_bfloat16 check-finite=false" | diff %t.transformer.bf16.mlir -
// RUN: mp-opt %examples/transformer.mlir --mp-mixed-precision="policy=mixed_float16 loss-scale=none summary=true check-finite=false" -o %t.transformer.f16.mlir 2>&1 | FileCheck %s --check-prefix=F16-REMARK
// RUN: grep 'func.func' %t.transformer.f16.mlir | sed -e 's/ attributes.*//' | diff %t.transformer.sig -
// RUN: FileCheck %s --check-prefixes=F16,TF < %t.transformer.f16.mlir
// RUN: not grep -E 'mp\.(scale|unscale_and_check|select|update_scale)|scaler_state' %t.transformer.f16.mlir
// RUN: grep -cE '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : tensor<[0-9x]+xf16>, tensor<[0-9x]+xf16>(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.transformer.f16.mlir | FileCheck %s --check-prefix=TF-NALLOW
// RUN: not grep -E '(train\.(matmul|conv2d[a-z_]*)|mp\.matmul_epilogue) .* : (tensor<[0-9x]+xf32>, tensor<[0-9x]+x[a-z0-9]+>|tensor<[0-9x]+x[a-z0-9]+>, tensor<[0-9x]+xf32>)(, tensor<[0-9]+x[a-z0-9]+>)? -> ' %t.transformer.f16.mlir
// RUN: not grep -E 'train\.(softmax|softmax_grad|log_softmax|log_softmax_grad|sparse_cross_entropy_grad|grad_seed|sgd|sgd_momentum|adam|adamw) .*f16>' %t.transformer.f16.mlir
// RUN: not grep -E 'train\.(sparse_cross_entropy|reduce_sum|reduce_mean|global_avg_pool2d) .*-> tensor<[0-9x]*b?f16>' %t.transformer.f16.mlir
// RUN: mp-opt %t.transformer.f16.mlir --mp-mixed-precision="policy=mixed_float16 loss-scale=none check-finite=false" | diff %t.transformer.f16.mlir -
// TF-NALLOW: {{^}}27{{$}}

// FP32: func.func @train_step(
// FP32-SAME: attributes {mp.policy = "float32", train.step}
// BF16-REMARK: remark: converted {{[1-9][0-9]*}}/{{[0-9]+}} ops to bf16 with {{[1-9][0-9]*}} casts
// F16-REMARK: remark: converted {{[1-9][0-9]*}}/{{[0-9]+}} ops to f16 with {{[1-9][0-9]*}} casts
// BF16: func.func @train_step(
// BF16-SAME: attributes {mp.policy = "mixed_bfloat16", train.step}
// F16: func.func @train_step(
// F16-SAME: attributes {mp.policy = "mixed_float16", train.step}

// Normalization statistics (and scale/offset) stay f32; the type after the
// activation's is the per-feature one.
// CNN: train.batch_norm {{.*}}: tensor<16x32x28x28x{{[a-z0-9]+}}>, tensor<32xf32>{{$}}
// CNN: train.batch_norm {{.*}}: tensor<16x64x14x14x{{[a-z0-9]+}}>, tensor<64xf32>{{$}}
// CNN: train.batch_norm_grad {{.*}}: tensor<16x64x14x14x{{[a-z0-9]+}}>, tensor<64xf32>{{$}}
// CNN: train.batch_norm_grad {{.*}}: tensor<16x32x28x28x{{[a-z0-9]+}}>, tensor<32xf32>{{$}}
// TF-COUNT-3: train.layer_norm {{.*}}: tensor<4x16x64x{{[a-z0-9]+}}>, tensor<64xf32> -> tensor<4x16xf32>{{$}}
// TF-COUNT-3: train.layer_norm_grad {{.*}}: tensor<4x16x64x{{[a-z0-9]+}}>, tensor<64xf32>, tensor<4x16xf32>{{$}}
