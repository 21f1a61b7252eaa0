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

// --ranges: every 3 steps one JSON line with every tensor's range; the
// training is the same as without it; the plot script's table names the
// exponential (f32 in the repaired step) past f16's range.
// RUN: mp-run %t/fixed.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 9 --ranges 3 --ranges-out %t/ranges.jsonl > %t/ranged.log 2>&1
// RUN: mp-run %t/fixed.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 9 > %t/plain.log 2>&1
// RUN: %python %S/../mp-compile/Inputs/close_losses.py %t/ranged.log %t/plain.log 0
// RUN: FileCheck %s --check-prefix=RANGES < %t/ranges.jsonl
// RANGES: {"step": 3, "tensors": [{"tensor": 0, "name": "x", "kind": "input", "dtype": "f32", "max_abs": {{[0-9.e+-]+}}, "nonfinite": 0, "elements": 64,
// RANGES-SAME: "name": "t{{[0-9]+}}", "kind": "scratch", "dtype": "f32", "op": "train.exp", "location": "{{.*}}fixed.mlir:14:8"
// RANGES-NEXT: {"step": 6,
// RANGES-NEXT: {"step": 9,
// RUN: %python %mp_src_root/python/tools/plot_ranges.py %t/ranges.jsonl --text --top 3 | FileCheck %s --check-prefix=PLOT
// PLOT: tensors closest to f16 overflow
// PLOT: train.exp (fixed.mlir:14:8) f32

// --auto-fix: the exponential made 16-bit by the user's allow-add instead
// of a pin. At the scale's floor the replay proposes deny-add=train.exp;
// mp-run recompiles the source with the options the plan records (format
// 8) and the fix as data (--fix-deny: mp-compile takes the op off
// allow-add), moves the state over, the loss scaler's included, and
// trains on; the metrics record the change. After it no step is skipped:
// the scale goes on from where the skipped steps left it.
// RUN: sed -e 's/ {mp.force = "low"}//' %S/Inputs/exp_overflow.mlir > %t/exp_list.mlir
// RUN: mp-compile %t/exp_list.mlir --mixed-precision="policy=mixed_float16 allow-add=train.exp" -o %t/list.mpplan
// RUN: mp-run %t/list.mpplan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 40 --log-every 10 --max-skipped-at-floor 2 --auto-fix --source %t/exp_list.mlir --metrics %t/fix.jsonl > %t/fix.log 2>&1
// RUN: FileCheck %s --check-prefix=AUTOFIX < %t/fix.log
// RUN: FileCheck %s --check-prefix=AUTOFIX-METRICS < %t/fix.jsonl
// AUTOFIX: proposal: --mixed-precision="... deny-add=train.exp"
// AUTOFIX: mp-run: --auto-fix: {{.*}}mp-compile {{.*}}exp_list.mlir "--mixed-precision=policy=mixed_float16 allow-add=train.exp" --fix-deny=train.exp -o {{.*}}list.fixed.mpplan
// AUTOFIX-NEXT: mp-run: --auto-fix: training goes on with {{.*}}list.fixed.mpplan from the state before step [[STEP:[0-9]+]]
// AUTOFIX: step 30/40 loss {{[0-9.]+}} scale [[SCALE:[0-9]+]] skipped [[SKIPPED:[0-9]+]]
// AUTOFIX: step 40/40 loss {{[0-9.]+}} scale [[SCALE]] skipped [[SKIPPED]]
// AUTOFIX: trained 40 steps
// AUTOFIX-NOT: warning
// AUTOFIX-METRICS: {"event": "auto_fix", "step": [[STEP:[0-9]+]], "change": "deny-add=train.exp", "plan": "{{.*}}list.fixed.mpplan"}

// A pin is an edit of the step: --auto-fix says so and the run stops.
// RUN: not mp-run %t/exp.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 40 --max-skipped 3 --auto-fix --source %S/Inputs/exp_overflow.mlir 2>&1 | FileCheck %s --check-prefix=PINNED
// PINNED: mp-run: --auto-fix: the proposal edits the step; not applied
// PINNED: mp-run: error: 3 consecutive steps
// RUN: not mp-run %t/exp.plan --synthetic --plain --steps 4 --auto-fix 2>&1 | FileCheck %s --check-prefix=NOSOURCE
// NOSOURCE: mp-run: error: --auto-fix needs --source STEP.mlir

// Everything --auto-fix needs is checked before the first step: a source
// or options mp-compile refuses stop the run before it trains.
// RUN: not mp-run %t/list.mpplan --synthetic --plain --steps 4 --auto-fix --source %t/exp_list.mlir --compile-options "policy=mixed_float16 no-such-option=1" 2>&1 | FileCheck %s --check-prefix=BADOPTIONS
// BADOPTIONS-NOT: step 1/4
// BADOPTIONS: mp-run: error: --auto-fix: mp-compile failed on {{.*}}exp_list.mlir with --mixed-precision="policy=mixed_float16 no-such-option=1"
// RUN: not mp-run %t/list.mpplan --synthetic --plain --steps 4 --auto-fix --source %t/exp_list.mlir --compile-options "policy=mixed_float17" 2>&1 | FileCheck %s --check-prefix=BADPOLICY
// BADPOLICY-NOT: step 1/4
// BADPOLICY: mp-run: error: --auto-fix: mp-compile failed

// A run whose every step is skipped never ends 0, however short: here 5
// steps, too few for --max-skipped's stop.
// RUN: not mp-run %t/exp.plan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 5 2>&1 | FileCheck %s --check-prefix=ALLSKIPPED
// ALLSKIPPED: mp-run: error: all 5 steps were skipped (non-finite gradients; the loss scale is {{[0-9]+}}): no step changed the model
// ALLSKIPPED-NOT: trained 5 steps

// mp-compile --fix-deny / --fix-init-scale merge the fix into the options;
// the plan records what it was compiled with.
// RUN: mp-compile %t/exp_list.mlir --mixed-precision="policy=mixed_float16 allow-add=train.exp" --fix-deny=train.exp --fix-init-scale=64 -o %t/merged.mpplan
// RUN: mp-run %t/merged.mpplan --synthetic --synthetic-samples 64 --no-shuffle --plain --steps 3 --log-every 1 2>&1 | FileCheck %s --check-prefix=MERGED
// MERGED: step 1/3 loss {{[0-9.]+}} scale 64 skipped 0
// RUN: not mp-compile %t/exp_list.mlir --fix-deny=train.exp -o %t/nope.mpplan 2>&1 | FileCheck %s --check-prefix=FIXNEEDS
// FIXNEEDS: mp-compile: --fix-deny and --fix-init-scale change --mixed-precision's options; give them
