#!/usr/bin/env bash
# The numbers of docs/benchmarks.md, "CPU backend (oneDNN)":
#   1. mp-bench-gemm: the cpu backend's matmul vs oneDNN called directly
#      (1024-4096, f32 and bf16);
#   2. mp-bench-conv: the issue-size CNN's convolutions (forward, backward
#      data, backward filter) vs oneDNN called directly;
#   3. training steps at the issue's sizes (bench/gen_models.py), float32 vs
#      mixed_bfloat16 on the same graph and backend: the MLP
#      1024-4096-4096-1000 at batch 256, the CNN on 32x32x3 at batch 64, the
#      Transformer block (d_model 512, 8 heads, sequence 128, batch 16);
#      per step: time, standalone cast time (mp.cast in mp-run --profile)
#      and its share, the activations saved for the backward pass and the
#      scratch arena (the static plan's high-water mark of every temporary
#      of the step: activations, parameter copies, gradients), both from
#      mp-run --verbose (rt::planMemoryStats);
#   4. the examples (examples/mlp.mlir, cnn.mlir) on the reference and the
#      cpu backend;
#   5. PyTorch's step of the same MLP, float32 and autocast bf16
#      (bench/torch_steps.py), where .venv has torch.
# Best of 3 runs each. JSON in OUT_DIR (gemm.json, conv.json, steps.json).
# Needs mp-compile (a compiler build) and mp-run / mp-bench-* from a build
# with oneDNN:
#   MP_COMPILER_BIN=build/bin MP_RUNTIME_BIN=build/bin bench/cpu_bench.sh OUT_DIR
# MP_BENCH_QUICK=1: one run each and fewer steps (a smoke test);
# MP_BENCH_RUNS=N: best of N instead of 3.
# bench/cpu_tables.py OUT_DIR renders the JSON as docs/benchmarks.md's tables.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cbin=${MP_COMPILER_BIN:-$root/build/bin}
rbin=${MP_RUNTIME_BIN:-$root/build/bin}
out=${1:-$root/build/cpu-bench}
quick=${MP_BENCH_QUICK:-0}
runs=${MP_BENCH_RUNS:-3}; mintime=1.5
if [[ $quick == 1 ]]; then runs=1; mintime=0.2; fi
mkdir -p "$out"

echo "== machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== GEMM (JSON in $out/gemm.json)"
"$rbin/mp-bench-gemm" --sizes 1024,2048,4096 --dtypes f32,bf16 --min-time "$mintime" > "$out/gemm.json"
python3 - "$out/gemm.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['m']:5d}^3 {r['in']:>4}: ours {r['ours_gflops']:7.1f} GFLOPS, "
          f"oneDNN {r['onednn_gflops']:7.1f} GFLOPS, ours/oneDNN "
          f"{r['ours_over_onednn']:.3f}")
PY
echo "== CNN convolutions (JSON in $out/conv.json)"
"$rbin/mp-bench-conv" --min-time "$mintime" > "$out/conv.json"
python3 - "$out/conv.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['layer']} {r['op']:15s} {r['in']:>4}: ours {r['ours_ms']:7.3f} ms, "
          f"oneDNN plain {r['onednn_plain_ms']:8.3f} ms, blocked (no reorders) "
          f"{r['onednn_blocked_ms']:7.3f} ms; ours/blocked "
          f"{r['ours_over_onednn_blocked']:.2f}")
PY

# run_once / best_of: one mp-run timing (bench/step_timing.sh).
source "$root/bench/step_timing.sh"

for model in mlp cnn transformer; do
  python3 "$root/bench/gen_models.py" "$model" -o "$out/${model}_big.mlir"
done
compile() { # SRC NAME
  for policy in float32 mixed_bfloat16; do
    "$cbin/mp-compile" "$1" --mixed-precision="policy=$policy" \
      -o "$out/$2.$policy.mpplan"
  done
}
for model in mlp cnn transformer; do compile "$out/${model}_big.mlir" "${model}_big"; done
for model in mlp cnn; do compile "$root/examples/$model.mlir" "$model"; done

echo "== training steps at the issue's sizes, cpu backend (best of $runs)"
printf '  %-16s %-15s %10s %10s %7s %10s %10s\n' model policy ms/step cast-ms cast-% saved-MiB arena-MiB
json="["
declare -A step_ms arena_b saved_b
for model in mlp_big cnn_big transformer_big; do
  steps=20
  [[ $quick == 1 ]] && steps=4
  # The two policies alternate run by run, so that a busy moment of the
  # machine hits both; the best run of each counts.
  declare -A best=()
  for ((r = 0; r < runs; ++r)); do
    for policy in float32 mixed_bfloat16; do
      line=$(run_once "$out/$model.$policy.mpplan" cpu "$steps")
      if [[ -z ${best[$policy]:-} ]] ||
         awk "BEGIN{exit !(${line%% *} < ${best[$policy]%% *})}"; then
        best[$policy]=$line
      fi
    done
  done
  for policy in float32 mixed_bfloat16; do
    read -r ms cast arena saved <<<"${best[$policy]}"
    step_ms[$model.$policy]=$ms; arena_b[$model.$policy]=$arena
    saved_b[$model.$policy]=$saved
    pct=$(awk "BEGIN{printf \"%.1f\", 100 * $cast / $ms}")
    printf '  %-16s %-15s %10.2f %10.2f %7s %10.1f %10.1f\n' "$model" "$policy" \
      "$ms" "$cast" "$pct" "$(awk "BEGIN{print $saved / 1048576}")" \
      "$(awk "BEGIN{print $arena / 1048576}")"
    json+="{\"model\":\"$model\",\"policy\":\"$policy\",\"steps\":$steps,\"ms_per_step\":$ms,\"cast_ms_per_step\":$cast,\"cast_share\":$(awk "BEGIN{print $cast / $ms}"),\"saved_activation_bytes\":$saved,\"arena_bytes\":$arena},"
  done
  unset best
  printf '  %-16s speed-up %.2fx; mixed/fp32: saved activations %.2f, arena %.2f\n' \
    "$model" \
    "$(awk "BEGIN{print ${step_ms[$model.float32]} / ${step_ms[$model.mixed_bfloat16]}}")" \
    "$(awk "BEGIN{print ${saved_b[$model.mixed_bfloat16]} / ${saved_b[$model.float32]}}")" \
    "$(awk "BEGIN{print ${arena_b[$model.mixed_bfloat16]} / ${arena_b[$model.float32]}}")"
done
echo "${json%,}]" > "$out/steps.json"

echo "== the examples: reference vs cpu backend (ms per step, best of $runs)"
printf '  %-8s %-15s %-10s %10s\n' model policy backend ms/step
for model in mlp cnn; do
  steps=200; [[ $model == cnn ]] && steps=50
  [[ $quick == 1 ]] && steps=10
  for backend in reference cpu; do
    for policy in float32 mixed_bfloat16; do
      read -r ms _ _ _ <<<"$(best_of "$out/$model.$policy.mpplan" "$backend" "$steps")"
      printf '  %-8s %-15s %-10s %10.2f\n' "$model" "$policy" "$backend" "$ms"
    done
  done
done

# PyTorch on the same machine, same MLP step (bench/torch_steps.py), where
# scripts/setup.sh's .venv has torch (the exporters' environment).
py=$root/.venv/bin/python
if [[ -x $py ]] && "$py" -c 'import torch' 2>/dev/null; then
  echo "== PyTorch, the same MLP step (JSON in $out/torch.json)"
  # Debian's torch runs f32 GEMMs on a generic BLAS (~15 s a step): its
  # float32 step is timed once over 2 steps, autocast bf16 like ours.
  { "$py" "$root/bench/torch_steps.py" --runs "$runs" --steps 10 \
      --threads "$(nproc)" --policies autocast_bfloat16
    "$py" "$root/bench/torch_steps.py" --runs 1 --steps 2 \
      --threads "$(nproc)" --policies float32; } \
    | tee "$out/torch.json" | sed 's/^/  /'
else
  echo "== PyTorch: not measured ($py has no torch; scripts/setup.sh makes it)"
fi
