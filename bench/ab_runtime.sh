#!/usr/bin/env bash
# Two runtimes side by side on the same plans: mp-run from OLD_BIN and from
# NEW_BIN, alternating (old, new, old, new, ...) for ROUNDS rounds, each run
# STEPS steps of synthetic data on the cpu backend; prints per plan the best
# ms/step of each and new/old. For "no step slower" checks of runtime
# changes (docs/benchmarks.md):
#   bench/ab_runtime.sh OLD_BIN NEW_BIN PLAN...
# env: ROUNDS (default 3), STEPS (default 10), BACKEND (default cpu),
# OLD_PLANS: a directory with the old runtime's plans of the same names
# (after a plan format change, each side reads its own version).
set -euo pipefail
old=$1 new=$2
shift 2
rounds=${ROUNDS:-3} steps=${STEPS:-10} backend=${BACKEND:-cpu}
echo "== machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $rounds rounds, $steps steps per run, backend $backend"
ms() { # BIN PLAN -> ms per step (mp-run's own timing of the steps)
  "$1/mp-run" "$2" --synthetic --synthetic-samples 512 --steps "$steps" \
    --plain --backend "$backend" 2>&1 |
    sed -n 's/^trained .* in \([0-9.]*\) s.*/\1/p' |
    awk -v s="$steps" '{printf "%.1f", $1 * 1000 / s}'
}
printf "%-40s %10s %10s %8s\n" plan "old ms" "new ms" new/old
for plan in "$@"; do
  best_old="" best_new=""
  for ((r = 0; r < rounds; ++r)); do
    old_plan=$plan
    [[ -n ${OLD_PLANS:-} ]] && old_plan=$OLD_PLANS/$(basename "$plan")
    a=$(ms "$old" "$old_plan"); b=$(ms "$new" "$plan")
    best_old=$(awk -v x="$a" -v y="${best_old:-1e30}" 'BEGIN{print (x < y) ? x : y}')
    best_new=$(awk -v x="$b" -v y="${best_new:-1e30}" 'BEGIN{print (x < y) ? x : y}')
  done
  printf "%-40s %10s %10s %8s\n" "$(basename "$plan")" "$best_old" "$best_new" \
    "$(awk -v a="$best_old" -v b="$best_new" 'BEGIN{printf "%.3f", b / a}')"
done
