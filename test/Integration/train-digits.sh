#!/usr/bin/env bash
# End to end: the MLP example trains on scikit-learn's handwritten digits
# under float32, mixed_bfloat16 and mixed_float16 on the reference backend;
# the three test accuracies must be within one point of each other and well
# above chance (10%).
#
# usage: train-digits.sh BUILD_DIR SOURCE_DIR [STEPS]
set -euo pipefail
build=$1
src=$2
steps=${3:-600}
bin=$build/bin
work=$build/e2e/digits
mkdir -p "$work"

python3 "$src/data/get_digits.py" "$work/data" --cache "$build/e2e/cache" >/dev/null

declare -A accuracy
for policy in float32 mixed_bfloat16 mixed_float16; do
  "$bin/mp-compile" "$src/examples/mlp.mlir" --mixed-precision="policy=$policy" \
    -o "$work/mlp.$policy.mpplan"
  "$bin/mp-compile" "$src/examples/mlp.mlir" --mixed-precision="policy=$policy" \
    --eval -o "$work/mlp.$policy.eval.mpplan"
  "$bin/mp-run" "$work/mlp.$policy.mpplan" --plain --seed 1 --steps "$steps" \
    --train-x "$work/data/train_x.npy" --train-y "$work/data/train_y.npy" \
    --eval-plan "$work/mlp.$policy.eval.mpplan" \
    --test-x "$work/data/test_x.npy" --test-y "$work/data/test_y.npy" \
    --log-every 100 --metrics "$work/metrics.$policy.jsonl" \
    2> "$work/log.$policy.txt" | tee "$work/summary.$policy.txt"
  acc=$(sed -n 's/^eval step [0-9]*: loss [0-9.]* accuracy \([0-9.]*\)%.*/\1/p' \
        "$work/log.$policy.txt" | tail -n 1)
  if [[ -z $acc ]]; then
    echo "no evaluation result for $policy:"; cat "$work/log.$policy.txt"; exit 1
  fi
  accuracy[$policy]=$acc
  echo "$policy: test accuracy $acc%"
done

python3 - "${accuracy[float32]}" "${accuracy[mixed_bfloat16]}" "${accuracy[mixed_float16]}" <<'PY'
import sys
names = ["float32", "mixed_bfloat16", "mixed_float16"]
acc = [float(a) for a in sys.argv[1:]]
ok = True
for name, a in zip(names, acc):
    if a < 80.0:
        print(f"FAIL: {name} reached only {a:.2f}% (chance is 10%)"); ok = False
spread = max(acc) - min(acc)
if spread > 1.0:
    print(f"FAIL: accuracies differ by {spread:.2f} points (> 1)"); ok = False
print("accuracies:", ", ".join(f"{n} {a:.2f}%" for n, a in zip(names, acc)),
      f"(spread {spread:.2f} points)")
sys.exit(0 if ok else 1)
PY
