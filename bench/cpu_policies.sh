#!/usr/bin/env bash
# float32, mixed_bfloat16 and mixed_float16 steps of the issue-size models
# on the cpu backend of this machine, in one run, the three policies
# alternating run by run (a busy moment of the machine hits all three; the
# best run of each counts): the MLP 1024-4096-4096-1000 at batch 256, the
# CNN on 32x32x3 at batch 64, the Transformer block (d_model 512, 8 heads,
# sequence 128, batch 16) from bench/gen_models.py. Also prints the CPU's
# features (after MP_MAX_CPU_ISA, which a run may set to see a lesser CPU's
# paths) and what mp-run says about each 16-bit policy here, and keeps each
# plan's --profile of its best run.
#
#   MP_BENCH_RUNS=5 bench/cpu_policies.sh OUT_DIR     (default: 3 runs)
#   MP_COMPILER_BIN / MP_RUNTIME_BIN: where mp-compile / mp-run are
#     (default build/bin).
# JSON in OUT_DIR/policies.json; per-op profiles in OUT_DIR/*.profile.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cbin=${MP_COMPILER_BIN:-$root/build/bin}
rbin=${MP_RUNTIME_BIN:-$root/build/bin}
out=${1:-$root/build/cpu-policies}
runs=${MP_BENCH_RUNS:-3}
policies=(float32 mixed_bfloat16 mixed_float16)
mkdir -p "$out"
source "$root/bench/step_timing.sh"

echo "== machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1-3 /proc/loadavg)"
for model in mlp cnn transformer; do
  python3 "$root/bench/gen_models.py" "$model" -o "$out/$model.mlir"
  for policy in "${policies[@]}"; do
    "$cbin/mp-compile" "$out/$model.mlir" --mixed-precision="policy=$policy" \
      -o "$out/$model.$policy.mpplan"
  done
done
"$rbin/mp-run" "$out/mlp.float32.mpplan" --synthetic --steps 1 --verbose 2>&1 |
  sed -n 's/^mp-run: \(backend\|CPU features\): /== \1: /p'
for policy in mixed_bfloat16 mixed_float16; do
  "$rbin/mp-run" "$out/mlp.$policy.mpplan" --synthetic --steps 1 2>&1 |
    sed -n 's/^mp-run: warning: /== warning: /p'
done

echo "== ms per step, cpu backend, best of $runs alternating runs"
printf '  %-12s %12s %15s %14s %10s %10s\n' model float32 mixed_bfloat16 mixed_float16 bf16/f32 f16/f32
json="["
for model in mlp cnn transformer; do
  steps=20
  [[ $model == mlp ]] && steps=10
  declare -A best=()
  for ((r = 0; r < runs; ++r)); do
    for policy in "${policies[@]}"; do
      line=$(run_once "$out/$model.$policy.mpplan" cpu "$steps")
      if [[ -z ${best[$policy]:-} ]] ||
         awk "BEGIN{exit !(${line%% *} < ${best[$policy]%% *})}"; then
        best[$policy]=$line
      fi
    done
  done
  f32=${best[float32]%% *}; bf16=${best[mixed_bfloat16]%% *}; f16=${best[mixed_float16]%% *}
  printf '  %-12s %12.1f %15.1f %14.1f %10.2f %10.2f\n' "$model" "$f32" "$bf16" "$f16" \
    "$(awk "BEGIN{print $bf16 / $f32}")" "$(awk "BEGIN{print $f16 / $f32}")"
  for policy in "${policies[@]}"; do
    json+="{\"model\":\"$model\",\"policy\":\"$policy\",\"steps\":$steps,\"ms_per_step\":${best[$policy]%% *}},"
    "$rbin/mp-run" "$out/$model.$policy.mpplan" --synthetic --synthetic-samples 512 \
      --steps "$steps" --plain --profile 2>&1 | sed -n '/^profile/,$p' \
      > "$out/$model.$policy.profile.txt"
  done
  unset best
done
echo "${json%,}]" > "$out/policies.json"
