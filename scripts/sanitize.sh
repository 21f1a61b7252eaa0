#!/usr/bin/env bash
# The whole test suite on an ASan + UBSan build (docs/reliability.md,
# "Sanitizers"):
#
#   scripts/sanitize.sh [gcc|clang]     (default gcc)
#
# builds in build-san-<compiler> (or $MP_SAN_BUILD_DIR) with
# -fsanitize=address,undefined (UBSan halts on the first report), with
# oneDNN as the normal build has it and without CUDA (nvcc does not take
# the host sanitizers), and runs ctest with
#   - LSan's suppressions for the oneAPI runtime's own leaks
#     (scripts/lsan.supp: libsycl, libOpenCL, the Intel OpenCL CPU runtime
#     and TBB allocate at load time and never free);
#   - the one intentional crash left out by name:
#     DeviceMemorySessionDeathTest.MemoryIsGuarded (it writes to memory it
#     has just protected, which ASan's SEGV handler reports as a bug).
# Extra ctest arguments: MP_SAN_CTEST_ARGS (e.g. "-R CpuBackend").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/common.sh"
compiler=${1:-gcc}
case $compiler in
  gcc) cc=gcc; cxx=g++ ;;
  clang)
    find_clang || { echo "sanitize: no clang found (apt install clang)"; exit 77; } ;;
  *) echo "usage: scripts/sanitize.sh [gcc|clang]" >&2; exit 2 ;;
esac
build=${MP_SAN_BUILD_DIR:-$root/build-san-$compiler}
"$root/scripts/setup.sh" >/dev/null
prefix=$build/_deps/onednn
onednn=(-DMP_ENABLE_ONEDNN=OFF)
if "$root/scripts/get-onednn.sh" "$prefix" >/dev/null; then
  onednn=(-DMP_ONEDNN_ROOT="$prefix")
fi
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
configure_instrumented "$build" "$cc" "$cxx" "$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DMP_ENABLE_CUDA=OFF "${onednn[@]}"
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_odr_violation=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" \
  -E 'DeviceMemorySessionDeathTest\.MemoryIsGuarded' ${MP_SAN_CTEST_ARGS:-}
