#!/usr/bin/env bash
# End to end from a framework: export FRAMEWORK's MODEL training step with
# python/mp_export, compile it under float32, mixed_bfloat16 and
# mixed_float16, train it with mp-run on the digits from the framework's
# initial parameters, in the same batch order as the framework's own float32
# training, and check:
#   - float32: the first 20 per-step losses match the framework's to 1e-4
#     relative, or are as close to the same training in float64 (the
#     exporter runs it too) as the framework's float32 losses are: a
#     framework whose sums round more than mp's is not matched to 1e-4
#     (TensorFlow's batch norm: docs/runtime-reference.md);
#   - mixed_bfloat16 / mixed_float16: the mean loss of the last 10 of STEPS
#     steps is within FINAL_TOL of the framework's float32 one;
#   - after one float32 step every state tensor is within 1e-4 (of its
#     largest magnitude) of the same step in float64;
#   - after 20 float32 steps every state tensor (params, batch-norm running
#     statistics, optimizer state) matches the framework's to 3e-2 of its
#     largest magnitude (measured: 3e-7 on the MLPs, 1e-2 on the CNNs, whose
#     batch-norm and conv1 gradients are sums with heavy cancellation that
#     momentum accumulates; 2e-4 after one step), or is as close to the
#     float64 training's state as the framework's float32 one is; a
#     convention slip (momentum buffer sign or scale, batch-norm momentum)
#     is off by 0.1 to 1;
#   - the float32 checkpoint loads back into the framework (state_dict names
#     or Keras variable paths) and gives mp-run's test loss and accuracy.
#
# usage: export-train.sh BUILD_DIR SOURCE_DIR FRAMEWORK MODEL [STEPS] [FINAL_TOL]
#   FRAMEWORK is torch or keras; MODEL as in examples/frameworks/*_models.py.
# The frameworks live in SOURCE_DIR/.venv (scripts/setup.sh makes it);
# MP_PYTHON overrides. Exits 77 (skipped) only when the framework cannot be
# imported, saying why.
set -euo pipefail
build=$1
src=$2
framework=$3
model=$4
steps=${5:-200}
final_tol=${6:-0.05}
bin=$build/bin
python=${MP_PYTHON:-$src/.venv/bin/python}
work=$build/e2e/exporters/${framework}_$model
mkdir -p "$work"

module=$([[ $framework == torch ]] && echo torch || echo keras)
if ! [[ -x $python ]]; then
  echo "SKIPPED: no Python environment at $python; run scripts/setup.sh (it installs $module)"
  exit 77
fi
if ! "$python" -c "import $module" >/dev/null 2>&1; then
  echo "SKIPPED: $python cannot import $module:"
  "$python" -c "import $module" 2>&1 | tail -n 3
  exit 77
fi
export PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH}

# The exporter tests share one wheel cache, fetched once under a lock (ctest
# runs them in parallel); the other e2e tests keep theirs.
cache=$build/e2e/cache-exporters
mkdir -p "$cache"
flock "$cache.lock" python3 "$src/data/get_digits.py" "$work/data" --cache "$cache" >/dev/null
data=$work/data
stem=${framework}_$model

"$python" "$src/examples/frameworks/${framework}_digits.py" export "$model" \
  --data "$data" --out "$work" --steps "$steps"

status=0
for policy in float32 mixed_bfloat16 mixed_float16; do
  "$bin/mp-compile" "$work/$stem.mlir" --mixed-precision="policy=$policy" \
    -o "$work/$stem.$policy.mpplan"
  "$bin/mp-compile" "$work/$stem.mlir" --mixed-precision="policy=$policy" --eval \
    -o "$work/$stem.$policy.eval.mpplan"
  "$bin/mp-run" "$work/$stem.$policy.mpplan" --plain --no-shuffle --steps "$steps" \
    --train-x "$data/train_x.npy" --train-y "$data/train_y.npy" \
    --init-params "$work/$stem.init.safetensors" \
    --eval-plan "$work/$stem.$policy.eval.mpplan" \
    --test-x "$data/test_x.npy" --test-y "$data/test_y.npy" \
    --log-every 1 --metrics "$work/metrics.$policy.jsonl" \
    --checkpoint "$work/$stem.$policy.safetensors" \
    2> "$work/log.$policy.txt" > "$work/summary.$policy.txt"
  tail -n 1 "$work/log.$policy.txt"
  if [[ $policy == float32 ]]; then
    "$python" -m mp_export.compare "$work/$stem.reference.json" \
      "$work/metrics.$policy.jsonl" --steps 20 --rtol 1e-4 --label "$stem $policy" || status=1
  else
    "$python" -m mp_export.compare "$work/$stem.reference.json" \
      "$work/metrics.$policy.jsonl" --final-tol "$final_tol" --label "$stem $policy" || status=1
  fi
done

# One float32 step against the same step in float64: the state after it
# holds the step's gradients (momentum buffers), measured before two
# trainings can drift apart. 1e-4 of each tensor's largest magnitude: mp's
# f64 sums give <= 2e-5 on every model here (the convolutions' own f32
# sums), the f32 sums it had before 1e-3 to 5e-3 on the ResNet blocks;
# TensorFlow's float32 step is off by 6e-4 (resnet) and 3e-2 (cnn).
"$bin/mp-run" "$work/$stem.float32.mpplan" --plain --no-shuffle --steps 1 \
  --train-x "$data/train_x.npy" --train-y "$data/train_y.npy" \
  --init-params "$work/$stem.init.safetensors" \
  --checkpoint "$work/$stem.step1.safetensors" > /dev/null 2>&1
"$python" -m mp_export.compare --state "$work/$stem.reference64-step1.safetensors" \
  "$work/$stem.step1.safetensors" --rtol 1e-4 \
  --framework "$work/$stem.reference-step1.safetensors" \
  --label "$stem float32 step 1 against float64" || status=1

# State after 20 float32 steps (params, batch-norm running statistics,
# optimizer state) against the framework's: what losses cannot see.
"$bin/mp-run" "$work/$stem.float32.mpplan" --plain --no-shuffle --steps 20 \
  --train-x "$data/train_x.npy" --train-y "$data/train_y.npy" \
  --init-params "$work/$stem.init.safetensors" \
  --checkpoint "$work/$stem.step20.safetensors" > /dev/null 2>&1
"$python" -m mp_export.compare --state "$work/$stem.reference-step20.safetensors" \
  "$work/$stem.step20.safetensors" --rtol 3e-2 \
  --exact "$work/$stem.reference64-step20.safetensors" \
  --label "$stem float32 state after 20 steps" || status=1

# The trained float32 checkpoint, loaded back into the framework.
"$python" "$src/examples/frameworks/${framework}_digits.py" load "$model" \
  "$work/$stem.float32.safetensors" --data "$data" > "$work/loaded.json"
"$python" - "$work/loaded.json" "$work/log.float32.txt" <<'PY' || status=1
import json, re, sys
loaded = json.load(open(sys.argv[1]))
line = [l for l in open(sys.argv[2]) if l.startswith("eval step")][-1]
loss, acc = map(float, re.search(r"loss ([0-9.]+) accuracy ([0-9.]+)%", line).groups())
ok = abs(loaded["test_loss"] - loss) <= 1e-3 * max(loss, 1e-3) + 1e-4 \
    and abs(100 * loaded["test_accuracy"] - acc) <= 0.5
print("%s: checkpoint loaded back into the framework: test loss %.4f accuracy %.2f%% "
      "(mp-run: %.4f, %.2f%%)%s" % ("ok" if ok else "FAIL", loaded["test_loss"],
                                    100 * loaded["test_accuracy"], loss, acc,
                                    "; not in the checkpoint: %s" % loaded["not_in_checkpoint"]
                                    if loaded["not_in_checkpoint"] else ""))
sys.exit(0 if ok else 1)
PY
exit $status
