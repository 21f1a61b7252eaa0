#!/usr/bin/env bash
# The libFuzzer targets of fuzz/ (docs/reliability.md, "Fuzzing"), built
# with clang, coverage instrumentation, ASan and UBSan in build-fuzz (or
# $MP_FUZZ_BUILD_DIR); without oneDNN and CUDA (the targets run the
# reference backend).
#
#   scripts/fuzz.sh build              configure (once) and build the targets
#   scripts/fuzz.sh smoke              build, then 5 s of each target (ctest -L fuzz)
#   scripts/fuzz.sh run TARGET [SECS]  fuzz one target (plan, safetensors, json,
#                                      npy, policy, mlir) for SECS seconds (default
#                                      3600) on a copy of its seeds, in
#                                      build-fuzz/runs/TARGET; crashes land there
#
# A crash found is minimized (libFuzzer's -minimize_crash=1) and its input
# goes into fuzz/corpus/TARGET, where the replay test of every build runs
# it from then on. Needs clang (Debian's clang, with its libFuzzer runtime);
# prints why and exits 77 (skipped) where there is none.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MP_FUZZ_BUILD_DIR:-$root/build-fuzz}
cmd=${1:-smoke}

. "$root/scripts/common.sh"
if ! find_clang; then
  echo "fuzz: no clang found (apt install clang); the fuzz targets need libFuzzer"
  exit 77
fi
fuzzer_lib=$("$cc" -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
if [[ ! -f $fuzzer_lib ]] && ! "$cc" -fsanitize=fuzzer -x c /dev/null -o /dev/null 2>/dev/null <<<'int LLVMFuzzerTestOneInput(const char*d,long s){return 0;}'; then
  echo "fuzz: $cc has no libFuzzer runtime (apt install libclang-rt-dev or clang's full package)"
  exit 77
fi

sanitizers="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
configure_instrumented "$build" "$cc" "$cxx" "$sanitizers" \
  -DMP_ENABLE_FUZZERS=ON -DMP_ENABLE_ONEDNN=OFF -DMP_ENABLE_CUDA=OFF
targets=(plan safetensors json npy policy mlir)
cmake --build "$build" -j "$(nproc)" --target $(printf 'mp-fuzz-%s ' "${targets[@]}")

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
case $cmd in
  build) ;;
  smoke)
    ctest --test-dir "$build" -L fuzz -R fuzz-smoke --output-on-failure ;;
  run)
    target=${2:?usage: scripts/fuzz.sh run TARGET [SECONDS]}
    seconds=${3:-3600}
    runs=$build/runs/$target
    mkdir -p "$runs"
    rm -rf "$runs/corpus" && cp -r "$root/fuzz/corpus/$target" "$runs/corpus"
    # The plan seeds of the current format, written by the build.
    if [[ -d $build/fuzz-seeds/$target ]]; then
      cp "$build/fuzz-seeds/$target"/* "$runs/corpus/"
    fi
    cd "$runs"
    # -fork / -ignore_crashes: go on past a crash (MLIR's own parsers crash
    # on some malformed IR, docs/reliability.md); each lands in $runs.
    "$build/bin/mp-fuzz-$target" -max_total_time="$seconds" -rss_limit_mb=4096 \
      -print_final_stats=1 -fork=1 -ignore_crashes=1 corpus ;;
  *)
    echo "usage: scripts/fuzz.sh build|smoke|run TARGET [SECONDS]" >&2
    exit 2 ;;
esac
