#!/usr/bin/env bash
# The residual stream in 16 bits or in f32 (mp-assign-precision's
# residual=low|f32, docs/precision.md): step time on the Transformer at the
# bench size (bench/gen_models.py transformer: d512 h8 s128 b16), the four
# configurations alternating round by round, best of ROUNDS; and the
# evaluation loss of the causal LM example after 1000 steps under each.
#
#   bash bench/residual.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
rounds=${2:-5}
bin=$build/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads"
python3 "$root/bench/gen_models.py" transformer -o "$out/transformer_big.mlir"
configs=("mixed_bfloat16 low" "mixed_bfloat16 f32" "mixed_float16 low" "mixed_float16 f32")
for cfg in "${configs[@]}"; do
  set -- $cfg
  "$bin/mp-compile" "$out/transformer_big.mlir" \
    --mixed-precision="policy=$1 residual=$2" -o "$out/t.$1.$2.plan"
done
declare -A best
for ((r = 0; r < rounds; ++r)); do
  for cfg in "${configs[@]}"; do
    set -- $cfg
    log=$("$bin/mp-run" "$out/t.$1.$2.plan" --synthetic --synthetic-samples 64 \
          --steps 6 --plain 2>&1)
    secs=$(sed -n 's/^trained .* in \([0-9.]*\) s.*/\1/p' <<<"$log")
    ms=$(awk "BEGIN{print $secs * 1000 / 6}")
    key="$1 $2"
    if [[ -z ${best[$key]:-} ]] || awk "BEGIN{exit !($ms < ${best[$key]})}"; then
      best[$key]=$ms
    fi
  done
done
echo "== Transformer d512 h8 s128 b16, cpu backend, ms/step (best of $rounds, alternating)"
for cfg in "${configs[@]}"; do
  printf '  %-16s residual=%-4s %8.1f\n' ${cfg% *} ${cfg#* } "${best[$cfg]}"
done

echo "== causal LM example, 1000 steps: evaluation loss (nats) and accuracy"
python3 "$root/examples/causal_lm.py" corpus "$out/lm" > /dev/null
for cfg in "float32 low" "${configs[@]}"; do
  set -- $cfg
  "$bin/mp-compile" "$root/examples/causal_lm.mlir" \
    --mixed-precision="policy=$1 residual=$2" -o "$out/lm.plan"
  "$bin/mp-compile" "$root/examples/causal_lm.mlir" \
    --mixed-precision="policy=$1 residual=$2" --eval -o "$out/lm.eval.plan"
  line=$("$bin/mp-run" "$out/lm.plan" --data "$out/lm/train.npz" --steps 1000 \
         --plain --log-every 1000 --eval-plan "$out/lm.eval.plan" \
         --eval-data "$out/lm/test.npz" --eval-every 1000 2>&1 |
         sed -n 's/^eval step 1000: loss \([0-9.]*\) accuracy \([0-9.]*%\).*/\1 \2/p')
  printf '  %-16s residual=%-4s %s\n' "$1" "$2" "$line"
done
