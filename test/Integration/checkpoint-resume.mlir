// Stopping after 3 steps and resuming from the checkpoint gives bitwise the
// same state after 6 steps as running 6 steps at once (mixed_float16, with
// the loss scaler's state in the checkpoint).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_float16" -o %t/mlp.plan
// RUN: mp-run %t/mlp.plan --synthetic --synthetic-samples 96 --seed 3 --steps 6 --checkpoint %t/straight.safetensors > %t/straight.txt
// RUN: mp-run %t/mlp.plan --synthetic --synthetic-samples 96 --seed 3 --steps 3 --checkpoint %t/half.safetensors > %t/half.txt
// RUN: mp-run %t/mlp.plan --synthetic --synthetic-samples 96 --seed 3 --steps 6 --resume %t/half.safetensors --checkpoint %t/resumed.safetensors > %t/resumed.txt
// RUN: cmp %t/straight.safetensors %t/resumed.safetensors
// RUN: FileCheck %s < %t/resumed.txt
// CHECK: trained 3 steps (3 to 6)
