#!/usr/bin/env bash
# Configures (once) and builds mp in ./build with at most one job per core.
# oneDNN for the cpu backend comes from PyPI (scripts/get-onednn.sh, into
# $build/_deps/onednn, once); MP_ENABLE_ONEDNN=OFF builds without it, and a
# failed download builds without it too (the runtime then falls back to the
# reference backend, and says so).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MP_BUILD_DIR:-$root/build}

onednn=()
if [[ ${MP_ENABLE_ONEDNN:-AUTO} != OFF ]]; then
  prefix=${MP_ONEDNN_ROOT:-$build/_deps/onednn}
  if [[ -n ${MP_ONEDNN_ROOT:-} ]] || "$root/scripts/get-onednn.sh" "$prefix" >/dev/null; then
    onednn=(-DMP_ONEDNN_ROOT="$prefix" -DMP_ENABLE_ONEDNN="${MP_ENABLE_ONEDNN:-AUTO}")
  else
    echo "build: could not get oneDNN; building without the cpu backend" >&2
  fi
else
  onednn=(-DMP_ENABLE_ONEDNN=OFF)
fi

# The CUDA backend builds where CMake finds nvcc (docs/runtime-cuda.md); the
# toolkit's usual place is not always on PATH.
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

if [[ ! -f $build/build.ninja ]]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
              -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${launcher[@]}" "${onednn[@]}"
elif ((${#onednn[@]})); then
  # A build directory configured before oneDNN was there, or with other
  # oneDNN settings: reconfigure it once with these.
  for setting in "${onednn[@]}"; do
    name=${setting#-D}; name=${name%%=*}
    if ! grep -q "^$name:[A-Z]*=${setting#*=}\$" "$build/CMakeCache.txt"; then
      cmake "$build" "${onednn[@]}" >/dev/null
      break
    fi
  done
fi
cmake --build "$build" -j "$(nproc)"
