#!/usr/bin/env bash
# The GPU check of issue 7, on a machine with an NVIDIA GPU (sm_80 or newer),
# the CUDA toolkit (nvcc, cuBLASLt) and GoogleTest; about 3-5 minutes, at
# most 8 (each stage has a timeout):
#   1. builds the runtime only (no LLVM needed, no oneDNN) into build-gpu,
#      with one job per core;
#   2. runs the cuda backend's tests (every kernel against the reference
#      backend, sessions, checkpoints);
#   3. mp-bench-cuda-gemm: train.matmul on the cuda backend vs cuBLASLt
#      called directly, 4096^3, bf16 / f16 / f32 (target: bf16 >= 0.9x);
#   2b. NCCL: its tests over one rank (in 2.), and a data-parallel step over
#      2 ranks where the machine has 2 GPUs and mpirun;
#   4. training steps with mp-run --backend cuda: issue 5's MLP
#      (1024-4096-4096-1000, batch 256) and the transformer of
#      bench/gen_models.py under float32 (no TF32), mixed_bfloat16 and
#      mixed_float16 (target: the mixed policies >= 2x float32);
#   5. examples/mlp.mlir trained on the digits with mp-run --backend cuda
#      under the three policies, with test/Integration/train-digits.sh's
#      bounds (each >= 80%, within one point of each other), when the
#      digits are in $MP_GPU_CHECK_DIGITS (default build-gpu-data/digits)
#      or data/get_digits.py can fetch them;
# and prints a summary. Plans: bench/plans/*.mpplan (compiled on a machine
# with the compiler), or fresh ones when MP_COMPILER_BIN names a directory
# with mp-compile.
#
#   scripts/gpu-check.sh [OUT_DIR]      # default build-gpu/gpu-check
#   scripts/gpu-check.sh --make-plans   # refresh bench/plans and fetch the
#                                       # digits into build-gpu-data/digits
#                                       # (no GPU needed; needs mp-compile)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
models=(mlp_big transformer)
policies=(float32 mixed_bfloat16 mixed_float16)

# make_plans DIR COMPILER_BIN: compiles every model under every policy, and
# examples/mlp.mlir's training and evaluation steps for the digits.
make_plans() {
  local dir=$1 cbin=$2 tmp
  tmp=$(mktemp -d)
  python3 "$root/bench/gen_models.py" mlp -o "$tmp/mlp_big.mlir"
  python3 "$root/bench/gen_models.py" transformer -o "$tmp/transformer.mlir"
  for policy in "${policies[@]}"; do
    for model in "${models[@]}"; do
      "$cbin/mp-compile" "$tmp/$model.mlir" --mixed-precision="policy=$policy" \
        -o "$dir/$model.$policy.mpplan"
    done
    "$cbin/mp-compile" "$root/examples/mlp.mlir" --mixed-precision="policy=$policy" \
      -o "$dir/mlp.$policy.mpplan"
    "$cbin/mp-compile" "$root/examples/mlp.mlir" --mixed-precision="policy=$policy" \
      --eval -o "$dir/mlp.$policy.eval.mpplan"
  done
  "$cbin/mp-compile" "$root/examples/mlp.mlir" \
    --mixed-precision="policy=mixed_bfloat16 data-parallel=allreduce" \
    -o "$dir/mlp.allreduce.mpplan"
  rm -rf "$tmp"
}

digits=${MP_GPU_CHECK_DIGITS:-$root/build-gpu-data/digits}
if [[ ${1:-} == --make-plans ]]; then
  make_plans "$root/bench/plans" "${MP_COMPILER_BIN:-$root/build/bin}"
  echo "gpu-check: wrote bench/plans/*.mpplan"
  if python3 "$root/data/get_digits.py" "$digits" >/dev/null; then
    echo "gpu-check: the digits are in $digits (carry it to the GPU machine)"
  else
    echo "gpu-check: could not fetch the digits into $digits" >&2
  fi
  exit 0
fi

build=${MP_GPU_BUILD_DIR:-$root/build-gpu}
out=${1:-$build/gpu-check}
mkdir -p "$out"
started=$SECONDS
summary=()
note() { summary+=("$1"); echo "== $1"; }

echo "== machine: $(nproc) CPUs"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
else
  echo "gpu-check: nvidia-smi not found" >&2
fi

# 1. Build (runtime only). MP_GPU_CHECK_SKIP_BUILD=1 reuses $build as it is.
echo "== build ($build)"
if [[ ${MP_GPU_CHECK_SKIP_BUILD:-0} == 1 ]]; then
  note "build: skipped (MP_GPU_CHECK_SKIP_BUILD=1)"
elif ! timeout 300 bash -c "
    cmake -S '$root' -B '$build' -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DMP_ENABLE_COMPILER=OFF -DMP_ENABLE_ONEDNN=OFF -DMP_ENABLE_CUDA=ON \
      >'$out/configure.log' 2>&1 &&
    cmake --build '$build' -j '$(nproc)' >'$out/build.log' 2>&1"; then
  echo "gpu-check: the build failed; the end of its log:" >&2
  tail -30 "$out/configure.log" "$out/build.log" 2>/dev/null >&2 || true
  exit 1
else
  note "build: ok ($((SECONDS - started)) s)"
fi

# 2. Tests.
tests=failed
if timeout 180 "$build/runtime/CudaBackendTests" >"$out/tests.log" 2>&1; then
  tests=passed
fi
skipped=$(grep -cE '^\[  SKIPPED \] (Cuda|Nccl).* ms\)$' "$out/tests.log" || true)
counts=$(grep -E '^\[  (PASSED|FAILED) ' "$out/tests.log" | tr '\n' ' ' || true)
if ((skipped > 0)); then
  tests="$tests, but $skipped GPU tests were SKIPPED (not run on a GPU)"
fi
note "cuda tests: $tests: $counts(log $out/tests.log)"
if [[ $tests != passed ]]; then
  grep -E '^\[  FAILED  \]|Failure|error' "$out/tests.log" | head -20 || true
fi
if ((skipped > 0)); then
  grep -m1 -A1 'Skipped' "$out/tests.log" || true
fi

# 2b. NCCL (issue 42): the communicator's tests over one rank (in the run
# above), and with 2 GPUs, MPI and the plans, a data-parallel step over 2
# ranks against 1 process with the global batch (docs/distributed.md).
nccl_passed=$(grep -cE '^\[       OK \] NcclCommunicatorTest' "$out/tests.log" || true)
nccl_failed=$(grep -cE '^\[  FAILED  \] NcclCommunicatorTest' "$out/tests.log" || true)
nccl_skipped=$(grep -cE '^\[  SKIPPED \] NcclCommunicatorTest' "$out/tests.log" || true)
note "NCCL on one GPU: $nccl_passed passed, $nccl_failed failed, $nccl_skipped skipped"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
dp=$root/bench/plans/mlp.allreduce.mpplan
if ((gpus < 2)); then
  note "NCCL over 2 ranks: not run ($gpus GPU: NCCL refuses two ranks on one device)"
elif ! command -v mpirun >/dev/null || [[ ! -f $dp ]]; then
  note "NCCL over 2 ranks: not run (no mpirun, or no $dp: --make-plans)"
else
  timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$build/bin/mp-run" "$dp" \
    --synthetic --synthetic-samples 512 --seed 3 --steps 50 --plain --log-every 10 \
    --backend cuda --verbose >"$out/nccl2.log" 2>&1 || true
  if grep -q 'nccl communicator' "$out/nccl2.log" && grep -q '^trained' "$out/nccl2.log"; then
    note "NCCL over 2 ranks: trained: $(grep '^trained' "$out/nccl2.log" | head -1) (log $out/nccl2.log)"
  else
    note "NCCL over 2 ranks: FAILED (log $out/nccl2.log): $(tail -2 "$out/nccl2.log" | tr '\n' ' ')"
  fi
fi

# 3. GEMM.
echo "== GEMM (JSON in $out/gemm.json)"
if timeout 120 "$build/bin/mp-bench-cuda-gemm" --sizes 4096 \
    --dtypes bf16,f16,f32 >"$out/gemm.json" 2>"$out/gemm.log"; then
  cat "$out/gemm.json"
  ratio=$(sed -n 's/.*"dtype": "bf16".*"ours_vs_cublaslt": \([0-9.]*\).*/\1/p' "$out/gemm.json")
  verdict=$(awk "BEGIN{print ($ratio >= 0.9) ? \"met\" : \"MISSED\"}")
  note "bf16 GEMM 4096^3: ours / cuBLASLt direct = ${ratio}x (target >= 0.9x: $verdict)"
else
  note "GEMM benchmark failed: $(tail -3 "$out/gemm.log")"
fi

# 4. Training steps.
plans=$root/bench/plans
if [[ -n ${MP_COMPILER_BIN:-} && -x $MP_COMPILER_BIN/mp-compile ]]; then
  plans=$out/plans
  mkdir -p "$plans"
  make_plans "$plans" "$MP_COMPILER_BIN"
fi
# step_ms PLAN STEPS: ms per step of the best of 2 runs; mp-run's time
# includes the first step (cuBLASLt's algorithm choice, the workspace), a
# small share of 50-100 steps. MP_GPU_CHECK_STEPS overrides the counts.
step_ms() {
  local best="" t
  for _ in 1 2; do
    timeout 120 "$build/bin/mp-run" "$1" --synthetic --synthetic-samples 1024 \
      --steps "$2" --plain --log-every 1000 --backend cuda >"$out/run.log" 2>&1 || true
    cat "$out/run.log" >>"$out/steps.log"
    # A CPU fallback is no GPU measurement.
    if grep -q 'falling back' "$out/run.log"; then echo "no-gpu"; return; fi
    t=$(sed -n 's/^trained .* in \([0-9.]*\) s.*/\1/p' "$out/run.log")
    [[ -z $t ]] && continue
    if [[ -z $best ]] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
  done
  [[ -z $best ]] && { echo "failed"; return; }
  awk "BEGIN{printf \"%.2f\", $best * 1000 / $2}"
}
echo "== training steps (ms per step, best of 2; log $out/steps.log)"
printf '%-12s %-15s %10s\n' model policy ms/step
for model in "${models[@]}"; do
  steps=100
  [[ $model == transformer ]] && steps=50
  steps=${MP_GPU_CHECK_STEPS:-$steps}
  declare -A ms=()
  for policy in "${policies[@]}"; do
    ms[$policy]=$(step_ms "$plans/$model.$policy.mpplan" "$steps")
    printf '%-12s %-15s %10s\n' "$model" "$policy" "${ms[$policy]}"
  done
  for policy in mixed_bfloat16 mixed_float16; do
    if [[ ${ms[float32]} == no-gpu || ${ms[$policy]} == no-gpu ]]; then
      note "$model $policy: not measured: mp-run fell back to the CPU (no usable GPU)"
    elif [[ ${ms[float32]} != failed && ${ms[$policy]} != failed ]]; then
      speedup=$(awk "BEGIN{printf \"%.2f\", ${ms[float32]} / ${ms[$policy]}}")
      verdict=$(awk "BEGIN{print ($speedup >= 2) ? \"met\" : \"MISSED\"}")
      note "$model $policy: ${ms[$policy]} ms/step vs float32 ${ms[float32]} ms: ${speedup}x (target >= 2x: $verdict)"
    else
      note "$model $policy: a run failed (see $out/steps.log)"
    fi
  done
  unset ms
done

# 5. Accuracy on the digits (test/Integration/train-digits.sh's bounds).
echo "== digits (examples/mlp.mlir, 600 steps, log $out/digits.log)"
if [[ ! -f $digits/train_x.npy ]]; then
  timeout 120 python3 "$root/data/get_digits.py" "$digits" >/dev/null 2>&1 || true
fi
if [[ ! -f $digits/train_x.npy ]]; then
  note "digits: not measured: no data in $digits (scripts/gpu-check.sh --make-plans fetches it elsewhere; carry it)"
else
  declare -A acc=()
  for policy in "${policies[@]}"; do
    timeout 120 "$build/bin/mp-run" "$plans/mlp.$policy.mpplan" --plain --seed 1 \
      --steps 600 --backend cuda --log-every 100 \
      --train-x "$digits/train_x.npy" --train-y "$digits/train_y.npy" \
      --eval-plan "$plans/mlp.$policy.eval.mpplan" \
      --test-x "$digits/test_x.npy" --test-y "$digits/test_y.npy" \
      >"$out/run.log" 2>&1 || true
    cat "$out/run.log" >>"$out/digits.log"
    if grep -q 'falling back' "$out/run.log"; then
      acc[$policy]=no-gpu
    else
      acc[$policy]=$(sed -n 's/^eval step [0-9]*: loss [0-9.]* accuracy \([0-9.]*\)%.*/\1/p' \
        "$out/run.log" | tail -n 1)
    fi
  done
  if [[ " ${acc[*]} " == *" no-gpu "* ]]; then
    note "digits: not measured: mp-run fell back to the CPU (no usable GPU)"
  elif [[ -z ${acc[float32]} || -z ${acc[mixed_bfloat16]} || -z ${acc[mixed_float16]} ]]; then
    note "digits: a run failed (see $out/digits.log)"
  else
    verdict=$(awk -v a="${acc[float32]}" -v b="${acc[mixed_bfloat16]}" -v c="${acc[mixed_float16]}" \
      'BEGIN{lo=a; hi=a; if(b<lo)lo=b; if(c<lo)lo=c; if(b>hi)hi=b; if(c>hi)hi=c;
             print (lo >= 80 && hi - lo <= 1) ? "met" : "MISSED"}')
    note "digits test accuracy: float32 ${acc[float32]}%, mixed_bfloat16 ${acc[mixed_bfloat16]}%, mixed_float16 ${acc[mixed_float16]}% (bounds: each >= 80%, spread <= 1 point: $verdict)"
  fi
fi

echo
echo "== summary ($((SECONDS - started)) s)"
printf '  %s\n' "${summary[@]}"
