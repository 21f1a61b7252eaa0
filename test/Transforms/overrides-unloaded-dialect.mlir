// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 infer-add=train.tanh" | FileCheck %s
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 clear-add=math.absf deny-add=linalg.matmul" | FileCheck %s
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 infer-add=math.tanhh" 2>&1 | FileCheck %s --check-prefix=TYPO

// Whether an op name is known must not depend on which dialects the input
// happens to use. This input has only func and arith ops, so the train,
// math and linalg dialects are registered in mp-opt but not loaded, and
// RegisteredOperationName::lookup (PrecisionPolicy::applyEdits) does not
// find their ops: "unknown op name 'train.tanh' in the infer list", and a
// typo of an unloaded op gets no "did you mean". The same options succeed
// on an input that contains any train / math op. Expected: the edits are
// accepted (they simply match no op here), and the typo names the close
// op.

// CHECK-LABEL: func.func @f(
// CHECK: arith.addf {{.*}}mp.precision = {category = "infer"
// TYPO: error: option infer-add: unknown op name 'math.tanhh' in the infer list (did you mean 'math.tanh'?)
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return
}
