#!/usr/bin/env bash
# The test suite under the sanitizers (docs/reliability.md, "Sanitizers"):
#
#   scripts/sanitize.sh [gcc|clang|tsan]     (default gcc)
#
# gcc / clang: the whole project built with AddressSanitizer,
#   LeakSanitizer and UndefinedBehaviorSanitizer (build-san-gcc or
#   build-san-clang), with oneDNN as the normal build has it and without
#   CUDA (nvcc does not take the host sanitizers); every ctest test.
# tsan: the runtime and mp-run built with ThreadSanitizer (build-san-tsan,
#   no compiler: plans come from the normal build's mp-compile, which
#   scripts/build.sh makes when it is missing); the runtime's unit and
#   conformance tests (the thread pool under 1-3 threads on the cpu
#   backend) and e2e/mp-run-threads (mp-run on the example models with 2
#   and 3 threads, periodic checkpoints, SIGTERM / SIGINT mid-run, resume).
#
# A report ends its process at once and fails its test, with the report in
# ctest's output: the sanitizers abort on the first error with SIGABRT set
# back to its default first (handle_abort=1), so no handler of LLVM's
# (crash recovery, stack dumps) runs after a report, and a sanitizer that
# dies twice cannot spin; every test has a time limit besides.
#
# Run apart, after the others, with the one option each needs (and no
# other test gets it):
#   SessionCreateTest.HugeArenaIsAnErrorNotACrash and CApiTest.SessionErrors
#     ask for a 2^55-byte arena and check the error; ASan refuses such a
#     request by dying unless allocator_may_return_null=1;
#   DeviceMemorySessionDeathTest.MemoryIsGuarded writes to memory it has
#     just protected, on purpose, and expects the SIGSEGV; with
#     handle_segv=0 the sanitizer leaves that signal to the test.
#
# The build directory: $MP_SAN_BUILD_DIR (default build-san-<mode>); extra
# ctest arguments: MP_SAN_CTEST_ARGS (e.g. "-R CpuBackend"); per-test time
# limit: MP_SAN_TIMEOUT seconds (default 1800).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/common.sh"
start=$SECONDS
mode=${1:-gcc}
case $mode in
  gcc) cc=gcc; cxx=g++ ;;
  clang)
    find_clang || { echo "sanitize: no clang found (apt install clang)"; exit 77; } ;;
  tsan) cc=gcc; cxx=g++ ;;
  *) echo "usage: scripts/sanitize.sh [gcc|clang|tsan]" >&2; exit 2 ;;
esac
build=${MP_SAN_BUILD_DIR:-$root/build-san-$mode}
"$root/scripts/setup.sh" >/dev/null
prefix=$build/_deps/onednn
onednn=(-DMP_ENABLE_ONEDNN=OFF)
if "$root/scripts/get-onednn.sh" "$prefix" >/dev/null; then
  onednn=(-DMP_ONEDNN_ROOT="$prefix")
fi

if [[ $mode == tsan ]]; then
  sanitizers=thread
  runtime=$("$cc" -print-file-name=libtsan.so)
else
  sanitizers=address,undefined
  if [[ $mode == gcc ]]; then
    runtime=$("$cc" -print-file-name=libasan.so)
  else
    runtime=$("$cc" -print-file-name=libclang_rt.asan-x86_64.so)
  fi
fi
flags="-fsanitize=$sanitizers -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
extra=()
if [[ $mode == tsan ]]; then extra=(-DMP_ENABLE_COMPILER=OFF); fi
configure_instrumented "$build" "$cc" "$cxx" "$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitizers" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=$sanitizers" \
  -DMP_SANITIZER_RUNTIME="$runtime" \
  -DMP_ENABLE_CUDA=OFF "${onednn[@]}" "${extra[@]}"
cmake --build "$build" -j "$(nproc)"

# Exit on the first report, by SIGABRT with its default action (see above).
common=abort_on_error=1:handle_abort=1:print_summary=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-$common:detect_leaks=1:detect_odr_violation=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-$common:print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-$common:halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/tsan.supp}
timeout=${MP_SAN_TIMEOUT:-1800}
apart='SessionCreateTest\.HugeArenaIsAnErrorNotACrash|CApiTest\.SessionErrors|DeviceMemorySessionDeathTest\.MemoryIsGuarded'

# tsan: the runtime's tests (the build has no others but the fuzz replays).
only=()
if [[ $mode == tsan ]]; then only=(-L runtime); fi
status=0
# shellcheck disable=SC2086
# The zoo corpus (label zoo) is left out: ~15 minutes of real models in the
# normal build, hours under the sanitizers; the corpus tests cover its
# passes and kernels here (to run it: ctest --test-dir BUILD -L zoo with the
# environment below).
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout "$timeout" \
  "${only[@]}" -E "$apart" -LE zoo ${MP_SAN_CTEST_ARGS:-} || status=$?
if [[ $mode == tsan ]]; then
  # The compiler of the normal build makes the plans.
  normal=${MP_BUILD_DIR:-$root/build}
  [[ -x $normal/bin/mp-compile ]] || "$root/scripts/build.sh"
  echo "sanitize: e2e/mp-run-threads (mp-run of $build, plans of $normal/bin/mp-compile)"
  MP_COMPILE=$normal/bin/mp-compile \
    bash "$root/test/Integration/mp-run-threads.sh" "$build" "$root" || status=$?
fi
# The tests apart (see above).
ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1:handle_segv=0 \
TSAN_OPTIONS=$TSAN_OPTIONS:allocator_may_return_null=1:handle_segv=0 \
  ctest --test-dir "$build" --output-on-failure --timeout "$timeout" \
    -R "^($apart)\$" || status=$?
elapsed=$((SECONDS - start))
printf 'sanitize: %s: exit %d, wall time %d min %02d s (build and tests)\n' \
  "$mode" "$status" $((elapsed / 60)) $((elapsed % 60))
exit "$status"
