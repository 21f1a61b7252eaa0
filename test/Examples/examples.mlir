// The example training steps parse, verify and round-trip (custom and
// generic form).
// RUN: mp-opt %examples/mlp.mlir | mp-opt | FileCheck %s --check-prefix=MLP
// RUN: mp-opt %examples/mlp.mlir --mlir-print-op-generic | mp-opt | FileCheck %s --check-prefix=MLP
// RUN: mp-opt %examples/cnn.mlir | mp-opt | FileCheck %s --check-prefix=CNN
// RUN: mp-opt %examples/cnn.mlir --mlir-print-op-generic | mp-opt | FileCheck %s --check-prefix=CNN
// RUN: mp-opt %examples/transformer.mlir | mp-opt | FileCheck %s --check-prefix=TRANSFORMER
// RUN: mp-opt %examples/transformer.mlir --mlir-print-op-generic | mp-opt | FileCheck %s --check-prefix=TRANSFORMER
// RUN: mp-opt %examples/causal_lm.mlir | mp-opt | FileCheck %s --check-prefix=LM
// RUN: mp-opt %examples/causal_lm.mlir --mlir-print-op-generic | mp-opt | FileCheck %s --check-prefix=LM
// RUN: mp-opt %examples/separable_cnn.mlir | mp-opt | FileCheck %s --check-prefix=SEPARABLE
// The checked-in steps are generate.py's output.
// RUN: rm -rf %t.gen && mkdir -p %t.gen && %python %examples/generate.py %t.gen > /dev/null
// RUN: diff %t.gen/causal_lm.mlir %examples/causal_lm.mlir
// RUN: diff %t.gen/transformer.mlir %examples/transformer.mlir
// RUN: diff %t.gen/separable_cnn.mlir %examples/separable_cnn.mlir
// Several inputs at once (`mp-opt examples/*.mlir`), each printed back.
// RUN: mp-opt %examples/mlp.mlir %examples/cnn.mlir %examples/transformer.mlir | FileCheck %s --check-prefix=ALL
// RUN: not mp-opt %examples/mlp.mlir %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// ALL: train.sgd
// ALL: train.sgd_momentum
// ALL: train.adamw
// MISSING: cannot open input file {{.*}}missing.mlir

// MLP: func.func @train_step
// MLP-SAME: attributes {train.step}
// MLP: train.grad_seed
// MLP: train.sgd

// CNN: func.func @train_step
// CNN: train.conv2d
// CNN: train.batch_norm
// CNN: train.conv2d_backward_filter
// CNN: train.sgd_momentum

// LM: func.func @train_step
// LM-SAME: train.frozen
// LM: train.embedding
// LM: train.constant dense<{{.*}}> : tensor<32x32xf32>
// LM: train.dropout
// LM: train.softmax
// LM: train.dropout_grad
// LM: train.embedding_grad
// LM: train.clip_grad_norm
// LM: train.lr_schedule {{.*}} decay cosine
// LM: train.adamw {{.*}} lr %

// SEPARABLE: train.conv2d NCHW {{.*}}groups = 16 : i64{{.*}} : tensor<32x16x16x16xf32>, tensor<16x1x3x3xf32>
// SEPARABLE: train.conv2d NCHW {{.*}}groups = 32 : i64
// SEPARABLE: train.conv2d_backward_data NCHW {{.*}}groups = 32 : i64
// SEPARABLE: train.adam

// TRANSFORMER: func.func @train_step
// TRANSFORMER: train.layer_norm
// TRANSFORMER: train.softmax
// TRANSFORMER: train.gelu
// TRANSFORMER: train.layer_norm_grad
// TRANSFORMER: train.adamw
