// The three example training steps parse, verify and round-trip (custom and
// generic form).
// RUN: mp-opt %examples/mlp.mlir | mp-opt | FileCheck %s --check-prefix=MLP
// RUN: mp-opt %examples/mlp.mlir --mlir-print-op-generic | mp-opt | FileCheck %s --check-prefix=MLP
// RUN: mp-opt %examples/cnn.mlir | mp-opt | FileCheck %s --check-prefix=CNN
// RUN: mp-opt %examples/cnn.mlir --mlir-print-op-generic | mp-opt | FileCheck %s --check-prefix=CNN
// RUN: mp-opt %examples/transformer.mlir | mp-opt | FileCheck %s --check-prefix=TRANSFORMER
// RUN: mp-opt %examples/transformer.mlir --mlir-print-op-generic | mp-opt | FileCheck %s --check-prefix=TRANSFORMER

// MLP: func.func @train_step
// MLP-SAME: attributes {train.step}
// MLP: train.grad_seed
// MLP: train.sgd

// CNN: func.func @train_step
// CNN: train.conv2d
// CNN: train.batch_norm
// CNN: train.conv2d_backward_filter
// CNN: train.sgd_momentum

// TRANSFORMER: func.func @train_step
// TRANSFORMER: train.layer_norm
// TRANSFORMER: train.softmax
// TRANSFORMER: train.gelu
// TRANSFORMER: train.layer_norm_grad
// TRANSFORMER: train.adamw
