// mp-run: bad input is a clear error and a non-zero exit.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %examples/mlp.mlir -o %t/mlp.plan
// RUN: %python %S/Inputs/write_npy.py %t
// RUN: not mp-run %t/mlp.plan --train-x %t/nope.npy --train-y %t/y32.npy --steps 1 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mp-run %t/mlp.plan --train-x %t/x_wrong.npy --train-y %t/y32.npy --steps 1 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not mp-run %t/mlp.plan --train-x %t/x_big.npy --train-y %t/y32.npy --steps 1 2>&1 | FileCheck %s --check-prefix=DTYPE
// Small integers for a float input are converted (exactly): the run trains.
// RUN: mp-run %t/mlp.plan --train-x %t/x_int.npy --train-y %t/y32.npy --steps 1 --plain 2>&1 | FileCheck %s --check-prefix=INTS
// RUN: not mp-run %t/mlp.plan --train-x %t/x784.npy --train-y %t/y_short.npy --steps 1 2>&1 | FileCheck %s --check-prefix=LABELS
// RUN: not mp-run %t/mlp.plan --train-x %t/corrupt.npy --train-y %t/y32.npy --steps 1 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: not mp-run %t/mlp.plan --train-x %t/x784.npy --train-y %t/y_bad.npy --steps 1 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not mp-run %t/mlp.plan --train-x %t/x784.npy --train-y %t/y_neg.npy --steps 1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not mp-run %t/mlp.plan --synthetic --synthetic-samples 3 --steps 2 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not mp-run %t/mlp.plan --synthetic --steps 99999999999999999999 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not mp-run %t/mlp.plan --synthetic --steps 1 --eval-every 5 2>&1 | FileCheck %s --check-prefix=EVALEVERY
// RUN: not mp-run %t/nope.plan --synthetic --steps 1 2>&1 | FileCheck %s --check-prefix=NOPLAN
// RUN: not mp-run %t/x784.npy --synthetic --steps 1 2>&1 | FileCheck %s --check-prefix=NOTPLAN
// RUN: not mp-run %t/mlp.plan --synthetic 2>&1 | FileCheck %s --check-prefix=LENGTH
// RUN: not mp-run %t/mlp.plan --synthetic --steps 1 --bogus 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: mp-run %t/mlp.plan --train-x %t/x784.npy --train-y %t/y32.npy --steps 2 --plain --log-every 1 2>&1 | FileCheck %s --check-prefix=OK
// RUN: mp-run %t/mlp.plan --synthetic --steps 2 --profile 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE: profile (2 steps, backend {{.*}}):
// PROFILE: op{{.*}}ms/step{{.*}}calls
// PROFILE-DAG: train.matmul {{.*}} 10
// PROFILE-DAG: train.sgd {{.*}} 8
// Every update of the MLP's params is double-buffered: no copy after a step.
// PROFILE-NOT: (state copy)

// MISSING: mp-run: error: {{.*}}nope.npy: cannot open the file
// SHAPE: mp-run: error: {{.*}}x_wrong.npy: samples of shape [10] (10 values), but the plan's input 'input0' (f32[32, 784]) takes [784] (784 values) per sample
// DTYPE: mp-run: error: {{.*}}x_big.npy: integer 16777217 at position 100 for the plan's input 'input0' (f32[32, 784]), which takes floating-point values: beyond 2^24 float32 cannot hold it exactly
// INTS: step 1{{.*}}loss
// LABELS: mp-run: error: {{.*}}y_short.npy: 31 samples, but {{.*}}x784.npy has 32; every input and label needs one row per sample
// CORRUPT: mp-run: error: {{.*}}corrupt.npy: not a readable .npy file
// RANGE: mp-run: error: {{.*}}label
// NEGATIVE: mp-run: error: {{.*}}y_neg.npy: label -1 in row 5 is outside the plan's classes [0, 10)
// SMALL: mp-run: error: --synthetic-samples: 3 samples are fewer than one batch of 32
// HUGE: mp-run: error: --steps takes an integer >= 1, got '99999999999999999999'
// EVALEVERY: mp-run: error: --eval-every needs --eval-plan
// NOPLAN: mp-run: error: {{.*}}nope.plan
// NOTPLAN: mp-run: error: {{.*}}x784.npy
// LENGTH: mp-run: error: give exactly one of --steps and --epochs
// OPTION: mp-run: error: unknown option '--bogus'
// OK: step 1/2 loss {{[0-9.]+}}
// OK: step 2/2 loss {{[0-9.]+}}
// OK: trained 2 steps

// An option that would do nothing is refused, not ignored.
// RUN: not mp-run %t/mlp.plan --synthetic --steps 1 --source %t/step.mlir 2>&1 | FileCheck %s --check-prefix=SOURCEALONE
// RUN: not mp-run %t/mlp.plan --synthetic --steps 1 --compile-options policy=float32 2>&1 | FileCheck %s --check-prefix=OPTIONSALONE
// RUN: not mp-run %t/mlp.plan --synthetic --steps 1 --ranges-out %t/r.jsonl 2>&1 | FileCheck %s --check-prefix=RANGESOUT
// RUN: not mp-run %t/mlp.plan --synthetic --steps 1 --auto-fix --replay off 2>&1 | FileCheck %s --check-prefix=FIXNOREPLAY
// SOURCEALONE: mp-run: error: --source is read by --auto-fix only; add --auto-fix or drop it
// OPTIONSALONE: mp-run: error: --compile-options is read by --auto-fix only
// RANGESOUT: mp-run: error: --ranges-out needs --ranges N
// FIXNOREPLAY: mp-run: error: --auto-fix applies the replay's proposal; it cannot run with --replay off
