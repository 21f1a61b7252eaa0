# Sourced by the CPU step benchmarks (cpu_bench.sh, cpu_policies.sh); needs
# $rbin (the runtime's bin directory) and $runs.
#
# run_once PLAN BACKEND STEPS: one mp-run on synthetic data, as
# "ms_per_step cast_ms_per_step arena_bytes saved_bytes" (mp-run's own
# timing of the steps, --profile's mp.cast row, --verbose's memory line).
run_once() {
  local log
  log=$("$rbin/mp-run" "$1" --synthetic --synthetic-samples 512 --steps "$3" \
        --plain --backend "$2" --profile --verbose 2>&1)
  local secs cast arena saved
  secs=$(sed -n 's/^trained .* in \([0-9.]*\) s.*/\1/p' <<<"$log")
  cast=$(awk '$1 == "mp.cast" {print $2}' <<<"$log")
  arena=$(sed -n 's/^mp-run: memory: arena \([0-9]*\) bytes.*/\1/p' <<<"$log")
  saved=$(sed -n 's/^mp-run: memory: .* backward pass \([0-9]*\) bytes.*/\1/p' <<<"$log")
  echo "$(awk "BEGIN{print $secs * 1000 / $3}") ${cast:-0} $arena $saved"
}

# best_of PLAN BACKEND STEPS: the run with the shortest step time of $runs.
best_of() {
  local best="" line
  for ((r = 0; r < runs; ++r)); do
    line=$(run_once "$@")
    if [[ -z $best ]] || awk "BEGIN{exit !(${line%% *} < ${best%% *})}"; then
      best=$line
    fi
  done
  echo "$best"
}
