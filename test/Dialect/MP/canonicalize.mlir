// RUN: mp-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: mp-opt %s -cse -split-input-file | FileCheck %s --check-prefix=CSE

// mp.cast folding: a cast to the same type folds away, and
// cast(cast(x : A -> B) : B -> C) becomes cast(x : A -> C) only when A -> B
// is exact (bf16 -> f32, f16 -> f32), never across a rounding step.

// CHECK-LABEL: func.func @identity_cast(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xf32>)
// CHECK-NOT: mp.cast
// CHECK: return [[X]] : tensor<4xf32>
func.func @identity_cast(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Narrowing then widening rounds to bf16: both casts stay.
// CHECK-LABEL: func.func @f32_bf16_f32_kept(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: [[N:%[^ ]+]] = mp.cast [[X]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: [[W:%[^ ]+]] = mp.cast [[N]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT: return [[W]] : tensor<4xf32>
func.func @f32_bf16_f32_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xbf16>
  %1 = mp.cast %0 : tensor<4xbf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Same for f16.
// CHECK-LABEL: func.func @f32_f16_f32_kept(
// CHECK-SAME: [[X:%[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: [[N:%[^ ]+]] = mp.cast [[X]] : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK-NEXT: [[W:%[^ ]+]] = mp.cast [[N]] : tensor<2x3xf16> to tensor<2x3xf32>
// CHECK-NEXT: return [[W]] : tensor<2x3xf32>
func.func @f32_f16_f32_kept(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mp.cast %x : tensor<2x3xf32> to tensor<2x3xf16>
  %1 = mp.cast %0 : tensor<2x3xf16> to tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Widening then narrowing back is the identity.
// CHECK-LABEL: func.func @bf16_f32_bf16_folds(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xbf16>)
// CHECK-NOT: mp.cast
// CHECK: return [[X]] : tensor<4xbf16>
func.func @bf16_f32_bf16_folds(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = mp.cast %x : tensor<4xbf16> to tensor<4xf32>
  %1 = mp.cast %0 : tensor<4xf32> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @f16_f32_f16_folds(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xf16>)
// CHECK-NOT: mp.cast
// CHECK: return [[X]] : tensor<4xf16>
func.func @f16_f32_f16_folds(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = mp.cast %0 : tensor<4xf32> to tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// f16 -> f32 is exact, so the pair becomes one f16 -> bf16 cast.
// CHECK-LABEL: func.func @f16_f32_bf16_to_one_cast(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xf16>)
// CHECK-NEXT: [[C:%[^ ]+]] = mp.cast [[X]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT: return [[C]] : tensor<4xbf16>
func.func @f16_f32_bf16_to_one_cast(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = mp.cast %0 : tensor<4xf32> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// bf16 -> f16 is not exact (f16 has less range), so nothing folds.
// CHECK-LABEL: func.func @bf16_f16_f32_kept(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xbf16>)
// CHECK-NEXT: [[H:%[^ ]+]] = mp.cast [[X]] : tensor<4xbf16> to tensor<4xf16>
// CHECK-NEXT: [[W:%[^ ]+]] = mp.cast [[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: return [[W]] : tensor<4xf32>
func.func @bf16_f16_f32_kept(%x: tensor<4xbf16>) -> tensor<4xf32> {
  %0 = mp.cast %x : tensor<4xbf16> to tensor<4xf16>
  %1 = mp.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// f16 -> bf16 is not exact either (bf16 has fewer mantissa bits).
// CHECK-LABEL: func.func @f16_bf16_f32_kept(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xf16>)
// CHECK-NEXT: [[B:%[^ ]+]] = mp.cast [[X]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT: [[W:%[^ ]+]] = mp.cast [[B]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT: return [[W]] : tensor<4xf32>
func.func @f16_bf16_f32_kept(%x: tensor<4xf16>) -> tensor<4xf32> {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xbf16>
  %1 = mp.cast %0 : tensor<4xbf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// The widened value is used three times: it stays for its own use, the
// round trip folds to the argument and the other narrowing reads x directly.
// CHECK-LABEL: func.func @chain_used_twice(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xbf16>)
// CHECK-DAG: [[W:%[^ ]+]] = mp.cast [[X]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-DAG: [[H:%[^ ]+]] = mp.cast [[X]] : tensor<4xbf16> to tensor<4xf16>
// CHECK-NOT: mp.cast
// CHECK: return [[W]], [[X]], [[H]] : tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>
func.func @chain_used_twice(%x: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>) {
  %0 = mp.cast %x : tensor<4xbf16> to tensor<4xf32>
  %1 = mp.cast %0 : tensor<4xf32> to tensor<4xbf16>
  %2 = mp.cast %0 : tensor<4xf32> to tensor<4xf16>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>
}

// -----

// A longer chain folds as far as the exact steps allow:
// f16 -> f32 -> bf16 -> f32 -> f16 becomes f16 -> bf16 -> f16.
// CHECK-LABEL: func.func @long_chain(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xf16>)
// CHECK-NEXT: [[B:%[^ ]+]] = mp.cast [[X]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT: [[H:%[^ ]+]] = mp.cast [[B]] : tensor<4xbf16> to tensor<4xf16>
// CHECK-NEXT: return [[H]] : tensor<4xf16>
func.func @long_chain(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = mp.cast %0 : tensor<4xf32> to tensor<4xbf16>
  %2 = mp.cast %1 : tensor<4xbf16> to tensor<4xf32>
  %3 = mp.cast %2 : tensor<4xf32> to tensor<4xf16>
  return %3 : tensor<4xf16>
}

// -----

// Casts of several function arguments, returned directly.
// CHECK-LABEL: func.func @casts_of_arguments(
// CHECK-SAME: [[A:%[^:]+]]: tensor<8xbf16>, [[B:%[^:]+]]: tensor<8xf32>, [[C:%[^:]+]]: tensor<8xf16>)
// CHECK-NEXT: [[BN:%[^ ]+]] = mp.cast [[B]] : tensor<8xf32> to tensor<8xbf16>
// CHECK-NEXT: [[CB:%[^ ]+]] = mp.cast [[C]] : tensor<8xf16> to tensor<8xbf16>
// CHECK-NEXT: return [[A]], [[BN]], [[CB]], [[B]] : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>
func.func @casts_of_arguments(%a: tensor<8xbf16>, %b: tensor<8xf32>, %c: tensor<8xf16>) -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>) {
  %0 = mp.cast %a : tensor<8xbf16> to tensor<8xf32>
  %1 = mp.cast %0 : tensor<8xf32> to tensor<8xbf16>
  %2 = mp.cast %b : tensor<8xf32> to tensor<8xbf16>
  %3 = mp.cast %c : tensor<8xf16> to tensor<8xf32>
  %4 = mp.cast %3 : tensor<8xf32> to tensor<8xbf16>
  %5 = mp.cast %b : tensor<8xf32> to tensor<8xf32>
  return %1, %2, %4, %5 : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>
}

// -----

// A train op between two casts stops the folding.
// CHECK-LABEL: func.func @op_between_casts(
// CHECK-SAME: [[X:%[^:]+]]: tensor<4xbf16>)
// CHECK-NEXT: [[W:%[^ ]+]] = mp.cast [[X]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT: [[R:%[^ ]+]] = train.relu [[W]] : tensor<4xf32>
// CHECK-NEXT: [[N:%[^ ]+]] = mp.cast [[R]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: return [[N]] : tensor<4xbf16>
func.func @op_between_casts(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = mp.cast %x : tensor<4xbf16> to tensor<4xf32>
  %1 = train.relu %0 : tensor<4xf32>
  %2 = mp.cast %1 : tensor<4xf32> to tensor<4xbf16>
  return %2 : tensor<4xbf16>
}

// -----

// train.constant is ConstantLike with a folder: the canonicalizer merges
// equal constants (and CSE does too); different values stay apart.
// CHECK-LABEL: func.func @constants_dedup(
// CHECK-DAG: [[C12:%[^ ]+]] = train.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: [[C32:%[^ ]+]] = train.constant dense<[3.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NOT: train.constant
// CHECK: return [[C12]], [[C12]], [[C32]] : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
// CSE-LABEL: func.func @constants_dedup(
// CSE-NEXT: [[C12:%[^ ]+]] = train.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CSE-NEXT: [[C32:%[^ ]+]] = train.constant dense<[3.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CSE-NEXT: return [[C12]], [[C12]], [[C32]] : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
func.func @constants_dedup() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = train.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = train.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = train.constant dense<[3.0, 2.0]> : tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// An unused constant is erased.
// CHECK-LABEL: func.func @dead_constant(
// CHECK-NOT: train.constant
// CHECK: return
func.func @dead_constant() {
  %0 = train.constant dense<1> : tensor<3xi32>
  return
}

// -----

// train.fill is not ConstantLike and has no folder, so the canonicalizer
// leaves it alone; CSE merges the identical pure ops.
// CHECK-LABEL: func.func @fills(
// CHECK: train.fill 1.000000e+00 : tensor<3xf32>
// CSE-LABEL: func.func @fills(
// CSE-NEXT: [[F:%[^ ]+]] = train.fill 1.000000e+00 : tensor<3xf32>
// CSE-NEXT: return [[F]], [[F]]
func.func @fills() -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = train.fill 1.0 : tensor<3xf32>
  %1 = train.fill 1.0 : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
