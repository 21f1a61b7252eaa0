#!/usr/bin/env bash
# The numbers of docs/benchmarks.md, "CPU backend (oneDNN)":
#   1. mp-bench-gemm: the cpu backend's matmul vs oneDNN called directly;
#   2. training steps with mp-run, float32 vs mixed_bfloat16, reference vs
#      cpu backend: examples/mlp.mlir (784-256-10, batch 32, 200 steps),
#      examples/cnn.mlir (batch 16, 28x28, 50 steps) and issue 5's MLP
#      (1024-4096-4096-1000, batch 256, bench/gen_models.py; cpu only, 20
#      steps: the reference backend needs ~7.6 s a step).
# Best of 3 runs each. Needs mp-compile (a compiler build) and mp-run /
# mp-bench-gemm from a build with oneDNN:
#   MP_COMPILER_BIN=build/bin MP_RUNTIME_BIN=build-cpu/bin bench/cpu_bench.sh OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cbin=${MP_COMPILER_BIN:-$root/build/bin}
rbin=${MP_RUNTIME_BIN:-$root/build/bin}
out=${1:-$root/build/cpu-bench}
mkdir -p "$out"

echo "== machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== GEMM (JSON in $out/gemm.json)"
"$rbin/mp-bench-gemm" --sizes 1024,2048,4096 --dtypes f32,bf16 --min-time 1.5 | tee "$out/gemm.json"

python3 "$root/bench/gen_models.py" mlp -o "$out/mlp_big.mlir"
for model in mlp cnn mlp_big; do
  src=$root/examples/$model.mlir
  [[ $model == mlp_big ]] && src=$out/mlp_big.mlir
  for policy in float32 mixed_bfloat16; do
    "$cbin/mp-compile" "$src" --mixed-precision="policy=$policy" -o "$out/$model.$policy.mpplan"
  done
done

# best_of_3 PLAN BACKEND STEPS: the shortest "trained ... in X s" of 3 runs.
best_of_3() {
  local best=""
  for _ in 1 2 3; do
    t=$("$rbin/mp-run" "$1" --synthetic --steps "$3" --plain --backend "$2" 2>&1 |
        sed -n 's/^trained .* in \([0-9.]*\) s.*/\1/p')
    if [[ -z $best ]] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
  done
  echo "$best"
}

echo "== training steps (ms per step, best of 3)"
printf '%-8s %-15s %-10s %6s %10s\n' model policy backend steps ms/step
for model in mlp cnn mlp_big; do
  steps=200; backends="reference cpu"
  if [[ $model == cnn ]]; then steps=50; fi
  if [[ $model == mlp_big ]]; then steps=20; backends=cpu; fi
  for backend in $backends; do
    for policy in float32 mixed_bfloat16; do
      s=$(best_of_3 "$out/$model.$policy.mpplan" "$backend" "$steps")
      printf '%-8s %-15s %-10s %6d %10.2f\n' "$model" "$policy" "$backend" "$steps" \
        "$(awk "BEGIN{print $s * 1000 / $steps}")"
    done
  done
done
