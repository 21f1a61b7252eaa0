#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build,
# compile the example training steps under each mixed-precision policy, then
# train the MLP on the handwritten digits for a few hundred steps with
# mp-run and evaluate it on a held-out split.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${MP_BUILD_DIR:-$root/build}
bin=$build/bin
out=$build/demo
mkdir -p "$out"

echo "== compiling the examples under every policy (mp-opt --mp-mixed-precision)"
for example in mlp cnn transformer; do
  for policy in float32 mixed_bfloat16 mixed_float16; do
    "$bin/mp-opt" "$root/examples/$example.mlir" \
      --mp-mixed-precision="policy=$policy summary=true report=$out/$example.$policy.json" \
      -o "$out/$example.$policy.mlir" 2>&1 | grep "remark: " | sed "s|^.*remark: |   $example $policy: |"
  done
done

policy=${MP_DEMO_POLICY:-mixed_float16}
steps=${MP_DEMO_STEPS:-400}
echo
echo "== training examples/mlp.mlir on the digits, policy $policy, $steps steps"
python3 "$root/data/get_digits.py" "$out/digits" >/dev/null
"$bin/mp-compile" "$root/examples/mlp.mlir" --mixed-precision="policy=$policy" -o "$out/mlp.mpplan"
"$bin/mp-compile" "$root/examples/mlp.mlir" --mixed-precision="policy=$policy" --eval -o "$out/mlp.eval.mpplan"
"$bin/mp-run" "$out/mlp.mpplan" --verbose --plain --seed 1 --steps "$steps" --log-every 50 \
  --train-x "$out/digits/train_x.npy" --train-y "$out/digits/train_y.npy" \
  --eval-plan "$out/mlp.eval.mpplan" --test-x "$out/digits/test_x.npy" --test-y "$out/digits/test_y.npy" \
  --checkpoint "$out/mlp.safetensors" --metrics "$out/metrics.jsonl"
echo
echo "Compiled steps, reports, plans, the checkpoint and metrics are in $out."
