// MPPlugin.so in upstream's own mlir-opt (docs/embedding.md): as a pass
// plugin it brings mp's passes and the pipeline, which bring the precision
// models of the upstream ops themselves, so torch-mlir's linalg converts
// exactly as in mp-opt; as a dialect plugin it adds train and mp, so a
// train-dialect step parses and converts exactly as in mp-opt.
// RUN: %upstream-mlir-opt --load-pass-plugin=%mp_plugin --pass-pipeline="builtin.module(mp-mixed-precision{policy=mixed_bfloat16 cast-op=arith})" %S/../../ExternalModels/Inputs/torch-mlir-resnet-linalg.mlir -o %t.linalg.plugin.mlir
// RUN: mp-opt %S/../../ExternalModels/Inputs/torch-mlir-resnet-linalg.mlir --mp-mixed-precision="policy=mixed_bfloat16 cast-op=arith" -o %t.linalg.mp-opt.mlir
// RUN: diff %t.linalg.plugin.mlir %t.linalg.mp-opt.mlir
// RUN: FileCheck %s --input-file=%t.linalg.plugin.mlir
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}xbf16>, tensor<{{[0-9x]+}}xbf16>) outs

// RUN: %upstream-mlir-opt --load-dialect-plugin=%mp_plugin --load-pass-plugin=%mp_plugin --pass-pipeline="builtin.module(mp-mixed-precision{policy=mixed_float16})" %examples/mlp.mlir -o %t.mlp.plugin.mlir
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_float16" -o %t.mlp.mp-opt.mlir
// RUN: diff %t.mlp.plugin.mlir %t.mlp.mp-opt.mlir
// RUN: FileCheck %s --check-prefix=STEP --input-file=%t.mlp.plugin.mlir
// STEP: mp.unscale_and_check

// Without the dialect plugin the train dialect is unknown to mlir-opt: its
// own error, naming it.
// RUN: not %upstream-mlir-opt --load-pass-plugin=%mp_plugin %examples/mlp.mlir 2>&1 | FileCheck %s --check-prefix=NODIALECT
// NODIALECT: error: Dialect `train' not found
