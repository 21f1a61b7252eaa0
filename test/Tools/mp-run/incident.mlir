// When training goes non-finite (issue 19): mp-run stops, replays the
// failing step with a finiteness check after every kernel, names the first
// non-finite op with its source line and precision decision, and proposes
// the fix.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %S/Inputs/exp_overflow.mlir --mixed-precision="policy=mixed_float16" -o %t/exp.plan

// A forward-pass overflow (exp pinned to f16): every step is skipped; at
// --max-skipped the run stops with the diagnosis.
// RUN: not mp-run %t/exp.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 40 --max-skipped 5 --log-every 1 2> %t/forward.log
// RUN: FileCheck %s --check-prefix=FORWARD < %t/forward.log
// FORWARD: step 4/40 loss inf scale 2048 skipped 4
// FORWARD: mp-run: replayed the step on the {{cpu|reference}} backend with a finiteness check after every kernel:
// FORWARD-NEXT: first non-finite value: kernel #{{[0-9]+}} train.exp at {{.*}}exp_overflow.mlir:14:8
// FORWARD-NEXT: precision decision: f16 allow (rule allow, source forced-low)
// FORWARD-NEXT: in the loss-scaled backward pass: no
// FORWARD-NEXT: input  t{{[0-9]+}} f16[16, 2]: max |x| {{[0-9.]+}}, 0 inf, 0 NaN
// FORWARD-NEXT: output t{{[0-9]+}} f16[16, 2]: max |x| {{.*}}, {{[1-9][0-9]*}} inf
// FORWARD-NEXT: diagnosis: train.exp overflows f16 in the forward pass, where the loss scale does not reach: not a scaling problem
// FORWARD-NEXT: proposal: the op is pinned to f16 by mp.force = "low" at {{.*}}exp_overflow.mlir:14:8: make it mp.force = "fp32"
// FORWARD: mp-run: error: 5 consecutive steps (to step 5) were skipped, the loss scale falling to 1024

// The same at the floor (the scale halved to 1): still the forward pass,
// and on the reference backend.
// RUN: not mp-run %t/exp.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 40 --max-skipped-at-floor 2 --replay reference 2> %t/floor.log
// RUN: FileCheck %s --check-prefix=FLOOR < %t/floor.log
// FLOOR: mp-run: replayed the step on the reference backend
// FLOOR-NEXT: first non-finite value: kernel #{{[0-9]+}} train.exp at {{.*}}exp_overflow.mlir:14:8
// FLOOR: not a scaling problem
// FLOOR: mp-run: error: 2 consecutive steps (to step {{[0-9]+}}) were skipped with the loss scale at its floor

// --replay off: the stop alone.
// RUN: not mp-run %t/exp.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 40 --max-skipped 3 --replay off 2>&1 | FileCheck %s --check-prefix=OFF
// OFF-NOT: replayed
// OFF: mp-run: error: 3 consecutive steps

// The proposal applied: the exp in f32 (and a scale its gradients fit)
// trains to the float32 run's loss.
// RUN: sed -e 's/mp.force = "low"/mp.force = "fp32"/' %S/Inputs/exp_overflow.mlir > %t/fixed.mlir
// RUN: mp-compile %t/fixed.mlir --mixed-precision="policy=mixed_float16 init-scale=256" -o %t/fixed.plan
// RUN: mp-compile %S/Inputs/exp_overflow.mlir --mixed-precision="policy=float32" -o %t/f32.plan
// RUN: mp-run %t/fixed.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 8 > %t/fixed.log 2>&1
// RUN: mp-run %t/f32.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 8 > %t/f32.log 2>&1
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.log
// FIXED: skipped 0
// RUN: %python %S/../mp-compile/Inputs/close_losses.py %t/fixed.log %t/f32.log 2e-3

// A backward-pass overflow (a loss scale far too high for the MLP): the
// diagnosis says so and proposes a scale.
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_float16 init-scale=1e30" -o %t/mlp.plan
// RUN: not mp-run %t/mlp.plan --synthetic --synthetic-samples 32 --no-shuffle --plain --steps 10 --max-skipped 3 2>&1 | FileCheck %s --check-prefix=BACKWARD
// BACKWARD: first non-finite value: kernel #{{[0-9]+}} mp.cast at {{.*}}mlp.mlir:{{[0-9]+}}:{{[0-9]+}}
// BACKWARD: in the loss-scaled backward pass: yes (loss scale 2.5e+29)
// BACKWARD: diagnosis: an overflow of the f16 backward pass at loss scale 2.5e+29
// BACKWARD: proposal: --mixed-precision="... init-scale=262144"
// BACKWARD: mp-run: recompile the step with it: mp-compile STEP.mlir --mixed-precision="policy=mixed_float16 ... init-scale=262144" -o {{.*}}mlp.plan

// The proposed scale trains the MLP without a skipped step.
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_float16 init-scale=262144" -o %t/mlp-fixed.plan
// RUN: mp-run %t/mlp-fixed.plan --synthetic --synthetic-samples 32 --no-shuffle --plain --steps 4 --log-every 1 2>&1 | FileCheck %s --check-prefix=MLPFIXED
// MLPFIXED: step 4/4 loss {{[0-9.]+}} scale 262144 skipped 0
