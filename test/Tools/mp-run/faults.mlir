// mp-run on bad data, bad options and faults: every problem is found
// before the first step where it can be, and no run ends with exit 0 on a
// silently wrong model, a lost state or an unwritten file
// (docs/reliability.md).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/write_npy.py %t
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=float32" -o %t/f32.plan
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=float32" --eval -o %t/f32.eval.plan
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/bf16.plan
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_float16" -o %t/f16.plan
// RUN: mp-compile %examples/cnn.mlir --mixed-precision="policy=float32" --eval -o %t/cnn.eval.plan

// Non-finite data is found at load time, named by file, sample, position.
// RUN: not mp-run %t/f32.plan --train-x %t/x_nan.npy --train-y %t/y64.npy --steps 4 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: mp-run: error: {{.*}}x_nan.npy: sample 37 has nan at position 5 (1 non-finite value in the file); remove or repair them, or pass --allow-non-finite
// RUN: not mp-run %t/f32.plan --train-x %t/x64.npy --train-y %t/y64.npy --steps 4 --eval-plan %t/f32.eval.plan --test-x %t/x_inf.npy --test-y %t/y32.npy 2>&1 | FileCheck %s --check-prefix=TESTINF
// TESTINF: mp-run: error: {{.*}}x_inf.npy: sample 3 has -inf at position 700

// Trained anyway (--allow-non-finite), no non-finite update is applied:
// under float32 and bf16 the step fails naming the gradient, the state
// before it is saved; under fp16 the skipped steps at the scale's floor
// (1, never 0) stop the run.
// RUN: not mp-run %t/f32.plan --train-x %t/x_nan.npy --train-y %t/y64.npy --steps 4 --no-shuffle --allow-non-finite --checkpoint %t/nan.safetensors 2>&1 | FileCheck %s --check-prefix=GUARD
// GUARD: mp-run: stopped; the state after step 1 is in {{.*}}nan.safetensors
// GUARD: mp-run: error: step 2: the gradient of 'fc{{[12]}}.{{weight|bias}}' has {{[0-9]+}} non-finite values of {{[0-9]+}} {{.*}}; the step was not applied
// RUN: %python %S/Inputs/check_finite.py %t/nan.safetensors
// RUN: not mp-run %t/bf16.plan --train-x %t/x_allnan.npy --train-y %t/y64.npy --steps 4 --allow-non-finite 2>&1 | FileCheck %s --check-prefix=GUARD16
// GUARD16: mp-run: error: step 1: the gradient of
// RUN: not mp-run %t/f16.plan --train-x %t/x_allnan.npy --train-y %t/y64.npy --steps 200 --allow-non-finite --plain --log-every 100 2>&1 | FileCheck %s --check-prefix=FLOOR
// FLOOR: mp-run: error: 10 consecutive steps (to step 24) were skipped with the loss scale at its floor 1.000000: the gradients are not finite even at that scale

// Inputs that are not files, sizes that overflow, options out of range.
// RUN: not mp-run %t/f32.plan --train-x %t --train-y %t/y64.npy --steps 1 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: mp-run: error: {{.*}}: is a directory, not a .npy file
// RUN: not mp-run %t/f32.plan --train-x %t/x_overflow.npy --train-y %t/y64.npy --steps 1 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: mp-run: error: {{.*}}x_overflow.npy: not a readable .npy file: shape too large
// RUN: not mp-run %t/f32.plan --synthetic --synthetic-samples 99999999999 --steps 1 2>&1 | FileCheck %s --check-prefix=SAMPLES
// SAMPLES: mp-run: error: --synthetic-samples takes an integer >= 1 and <= 2147483648
// RUN: not mp-run %t/f32.plan --synthetic --synthetic-samples 2147483648 --steps 1 2>&1 | FileCheck %s --check-prefix=SAMPLES2
// SAMPLES2: mp-run: error: --synthetic-samples 2147483648 of 785 values each (every input and label) is more than mp-run makes
// RUN: not mp-run %t/f32.plan --synthetic --epochs 9223372036854775807 2>&1 | FileCheck %s --check-prefix=EPOCHS
// EPOCHS: mp-run: error: --epochs 9223372036854775807 of 32 batches is more steps than mp-run counts
// RUN: not mp-run %t/f32.plan --synthetic --steps 1 --threads 4294967297 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: mp-run: error: --threads takes an integer >= 1 and <= 4096, got '4294967297'

// Outputs checked before the first step: a missing directory is made, a
// directory or a name ending in '/' is refused; a metrics file that cannot
// be written (a full disk: /dev/full) fails the run.
// RUN: mp-run %t/f32.plan --synthetic --steps 1 --checkpoint %t/new/dir/c.safetensors 2>&1 | FileCheck %s --check-prefix=MKDIR
// MKDIR: mp-run: made the directory {{.*}}new for --checkpoint
// MKDIR: mp-run: made the directory {{.*}}new/dir for --checkpoint
// RUN: test -f %t/new/dir/c.safetensors
// RUN: not mp-run %t/f32.plan --synthetic --steps 1 --checkpoint %t 2>&1 | FileCheck %s --check-prefix=ISDIR
// ISDIR: mp-run: error: '{{.*}}' is a directory, not a file
// RUN: not mp-run %t/f32.plan --synthetic --steps 1 --checkpoint %t/new/ 2>&1 | FileCheck %s --check-prefix=SLASH
// SLASH: mp-run: error: '{{.*}}new/' names a directory, not a file
// RUN: not mp-run %t/f32.plan --synthetic --steps 3 --log-every 1 --metrics /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: mp-run: error: /dev/full: cannot write the metrics file: No space left on device

// The evaluation plan and the labels, checked up front.
// RUN: not mp-run %t/f32.plan --synthetic --steps 1 --eval-plan %t/f32.plan --test-x %t/x784.npy --test-y %t/y32.npy 2>&1 | FileCheck %s --check-prefix=EVALTRAIN
// EVALTRAIN: mp-run: error: {{.*}}f32.plan: this is a training plan (it updates 'fc1.weight'), not an evaluation plan
// RUN: not mp-run %t/f32.plan --synthetic --steps 1 --eval-plan %t/cnn.eval.plan --test-x %t/x784.npy --test-y %t/y32.npy 2>&1 | FileCheck %s --check-prefix=EVALOTHER
// EVALOTHER: mp-run: error: {{.*}}cnn.eval.plan: the evaluation plan's '{{.*}}' is not in the training plan: the two plans are of different models
// RUN: not mp-run %t/f32.plan --train-x %t/x64.npy --train-y %t/y64_far.npy --steps 1 2>&1 | FileCheck %s --check-prefix=FAR
// FAR: mp-run: error: {{.*}}y64_far.npy: label 10 in row 60 is outside the plan's classes [0, 10)
// RUN: not mp-run %t/f32.plan --synthetic --steps 1 --eval-plan %t/f32.eval.plan --test-x %t/x64.npy --test-y %t/y64_far.npy 2>&1 | FileCheck %s --check-prefix=FARTEST
// FARTEST: mp-run: error: {{.*}}y64_far.npy: label 10 in row 60

// Resuming: another model's checkpoint, the same model's under another
// policy (allowed with --resume-other-plan), a conflicting --init-params.
// RUN: mp-run %t/f32.plan --synthetic --steps 2 --checkpoint %t/f32.safetensors > /dev/null 2>&1
// RUN: not mp-run %t/bf16.plan --synthetic --steps 3 --resume %t/f32.safetensors 2>&1 | FileCheck %s --check-prefix=OTHERPLAN
// OTHERPLAN: mp-run: error: {{.*}}f32.safetensors' was saved by plan {{.*}} (policy 'float32'), but this session runs plan {{.*}} (policy 'mixed_bfloat16'): the same model's tensors under another plan {{.*}} mp-run --resume-other-plan)
// RUN: mp-run %t/bf16.plan --synthetic --steps 3 --resume %t/f32.safetensors --resume-other-plan 2>&1 | FileCheck %s --check-prefix=OTHEROK
// OTHEROK: trained 1 steps (2 to 3)
// RUN: mp-compile %examples/cnn.mlir -o %t/cnn.plan
// RUN: not mp-run %t/cnn.plan --synthetic --steps 3 --resume %t/f32.safetensors 2>&1 | FileCheck %s --check-prefix=OTHERMODEL
// OTHERMODEL: mp-run: error: {{.*}}, and its tensors are another model's:
// RUN: not mp-run %t/f32.plan --synthetic --steps 3 --resume %t/f32.safetensors --init-params %t/f32.safetensors 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: mp-run: error: --init-params and --resume both set the parameters

// A stale temporary file of an interrupted save is removed at the next
// start (only that checkpoint's, only that pattern).
// RUN: touch %t/.s.safetensors.tmp-AbC123 %t/.s.safetensors.tmp-keep %t/.other.safetensors.tmp-AbC123
// RUN: mp-run %t/f32.plan --synthetic --steps 1 --checkpoint %t/s.safetensors 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: mp-run: removed {{.*}}/.s.safetensors.tmp-AbC123, left by an interrupted checkpoint write
// RUN: test ! -e %t/.s.safetensors.tmp-AbC123
// RUN: test -e %t/.s.safetensors.tmp-keep
// RUN: test -e %t/.other.safetensors.tmp-AbC123

// SIGTERM finishes the current step, writes the checkpoint, exits 143.
// RUN: bash -c 'timeout --preserve-status -s TERM 2 mp-run %t/f32.plan --synthetic --steps 100000000 --plain --log-every 100000000 --checkpoint %t/term.safetensors; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=TERM
// TERM: mp-run: interrupted by SIGTERM after step {{[0-9]+}}; the state after step {{[0-9]+}} is in {{.*}}term.safetensors
// TERM: exit 143

// A periodic checkpoint that fails (rename fails with ENOSPC, injected
// with LD_PRELOAD) is a warning, the previous one stays, the next interval
// tries again; the run ends normally.
// RUN: cc -shared -fPIC %S/Inputs/fail_rename.c -o %t/fail_rename.so -ldl
// RUN: env LD_PRELOAD=%mp_san_preload%t/fail_rename.so FAIL_RENAME_CALLS=1 mp-run %t/f32.plan --synthetic --steps 6 --checkpoint-every 2 --checkpoint %t/periodic.safetensors --plain --log-every 6 2>&1 | FileCheck %s --check-prefix=PERIODIC
// PERIODIC: mp-run: warning: the checkpoint at step 2 failed ({{.*}}No space left on device{{.*}}); the previous one stays, the next try is at step 4
// PERIODIC: mp-run: the checkpoint at step 4 worked
// PERIODIC: trained 6 steps (0 to 6)
// RUN: mp-run %t/f32.plan --synthetic --steps 7 --resume %t/periodic.safetensors 2>&1 | FileCheck %s --check-prefix=RESUMED
// RESUMED: trained 1 steps (6 to 7)
