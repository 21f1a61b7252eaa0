#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build,
# then compile the example training steps under each mixed-precision policy.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
bin=${MP_BUILD_DIR:-$root/build}/bin
out=${MP_BUILD_DIR:-$root/build}/demo
mkdir -p "$out"

for example in mlp cnn transformer; do
  for policy in float32 mixed_bfloat16 mixed_float16; do
    echo "== examples/$example.mlir, policy $policy"
    "$bin/mp-opt" "$root/examples/$example.mlir" \
      --mp-mixed-precision="policy=$policy summary=true report=$out/$example.$policy.json" \
      -o "$out/$example.$policy.mlir" 2>&1 | sed 's/^/   /'
  done
done
echo
echo "== the MLP step under mixed_float16 (with dynamic loss scaling):"
cat "$out/mlp.mixed_float16.mlir"
echo
echo "Compiled steps and JSON reports are in $out."
