// A policy file holds list edits only: the policy and the target come from
// the options, and other keys are rejected by name.
// RUN: echo '{"policy": "mixed_float16", "infer": {"remove": ["train.erf"]}}' > %t.json
// RUN: not mp-opt %s --mp-assign-precision="policy-file=%t.json" 2>&1 | FileCheck %s
// RUN: mp-opt --help | FileCheck %s --check-prefix=HELP

// CHECK: error: {{.*}}.json: unknown key 'policy' (expected allow, deny, infer or clear)
// HELP: policy-file{{.*}}JSON file of list edits
func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}
