// residual=f32 keeps the residual stream's adds in f32 (rule "residual"),
// the default residual=low lets them follow their 16-bit producers; the
// gradient add of the backward pass counts too, sums that are not on a
// stream (no skip path: the three branches into ln1's gradient) do not.
// RUN: mp-opt %examples/transformer.mlir --mp-assign-precision="policy=mixed_bfloat16 residual=f32" | FileCheck %s --check-prefix=F32
// RUN: mp-opt %examples/transformer.mlir --mp-assign-precision="policy=mixed_bfloat16" | FileCheck %s --check-prefix=LOW
// RUN: not mp-opt %examples/transformer.mlir --mp-assign-precision="residual=fp32" 2>&1 | FileCheck %s --check-prefix=BAD

// h = x + attn, z = h + fc2, d_h = d_z + d_h_mlp:
// F32: train.add %arg0, %{{.*}} {mp.precision = {category = "infer", dtype = f32, rule = "residual", source = "default-list"}} : tensor<4x16x64xf32>
// F32-NEXT: train.layer_norm
// F32: train.add %{{.*}}, %{{.*}} {mp.precision = {category = "infer", dtype = f32, rule = "residual"
// F32: train.add %grad_x, %grad_x_6 {mp.precision = {category = "infer", dtype = f32, rule = "residual"
// F32: train.add %{{.*}}, %{{.*}} {mp.precision = {category = "infer", dtype = bf16, rule = "follows-low-input"
// LOW: train.add %arg0, %{{.*}} {mp.precision = {category = "infer", dtype = bf16
// LOW: train.add %grad_x, %grad_x_6 {mp.precision = {category = "infer", dtype = bf16
// BAD: unknown residual mode 'fp32' (expected low or f32)
