#!/usr/bin/env bash
# Runs errors.py (the exporters' refusals, the safetensors helpers) with the
# frameworks' Python of scripts/setup.sh; exits 77 (skipped), saying why,
# when that environment is missing.
# usage: errors.sh SOURCE_DIR
set -euo pipefail
src=$1
python=${MP_PYTHON:-$src/.venv/bin/python}
if ! [[ -x $python ]]; then
  echo "SKIPPED: no Python environment at $python; run scripts/setup.sh"
  exit 77
fi
exec "$python" "$src/test/Exporters/errors.py"
