// A step whose gradients pass through train.all_reduce (what a
// data-parallel step holds, docs/distributed.md) compiles under every
// policy, with generated code too, and in one process trains exactly as
// the step without it (float32: the mean over one rank is the identity).
// Under mixed_float16 the reduction is an fp32 island: the weight
// gradients' matmuls write f32 for it (the plain step keeps them f16 up
// to the unscale), so the losses differ in the last digits there.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %S/Inputs/mlp_allreduce.mlir --mixed-precision="policy=float32" --codegen=cpu -o %t/ar.plan
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=float32" --codegen=cpu -o %t/plain.plan
// RUN: mp-run %t/ar.plan --synthetic --steps 5 --seed 3 --plain > %t/out.txt 2>&1
// RUN: mp-run %t/plain.plan --synthetic --steps 5 --seed 3 --plain >> %t/out.txt 2>&1
// RUN: FileCheck %s --input-file=%t/out.txt
// RUN: mp-compile %S/Inputs/mlp_allreduce.mlir --mixed-precision="policy=mixed_float16" -o %t/ar16.plan
// RUN: mp-run %t/ar16.plan --synthetic --steps 2 --plain --verbose 2>&1 | FileCheck %s --check-prefix=KERNELS
// RUN: mp-opt %S/Inputs/mlp_allreduce.mlir --mp-mixed-precision="policy=mixed_float16" | FileCheck %s --check-prefix=F16
// CHECK: trained 5 steps (0 to 5) in {{.*}}; last loss [[LOSS:[0-9.]+]];
// CHECK: trained 5 steps (0 to 5) in {{.*}}; last loss [[LOSS]];
// F16: train.matmul {{.*}} {transpose_lhs} : tensor<32x784xf16>, tensor<32x256xf16> -> tensor<784x256xf32>
// F16: train.all_reduce {{.*}} -> tensor<256xf32>, tensor<784x256xf32>
// F16: mp.unscale_and_check
// KERNELS: train.all_reduce {{.*}}a mean over 1 rank (single communicator) (2 kernels)
