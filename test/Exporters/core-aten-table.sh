#!/usr/bin/env bash
# docs/generated/CoreAtenOps.md against `python -m mp_export.aten_table`
# (the Core ATen opset of the venv's PyTorch and the exporter's mappings);
# skipped (77) when the venv cannot import torch.
# usage: core-aten-table.sh SOURCE_DIR
set -euo pipefail
src=$1
python=${MP_PYTHON:-$src/.venv/bin/python}
if ! [[ -x $python ]] || ! "$python" -c "import torch" >/dev/null 2>&1; then
  echo "SKIPPED: $python cannot import torch; run scripts/setup.sh"
  exit 77
fi
cd "$src"
PYTHONPATH=$src/python exec "$python" -m mp_export.aten_table --check docs/generated/CoreAtenOps.md
