# Shell functions the scripts share; source it: . "$root/scripts/common.sh"

# find_clang: sets cc and cxx to the newest clang on PATH; returns 1 when
# there is none.
find_clang() {
  local candidate
  cc="" cxx=""
  for candidate in clang-22 clang-19 clang-18 clang-16 clang-15 clang-14 clang; do
    if command -v "$candidate" >/dev/null; then
      cc=$candidate cxx=${candidate/clang/clang++}
      return 0
    fi
  done
  return 1
}

# configure_instrumented BUILD CC CXX FLAGS [CMAKE_ARGS...]: configures a
# RelWithDebInfo Ninja build in BUILD (once: an existing one is kept) with
# FLAGS on every C and C++ compile, ccache when there is one, and lit from
# LLVM 22.
configure_instrumented() {
  local build=$1 cc=$2 cxx=$3 flags=$4 launcher=()
  shift 4
  [[ -f $build/build.ninja ]] && return 0
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${launcher[@]}" "$@"
}
