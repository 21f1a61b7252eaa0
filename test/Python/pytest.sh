#!/usr/bin/env bash
# Runs the Python package's tests (test/Python, pytest) with the frameworks'
# venv against BUILD_DIR's runtime library and tools; skipped (77) when the
# venv has no pytest (scripts/setup.sh installs it).
# usage: pytest.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
python=${MP_PYTHON:-$src/.venv/bin/python}
if ! [[ -x $python ]] || ! "$python" -c "import pytest, numpy" >/dev/null 2>&1; then
  echo "SKIPPED: $python cannot import pytest and numpy; run scripts/setup.sh"
  exit 77
fi
export MP_BUILD_DIR=$build
cd "$src/test/Python"
# One process per file: TensorFlow (test_keras.py) and PyTorch's compiler
# stack in one process abort the interpreter (triton's import after
# TensorFlow's), as they would in a user's.
status=0
for file in test_*.py; do
  "$python" -m pytest -q -p no:cacheprovider "$file" || status=1
done
exit $status
