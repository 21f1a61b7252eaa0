// The depthwise-separable CNN example (examples/separable_cnn.mlir: grouped
// convolutions with groups = channels, 1x1 pointwise ones, Adam) trains with
// mp-run under all three policies on the textures examples/separable_cnn.py
// makes, each to at least 90% test accuracy in two epochs; on the cpu
// backend every convolution, the depthwise ones included, runs on oneDNN.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %examples/separable_cnn.py data %t
// RUN: mp-compile %examples/separable_cnn.mlir -o %t/f32.plan
// RUN: mp-compile %examples/separable_cnn.mlir --eval -o %t/f32.eval.plan
// RUN: mp-compile %examples/separable_cnn.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/bf16.plan
// RUN: mp-compile %examples/separable_cnn.mlir --mixed-precision="policy=mixed_bfloat16" --eval -o %t/bf16.eval.plan
// RUN: mp-compile %examples/separable_cnn.mlir --mixed-precision="policy=mixed_float16" -o %t/f16.plan
// RUN: mp-compile %examples/separable_cnn.mlir --mixed-precision="policy=mixed_float16" --eval -o %t/f16.eval.plan
// RUN: mp-run %t/f32.plan --data %t/train.npz --epochs 2 --plain --log-every 64 --verbose --eval-plan %t/f32.eval.plan --eval-data %t/test.npz > %t/f32.log 2>&1
// RUN: FileCheck %s --check-prefixes=CHECK,CPU < %t/f32.log
// Every convolution (the depthwise ones included) on oneDNN, none on the
// reference fallback:
// RUN: grep "train.conv2d" %t/f32.log | not grep -v oneDNN
// RUN: mp-run %t/bf16.plan --data %t/train.npz --epochs 2 --plain --log-every 64 --eval-plan %t/bf16.eval.plan --eval-data %t/test.npz 2>&1 | FileCheck %s
// RUN: mp-run %t/f16.plan --data %t/train.npz --epochs 2 --plain --log-every 64 --eval-plan %t/f16.eval.plan --eval-data %t/test.npz 2>&1 | FileCheck %s

// CPU-DAG: train.conv2d oneDNN
// CPU-DAG: train.conv2d_backward_data oneDNN
// CPU-DAG: train.conv2d_backward_filter oneDNN
// CHECK: eval step 128: loss {{[0-9.]+}} accuracy {{9[0-9]\.[0-9]+|100\.00}}% (512 samples)
