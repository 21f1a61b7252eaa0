// policy=auto: mp-compile chooses the policy for this machine and the
// options' target, says which and why, and the plan has that policy (not
// "auto"). Which one depends on the CPU (CApiTest derives it from the
// detected features); here: the same one in the note and in the plan.
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=auto" -o %t.plan 2> %t.txt
// RUN: mp-run %t.plan --synthetic --synthetic-samples 64 --steps 1 --plain --verbose >> %t.txt 2>&1
// RUN: FileCheck %s --check-prefix=CPU --input-file=%t.txt
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=auto target=cuda report=%t.json" --check-only 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: not mp-compile %examples/mlp.mlir --mixed-precision="policy=auto target=tpu" -o %t.x 2>&1 | FileCheck %s --check-prefix=TARGET

// CPU: mp-compile: policy auto: [[POLICY:float32|mixed_bfloat16|mixed_float16]]: this CPU (
// CPU: policy [[POLICY]],
// CUDA: mp-compile: policy auto: mixed_bfloat16: the cuda backend's GPUs
// REPORT: "policy_auto": {
// REPORT-NEXT: "chosen": "mixed_bfloat16",
// REPORT-NEXT: "reason": "the cuda backend's GPUs
// TARGET: mp-compile: policy=auto: unknown target 'tpu' (cpu or cuda)
