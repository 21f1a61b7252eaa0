// A loss scale so large that every fp16 gradient overflows: each step is
// skipped (the params do not move, so the same batch gives the same loss),
// the scale halves each time, and the skipped steps are counted. A run
// that applied no step fails (docs/mp-run.md).
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_float16 init-scale=1e30" -o %t.plan
// RUN: not mp-run %t.plan --synthetic --synthetic-samples 32 --no-shuffle --steps 4 --plain --log-every 1 2>&1 | FileCheck %s

// CHECK: step 1/4 loss [[LOSS:[0-9.]+]] scale 5e+29 skipped 1
// CHECK: step 2/4 loss [[LOSS]] scale 2.5e+29 skipped 2
// CHECK: step 3/4 loss [[LOSS]] scale 1.25e+29 skipped 3
// CHECK: step 4/4 loss [[LOSS]] scale 6.25e+28 skipped 4
// CHECK: mp-run: error: all 4 steps were skipped (non-finite gradients; the loss scale is 6.25e+28): no step changed the model

// With the default scale nothing overflows and the loss moves.
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_float16" -o %t.default.plan
// RUN: mp-run %t.default.plan --synthetic --synthetic-samples 32 --no-shuffle --steps 2 --plain --log-every 1 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: step 1/2 loss [[L1:[0-9.]+]] scale 32768 skipped 0
// DEFAULT-NOT: step 2/2 loss [[L1]] scale
// DEFAULT: skipped 0
