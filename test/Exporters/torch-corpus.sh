#!/usr/bin/env bash
# Runs torch_corpus.py (small PyTorch steps against PyTorch's own training)
# with the frameworks' venv; skipped (77) when it cannot import torch.
# usage: torch-corpus.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
python=${MP_PYTHON:-$src/.venv/bin/python}
if ! [[ -x $python ]] || ! "$python" -c "import torch" >/dev/null 2>&1; then
  echo "SKIPPED: $python cannot import torch; run scripts/setup.sh"
  exit 77
fi
exec "$python" "$src/test/Exporters/torch_corpus.py" "$build"
