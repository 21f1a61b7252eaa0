// mp-bench-limit: every matmul and convolution kernel of a plan, alone on
// the cpu backend, and the FLOPs it counts for each (2 x multiply-adds:
// batch * M * N * K for a matmul; 2 * |output| * |filter| / O for a
// convolution and both its gradients, NCHW/OIHW or NHWC/HWIO), summed.
// The times are this machine's; the FLOPs are the shapes'.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/mlp.plan
// RUN: mp-bench-limit %t/mlp.plan --min-time 0 --max-reps 1 --threads 1 | FileCheck %s --check-prefix=MLP
// RUN: mp-compile %examples/cnn.mlir --mixed-precision="policy=float32" -o %t/cnn.plan
// RUN: mp-bench-limit %t/cnn.plan --min-time 0 --max-reps 1 | FileCheck %s --check-prefix=CNN
// RUN: not mp-bench-limit %t/missing.plan 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mp-bench-limit %t/mlp.plan --bogus 2>&1 | FileCheck %s --check-prefix=USAGE

// 32 x 784 x 256 and 32 x 256 x 10 forward, the two weight gradients, the
// hidden layer's input gradient (the data's is not computed).
// MLP: "threads": 1
// MLP: "op": "mp.matmul_epilogue", "shapes": "bf16[32, 784], bf16[784, 256], f32[256] -> bf16[32, 256]", "gflop": 0.0128, "ms": {{[0-9.]+}}, "gflops": {{[0-9.]+}}, "implementation": "oneDNN
// MLP: "op": "mp.matmul_epilogue", {{.*}}"gflop": 0.0002
// MLP: "op": "train.matmul", "shapes": "bf16[32, 256], bf16[32, 10] -> f32[256, 10]", "gflop": 0.0002
// MLP: "op": "train.matmul", "shapes": "bf16[32, 10], bf16[256, 10] -> bf16[32, 256]", "gflop": 0.0002
// MLP: "op": "train.matmul", "shapes": "bf16[32, 784], bf16[32, 256] -> f32[784, 256]", "gflop": 0.0128
// MLP: "gflop": 0.0262, "limit_ms": {{[0-9.]+}}}

// conv1 1 -> 32 on 28x28 (7.2 MFLOP), conv2 32 -> 64 on 14x14 (115.6
// MFLOP), each in the forward pass and as a filter gradient, conv2's data
// gradient; the head's matmuls. (mp-compile runs the example's
// convolutions on NHWC images with their OIHW filters, O first.)
// CNN: "op": "train.conv2d", {{.*}}"gflop": 0.0072
// CNN: "op": "train.conv2d", {{.*}}"gflop": 0.1156
// CNN: "op": "train.conv2d_backward_filter", {{.*}}"gflop": 0.1156
// CNN: "op": "train.conv2d_backward_data", {{.*}}"gflop": 0.1156
// CNN: "op": "train.conv2d_backward_filter", {{.*}}"gflop": 0.0072
// CNN: "gflop": 0.3613, "limit_ms"

// MISSING: mp-bench-limit: {{.*}}missing.plan
// USAGE: mp-bench-limit: usage: mp-bench-limit PLAN.mpplan {{.*}}'--bogus'
