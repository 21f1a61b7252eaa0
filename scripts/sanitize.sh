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
compiler=${1:-gcc}
case $compiler in
  gcc) cc=gcc; cxx=g++ ;;
  clang)
    cc=""
    for candidate in clang-22 clang-19 clang-18 clang-16 clang-15 clang-14 clang; do
      if command -v "$candidate" >/dev/null; then cc=$candidate; break; fi
    done
    [[ -n $cc ]] || { echo "sanitize: no clang found (apt install clang)"; exit 77; }
    cxx=${cc/clang/clang++} ;;
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
if [[ ! -f $build/build.ninja ]]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DMP_ENABLE_CUDA=OFF -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${onednn[@]}" "${launcher[@]}"
fi
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_odr_violation=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" \
  -E 'DeviceMemorySessionDeathTest\.MemoryIsGuarded' ${MP_SAN_CTEST_ARGS:-}
