// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_bfloat16" | FileCheck %s --check-prefix=BF16
// RUN: mp-opt %s -split-input-file --mp-assign-precision="policy=mixed_float16" | FileCheck %s --check-prefix=F16

// Step 4 of the painting, "follows low input", under mixed_bfloat16 only.
// docs/precision.md: "in block order, an infer or clear op with a low input
// and no denied input is low" -- so a clear op right after a low op is
// painted by step 4 (not step 5), and an infer op behind it follows in
// turn, along a whole chain. (The header comment of PrecisionAnalysis.h
// still says "an infer op", which is what TensorFlow's
// AddInferToAllowIfFollowAllow does; there the infer ops below would stay
// fp32.) Under mixed_float16 nothing after the last allow op is low except
// clear ops next to it.

// BF16-LABEL: func.func @allow_clear_infer(
// BF16-NEXT: train.matmul {{.*}}rule = "allow"
// BF16-NEXT: train.relu {{.*}}mp.precision = {category = "clear", dtype = bf16, rule = "follows-low-input", source = "default-list"}
// BF16-NEXT: train.tanh {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "follows-low-input", source = "default-list"}
// F16-LABEL: func.func @allow_clear_infer(
// F16-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.relu {{.*}}mp.precision = {category = "clear", dtype = f16, rule = "clear-next-to-low", source = "default-list"}
// F16-NEXT: train.tanh {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}
func.func @allow_clear_infer(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.relu %0 : tensor<4x4xf32>
  %2 = train.tanh %1 : tensor<4x4xf32>
  return
}

// -----

// A chain, and a denied input that stops it: the add reading a deny op is
// denied, and so is everything after it.
// BF16-LABEL: func.func @allow_clear_clear_infer_clear(
// BF16-NEXT: train.matmul {{.*}}rule = "allow"
// BF16-NEXT: train.slice {{.*}}mp.precision = {category = "clear", dtype = bf16, rule = "follows-low-input", source = "default-list"}
// BF16-NEXT: train.concat {{.*}}mp.precision = {category = "clear", dtype = bf16, rule = "follows-low-input", source = "default-list"}
// BF16-NEXT: train.add {{.*}}mp.precision = {category = "infer", dtype = bf16, rule = "follows-low-input", source = "default-list"}
// BF16-NEXT: train.neg {{.*}}mp.precision = {category = "clear", dtype = bf16, rule = "follows-low-input", source = "default-list"}
// BF16-NEXT: train.log {{.*}}rule = "deny"
// BF16-NEXT: train.sub {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// BF16-NEXT: train.sigmoid {{.*}}mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}
// F16-LABEL: func.func @allow_clear_clear_infer_clear(
// F16-NEXT: train.matmul {{.*}}rule = "allow"
// F16-NEXT: train.slice {{.*}}dtype = f16, rule = "clear-next-to-low"
// F16-NEXT: train.concat {{.*}}dtype = f16, rule = "clear-next-to-low"
// F16-NEXT: train.add {{.*}}dtype = f32, rule = "no-low-neighbour"
// F16-NEXT: train.neg {{.*}}dtype = f32, rule = "no-low-neighbour"
func.func @allow_clear_clear_infer_clear(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %b, %a : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = train.slice %0 {offsets = array<i64: 0, 0>} : tensor<4x8xf32> -> tensor<4x4xf32>
  %2 = train.concat %1, %1 {dim = 0 : i64} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %3 = train.add %2, %2 : tensor<8x4xf32>
  %4 = train.neg %3 : tensor<8x4xf32>
  %5 = train.log %4 : tensor<8x4xf32>
  %6 = train.sub %4, %5 : tensor<8x4xf32>
  %7 = train.sigmoid %6 : tensor<8x4xf32>
  return
}
