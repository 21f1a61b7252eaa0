// User edits of the category lists, from the command line and from a JSON
// policy file, and every way to get them wrong.

// The defaults, for comparison (target cpu: train.erf is unlisted there).
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16" | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func.func @f(
// DEFAULT-NEXT: train.matmul {{.*}}{mp.precision = {category = "allow", dtype = f16, rule = "allow", source = "default-list"}}
// DEFAULT-NEXT: train.tanh {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}}
// DEFAULT-NEXT: train.exp {{.*}}{mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "default-list"}}
// DEFAULT-NEXT: train.add {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "deny-spread", source = "default-list"}}
// DEFAULT-NEXT: train.relu {{.*}}{mp.precision = {category = "clear", dtype = f16, rule = "clear-next-to-low", source = "default-list"}}
// DEFAULT-NEXT: train.erf {{.*}}{mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "unlisted-on-target"}}

// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 target=cuda" | FileCheck %s --check-prefix=CUDA
// CUDA: train.erf {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}}

// Additions: the op takes the new category, with source "user-list".
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 allow-add=train.tanh deny-add=train.relu" | FileCheck %s --check-prefix=ADD
// ADD: train.tanh {{.*}}{mp.precision = {category = "allow", dtype = f16, rule = "allow", source = "user-list"}}
// ADD: train.relu {{.*}}{mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "user-list"}}

// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 infer-add=train.relu clear-add=train.exp,train.tanh" | FileCheck %s --check-prefix=ADD2
// ADD2: train.tanh {{.*}}{mp.precision = {category = "clear", dtype = f16, rule = "clear-next-to-low", source = "user-list"}}
// ADD2-NEXT: train.exp {{.*}}{mp.precision = {category = "clear", dtype = f16, rule = "clear-next-to-low", source = "user-list"}}
// ADD2-NEXT: train.add {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}}
// ADD2-NEXT: train.relu {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "user-list"}}

// Adding an op twice to the same list is harmless.
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 allow-add=train.tanh,train.tanh" | FileCheck %s --check-prefix=TWICE
// TWICE: train.tanh {{.*}}{mp.precision = {category = "allow", dtype = f16, rule = "allow", source = "user-list"}}

// Removals: the op is fp32 and spreads nothing ("removed-by-user").
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 allow-remove=train.matmul" | FileCheck %s --check-prefix=RM-ALLOW
// RM-ALLOW: train.matmul {{.*}}{mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "removed-by-user"}}
// RM-ALLOW: train.relu {{.*}}{mp.precision = {category = "clear", dtype = f32, rule = "no-low-neighbour", source = "default-list"}}

// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 deny-remove=train.exp" | FileCheck %s --check-prefix=RM-DENY
// RM-DENY: train.exp {{.*}}{mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "removed-by-user"}}
// RM-DENY-NEXT: train.add {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}}

// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 infer-remove=train.add,train.tanh clear-remove=train.relu" | FileCheck %s --check-prefix=RM-IC
// RM-IC: train.tanh {{.*}}{mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "removed-by-user"}}
// RM-IC: train.add {{.*}}{mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "removed-by-user"}}
// RM-IC: train.relu {{.*}}{mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "removed-by-user"}}

// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 target=cuda infer-remove=train.erf" | FileCheck %s --check-prefix=RM-CUDA
// RM-CUDA: train.erf {{.*}}{mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "removed-by-user"}}

// The same edits from a policy file, alone and together with the options.
// RUN: echo '{"allow": {"add": ["train.tanh"]}, "deny": {"add": ["train.relu"], "remove": ["train.exp"]}}' > %t.edits.json
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.edits.json" | FileCheck %s --check-prefix=FILE
// FILE: train.tanh {{.*}}{mp.precision = {category = "allow", dtype = f16, rule = "allow", source = "user-list"}}
// FILE-NEXT: train.exp {{.*}}{mp.precision = {category = "unlisted", dtype = f32, rule = "fixed-fp32", source = "removed-by-user"}}
// FILE-NEXT: train.add {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "default-list"}}
// FILE-NEXT: train.relu {{.*}}{mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "user-list"}}
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.edits.json clear-remove=train.relu" 2>&1 | FileCheck %s --check-prefix=FILE-CLI-CONFLICT
// FILE-CLI-CONFLICT: error: option clear-remove: op 'train.relu' is both added to a list and removed from one
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.edits.json infer-add=train.erf" | FileCheck %s --check-prefix=FILE-CLI
// FILE-CLI: train.tanh {{.*}}source = "user-list"
// FILE-CLI: train.erf {{.*}}{mp.precision = {category = "infer", dtype = f32, rule = "no-low-neighbour", source = "user-list"}}
// RUN: echo '{}' > %t.empty.json
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.empty.json" | FileCheck %s --check-prefix=DEFAULT

// The pipeline passes the edits through.
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_float16 loss-scale=none allow-add=train.tanh" | FileCheck %s --check-prefix=PIPE
// PIPE-LABEL: func.func @live(
// PIPE: train.tanh {{%[^ ]+}} : tensor<4x4xf16>
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_float16 loss-scale=none policy-file=%t.edits.json" | FileCheck %s --check-prefix=PIPE

// Errors: each exits non-zero and names the culprit.
// The typo that fused two names: the message names it and suggests the
// closest registered op.
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 infer-add=train.sumtanh" 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: error: option infer-add: unknown op name 'train.sumtanh' in the infer list (did you mean 'train.tanh'?)
// RUN: not mp-opt %s --mp-mixed-precision="policy=mixed_float16 deny-add=train.sumtanh" 2>&1 | FileCheck %s --check-prefix=TYPO-DENY
// TYPO-DENY: error: option deny-add: unknown op name 'train.sumtanh' in the deny list (did you mean 'train.tanh'?)
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 allow-add=train.matmul,train.xyzzy_frobnicate" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: option allow-add: unknown op name 'train.xyzzy_frobnicate' in the allow list{{$}}
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 clear-remove=tanh" 2>&1 | FileCheck %s --check-prefix=NODIALECT
// NODIALECT: error: option clear-remove: unknown op name 'tanh' in the clear list
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 allow-add=train.tanh," 2>&1 | FileCheck %s --check-prefix=EMPTYNAME
// EMPTYNAME: error: option allow-add: unknown op name '' in the allow list

// One name on two lists, on the command line, in the file, and across both.
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 allow-add=train.tanh deny-add=train.tanh" 2>&1 | FileCheck %s --check-prefix=TWO-LISTS
// TWO-LISTS: error: option deny-add: op 'train.tanh' is added to both the allow and the deny list
// RUN: echo '{"infer": {"add": ["train.relu"]}, "clear": {"add": ["train.relu"]}}' > %t.two.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.two.json" 2>&1 | FileCheck %s --check-prefix=TWO-LISTS-FILE
// TWO-LISTS-FILE: error: {{.*}}two.json ({{infer|clear}}.add): op 'train.relu' is added to both the {{infer|clear}} and the {{infer|clear}} list
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.edits.json clear-add=train.tanh" 2>&1 | FileCheck %s --check-prefix=TWO-LISTS-BOTH
// TWO-LISTS-BOTH: error: option clear-add: op 'train.tanh' is added to both the allow and the clear list

// Added to one list and removed from another, in either order.
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 infer-remove=train.tanh allow-add=train.tanh" 2>&1 | FileCheck %s --check-prefix=ADD-RM
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 allow-add=train.tanh infer-remove=train.tanh" 2>&1 | FileCheck %s --check-prefix=ADD-RM
// ADD-RM: error: {{.*}}op 'train.tanh' is both added to a list and removed from one

// Removing an op from a list it is not on.
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 allow-remove=train.tanh" 2>&1 | FileCheck %s --check-prefix=NOT-ON
// NOT-ON: error: option allow-remove: op 'train.tanh' is not on the allow list (its default is infer)
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 infer-remove=train.erf" 2>&1 | FileCheck %s --check-prefix=NOT-ON-CPU
// NOT-ON-CPU: error: option infer-remove: op 'train.erf' is not on the infer list (its default is unlisted fp32)
// RUN: echo '{"clear": {"remove": ["train.matmul"]}}' > %t.notOn.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.notOn.json" 2>&1 | FileCheck %s --check-prefix=NOT-ON-FILE
// NOT-ON-FILE: error: {{.*}}notOn.json (clear.remove): op 'train.matmul' is not on the clear list (its default is allow)

// Malformed policy files.
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.does-not-exist.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read policy file '{{.*}}does-not-exist.json': No such file or directory
// RUN: echo '{"allow": {"add": ["train.tanh"]}' > %t.bad.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.bad.json" 2>&1 | FileCheck %s --check-prefix=BADJSON
// BADJSON: error: {{.*}}bad.json: invalid JSON: {{.*}}Expected , or } after object property
// RUN: echo '{"allwo": {"add": ["train.tanh"]}}' > %t.key.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.key.json" 2>&1 | FileCheck %s --check-prefix=BADKEY
// BADKEY: error: {{.*}}key.json: unknown key 'allwo' (expected allow, deny, infer or clear)
// RUN: echo '{"allow": {"ad": ["train.tanh"]}}' > %t.verb.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.verb.json" 2>&1 | FileCheck %s --check-prefix=BADVERB
// BADVERB: error: {{.*}}verb.json: unknown key 'allow.ad' (expected add or remove)
// RUN: echo '{"allow": ["train.tanh"]}' > %t.shape1.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.shape1.json" 2>&1 | FileCheck %s --check-prefix=SHAPE1
// SHAPE1: error: {{.*}}shape1.json: 'allow' must be an object with 'add' and/or 'remove' arrays
// RUN: echo '{"deny": {"add": "train.tanh"}}' > %t.shape2.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.shape2.json" 2>&1 | FileCheck %s --check-prefix=SHAPE2
// SHAPE2: error: {{.*}}shape2.json: 'deny.add' must be an array of op names
// RUN: echo '{"infer": {"remove": [1]}}' > %t.shape3.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.shape3.json" 2>&1 | FileCheck %s --check-prefix=SHAPE3
// SHAPE3: error: {{.*}}shape3.json: 'infer.remove' must hold only strings
// RUN: echo '["train.tanh"]' > %t.shape4.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.shape4.json" 2>&1 | FileCheck %s --check-prefix=SHAPE4
// SHAPE4: error: {{.*}}shape4.json: expected a JSON object at the top
// RUN: echo '{"allow": {"add": ["train.sumtanh"]}}' > %t.typo.json
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 policy-file=%t.typo.json" 2>&1 | FileCheck %s --check-prefix=TYPO-FILE
// TYPO-FILE: error: {{.*}}typo.json (allow.add): unknown op name 'train.sumtanh' in the allow list (did you mean 'train.tanh'?)

// Unknown policy and target names, in the pass and in the pipeline.
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_fp16" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not mp-opt %s --mp-mixed-precision="policy=mixed_fp16" 2>&1 | FileCheck %s --check-prefix=POLICY
// POLICY: error: unknown policy 'mixed_fp16' (expected float32, mixed_bfloat16 or mixed_float16)
// RUN: not mp-opt %s --mp-assign-precision="policy=mixed_float16 target=gpu" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not mp-opt %s --mp-mixed-precision="policy=mixed_float16 target=gpu loss-scale=none" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: unknown target 'gpu' (expected cpu or cuda)

func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.tanh %0 : tensor<4x4xf32>
  %2 = train.exp %1 : tensor<4x4xf32>
  %3 = train.add %2, %a : tensor<4x4xf32>
  %4 = train.relu %0 : tensor<4x4xf32>
  %5 = train.erf %0 : tensor<4x4xf32>
  return
}

// Live ops for the pipeline runs (which canonicalize dead ops away).
func.func @live(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<f32> {
  %0 = train.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = train.tanh %0 : tensor<4x4xf32>
  %2 = train.reduce_sum %1 {dims = array<i64: 0, 1>} : tensor<4x4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
