// --threads: the cpu backend's thread count. Results do not depend on it
// (each element of the own loops is computed by one thread, in one order):
// the checkpoints after 5 steps with 1 and 3 threads are the same bytes.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/mlp.plan
// RUN: mp-run %t/mlp.plan --synthetic --steps 5 --threads 1 --verbose --checkpoint %t/t1.safetensors 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: mp-run %t/mlp.plan --synthetic --steps 5 --threads=3 --checkpoint %t/t3.safetensors
// RUN: cmp %t/t1.safetensors %t/t3.safetensors
// RUN: not mp-run %t/mlp.plan --synthetic --steps 1 --threads 0 2>&1 | FileCheck %s --check-prefix=ZERO
// ONE: mp-run: backend: {{(cpu .* 1 threads|reference)}}
// ZERO: mp-run: error: --threads takes an integer >= 1 and <= 4096, got '0'

// MP_NUM_THREADS that is not a count is an error, not ignored.
// RUN: env MP_NUM_THREADS=0 not mp-run %t/mlp.plan --synthetic --steps 1 2>&1 | FileCheck %s --check-prefix=ENVZERO
// RUN: env MP_NUM_THREADS=lots not mp-run %t/mlp.plan --synthetic --steps 1 2>&1 | FileCheck %s --check-prefix=ENVLOTS
// ENVZERO: MP_NUM_THREADS is '0'; it takes a thread count from 1 to 4096
// ENVLOTS: MP_NUM_THREADS is 'lots'; it takes a thread count from 1 to 4096
