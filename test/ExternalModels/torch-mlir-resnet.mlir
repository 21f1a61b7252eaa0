// Real compiler IR (issue 18): the linalg-on-tensors and the TOSA that
// torch-mlir's fx importer writes for a small ResNet (two basic blocks, one
// downsampling with a 1x1 shortcut; Inputs/torch_mlir_resnet.py made them)
// through the upstream-only pipeline. Every convolution and the head's
// matmul read 16-bit operands; the output has no mp op or attribute left,
// and upstream's own mlir-opt (no mp dialect) parses and verifies it.
// RUN: mp-opt %S/Inputs/torch-mlir-resnet-linalg.mlir --mp-mixed-precision="policy=mixed_bfloat16 cast-op=arith summary=true" -o %t.linalg.mlir 2>&1 | FileCheck %s --check-prefix=LREPORT
// RUN: %upstream-mlir-opt %t.linalg.mlir | FileCheck %s --check-prefix=LINALG
// RUN: not grep -n "mp\." %t.linalg.mlir
// RUN: mp-opt %S/Inputs/torch-mlir-resnet-linalg.mlir --mp-mixed-precision="policy=mixed_float16 cast-op=arith" | %upstream-mlir-opt | FileCheck %s --check-prefix=LINALG16
// RUN: mp-opt %S/Inputs/torch-mlir-resnet-tosa.mlir --mp-mixed-precision="policy=mixed_bfloat16 cast-op=arith summary=true" -o %t.tosa.mlir 2>&1 | FileCheck %s --check-prefix=TREPORT
// RUN: %upstream-mlir-opt %t.tosa.mlir | FileCheck %s --check-prefix=TOSA
// RUN: not grep -n "mp\." %t.tosa.mlir
// RUN: mp-opt %S/Inputs/torch-mlir-resnet-tosa.mlir --mp-mixed-precision="policy=mixed_float16 cast-op=arith" | %upstream-mlir-opt | FileCheck %s --check-prefix=TOSA16

// The report counts the generics and their payloads, not only named ops.
// LREPORT: remark: converted {{[0-9]+}}/{{[0-9]+}} ops to bf16 {{.*}}; {{[0-9]+}} ops in all, {{[0-9]+}} undecided at the top level, {{[1-9][0-9]*}} inside nested regions
// TREPORT: remark: converted {{[0-9]+}}/{{[0-9]+}} ops to bf16

// LINALG-LABEL: func.func @resnet
// LINALG-COUNT-6: linalg.conv_2d_nchw_fchw {{.*}}ins(%{{.*}}, %{{.*}} : tensor<{{[0-9x]+}}xbf16>, tensor<{{[0-9x]+}}xbf16>) outs(%{{.*}} : tensor<{{[0-9x]+}}xf32>)
// LINALG: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x16xbf16>, tensor<16x10xbf16>) outs(%{{.*}} : tensor<2x10xf32>)
// LINALG: return %{{.*}} : tensor<2x10xf32>
// LINALG16-LABEL: func.func @resnet
// LINALG16-COUNT-6: linalg.conv_2d_nchw_fchw {{.*}}ins(%{{.*}}, %{{.*}} : tensor<{{[0-9x]+}}xf16>, tensor<{{[0-9x]+}}xf16>) outs(%{{.*}} : tensor<{{[0-9x]+}}xf32>)
// LINALG16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x16xf16>, tensor<16x10xf16>)

// TOSA-LABEL: func.func @resnet
// TOSA-COUNT-6: tosa.conv2d {{.*}}acc_type = f32{{.*}} : (tensor<{{[0-9x]+}}xbf16>, tensor<{{[0-9x]+}}xbf16>, tensor<{{[0-9x]+}}xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<{{[0-9x]+}}xbf16>
// TOSA: tosa.matmul {{.*}} : (tensor<1x2x16xbf16>, tensor<1x16x10xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2x10xf32>
// TOSA: return %{{.*}} : tensor<2x10xf32>
// TOSA16-LABEL: func.func @resnet
// TOSA16-COUNT-6: tosa.conv2d {{.*}}acc_type = f32{{.*}} : (tensor<{{[0-9x]+}}xf16>, tensor<{{[0-9x]+}}xf16>, tensor<{{[0-9x]+}}xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<{{[0-9x]+}}xf16>
