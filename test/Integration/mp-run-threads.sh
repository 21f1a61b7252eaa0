#!/usr/bin/env bash
# ctest e2e/mp-run-threads: mp-run on the example models with the kernels
# on two or three threads, a checkpoint after every other step, a signal in
# the middle of a run and a resume from what it saved. In every build it
# checks that the run, the periodic checkpoints and the interruption
# behave; under ThreadSanitizer (scripts/sanitize.sh tsan) it is the run
# that puts the thread pool, the signal handler and the checkpoint writer
# of a real training loop in front of the sanitizer.
#
# usage: mp-run-threads.sh BUILD_DIR SOURCE_DIR
# (MP_COMPILE: the mp-compile that makes the plans, default BUILD_DIR's:
# the ThreadSanitizer build has no compiler.)
set -euo pipefail
build=$1 src=$2
bin=$build/bin
compile=${MP_COMPILE:-$bin/mp-compile}
work=$build/e2e/threads
rm -rf "$work" && mkdir -p "$work"

# mp-run's default backend: cpu (its thread pool is what this is about)
# where oneDNN loads, the reference backend otherwise.
for model in mlp cnn separable_cnn transformer causal_lm; do
  for policy in mixed_bfloat16 float32; do
    plan=$work/$model.$policy.mpplan
    "$compile" "$src/examples/$model.mlir" \
      --mixed-precision="policy=$policy" -o "$plan"
    for threads in 2 3; do
      ckpt=$work/$model.$policy.$threads.safetensors
      "$bin/mp-run" "$plan" --synthetic --synthetic-samples 64 --steps 4 \
        --threads "$threads" --plain --log-every 4 \
        --checkpoint-every 2 --checkpoint "$ckpt" > "$work/log" 2>&1 ||
        { cat "$work/log"; exit 1; }
      grep -q "trained 4 steps" "$work/log" || { cat "$work/log"; exit 1; }
      "$bin/mp-run" "$plan" --synthetic --synthetic-samples 64 --steps 5 \
        --threads "$threads" --resume "$ckpt" \
        > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
      grep -q "trained 1 steps (4 to 5)" "$work/log" || { cat "$work/log"; exit 1; }
    done
  done
done

# A signal while the kernels run on two threads and checkpoints are being
# written: the step finishes, the state is saved, exit 128 + the signal.
plan=$work/mlp.mixed_bfloat16.mpplan
for signal in TERM INT; do
  ckpt=$work/signal.$signal.safetensors
  "$bin/mp-run" "$plan" --synthetic --steps 100000000 --threads 2 --plain \
    --log-every 100000000 --checkpoint-every 1 --checkpoint "$ckpt" \
    > "$work/log" 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null || true' EXIT
  # The signal once the first checkpoint is there (a slow, instrumented
  # build takes a while to get there), while the next ones are written.
  for ((i = 0; i < 600; ++i)); do
    [[ -e $ckpt ]] && break
    sleep 0.2
  done
  kill -s "$signal" "$pid"
  status=0
  wait "$pid" || status=$?
  trap - EXIT
  expected=$((128 + $(kill -l "$signal")))
  if ((status != expected)) || ! grep -q "interrupted by SIG$signal" "$work/log"; then
    echo "mp-run-threads: SIG$signal: exit $status, expected $expected" >&2
    cat "$work/log"
    exit 1
  fi
  step=$(sed -n 's/.*the state after step \([0-9]*\) is in.*/\1/p' "$work/log")
  "$bin/mp-run" "$plan" --synthetic --steps $((step + 1)) --threads 2 \
    --resume "$ckpt" > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
  grep -q "trained 1 steps ($step to $((step + 1)))" "$work/log" ||
    { cat "$work/log"; exit 1; }
done
echo "mp-run-threads: ok"
