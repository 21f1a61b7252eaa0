#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build,
# then run mp-opt on the example training steps.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
bin=${MP_BUILD_DIR:-$root/build}/bin

for example in mlp cnn transformer; do
  file=$root/examples/$example.mlir
  ops=$("$bin/mp-opt" "$file" | grep -c ' = train\.\| train\.' || true)
  echo "== examples/$example.mlir: parsed and verified, $ops train ops"
done
echo "== the MLP training step, as mp-opt prints it:"
"$bin/mp-opt" "$root/examples/mlp.mlir"
