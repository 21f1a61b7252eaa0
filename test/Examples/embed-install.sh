#!/usr/bin/env bash
# ctest e2e/embed-install (issue 18): installs this build into a temporary
# prefix, builds examples/embed against it as an outside project would
# (find_package(mpCompiler), which finds MLIR and mpRuntime), and runs both
# programs: mp's pipeline on torch-mlir's linalg ResNet inside the host's
# PassManager, its output read back by upstream mlir-opt, and a plan from
# the installed mp-compile trained through the installed runtime's C API.
# Usage: embed-install.sh BUILD_DIR SOURCE_DIR LLVM_TOOLS_DIR
set -euo pipefail
build=$1 src=$2 llvm_tools=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# The outside project builds with the compilers and flags of the build it
# installs, as its users must: an install made with sanitizers
# (scripts/sanitize.sh) has instrumented static libraries, which link only
# into instrumented programs.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
same=()
for var in CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_C_FLAGS CMAKE_CXX_FLAGS \
           CMAKE_EXE_LINKER_FLAGS CMAKE_SHARED_LINKER_FLAGS; do
  value=$(cached "$var")
  if [[ -n $value ]]; then same+=("-D$var=$value"); fi
done
if ! cmake -S "$src/examples/embed" -B "$work/embed" -G Ninja \
     -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "${same[@]}" \
     > "$work/configure.log" 2>&1; then
  cat "$work/configure.log"
  exit 1
fi
cmake --build "$work/embed" -j 2

# The host's pipeline: only upstream ops come out, and upstream reads them.
input=$src/test/ExternalModels/Inputs/torch-mlir-resnet-linalg.mlir
"$work/embed/mp-embed-opt" "$input" > "$work/resnet.mlir"
"$llvm_tools/mlir-opt" "$work/resnet.mlir" -o /dev/null
if grep -n 'mp\.' "$work/resnet.mlir"; then
  echo "embed-install: mp ops or attributes left in the host's output" >&2
  exit 1
fi
grep -q 'linalg.conv_2d_nchw_fchw.*xbf16>, tensor<[0-9x]*xbf16>) outs' "$work/resnet.mlir"
# The same as mp-opt's own pipeline.
"$build/bin/mp-opt" "$input" --mp-mixed-precision="policy=mixed_bfloat16 cast-op=arith" \
  -o "$work/resnet.mp-opt.mlir"
diff "$work/resnet.mlir" "$work/resnet.mp-opt.mlir"
# A bad option is the host's error, with a non-zero exit.
if "$work/embed/mp-embed-opt" "$input" "policy=bogus" > /dev/null 2> "$work/bad.err"; then
  echo "embed-install: a bad policy was accepted" >&2
  exit 1
fi
grep -q "unknown policy 'bogus'" "$work/bad.err"

# The installed compiler and runtime: the C example trains and resumes.
"$prefix/bin/mp-compile" "$src/examples/mlp.mlir" \
  --mixed-precision="policy=mixed_float16" -o "$work/mlp.mpplan"
(cd "$work" && ./embed/mp-embed-run mlp.mpplan 10 mlp.safetensors) > "$work/run.log"
grep -q 'resumed step matches' "$work/run.log"
tail -3 "$work/run.log"
echo "embed-install: ok"
