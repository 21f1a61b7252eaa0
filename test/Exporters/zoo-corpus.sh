#!/usr/bin/env bash
# Runs zoo_corpus.py (torchvision, timm, Hugging Face and keras.applications
# models, and keras.io's examples, against their frameworks' own training)
# with the frameworks' venv; skipped (77) when it cannot import torch,
# torchvision, timm, transformers or keras.
# usage: zoo-corpus.sh BUILD_DIR SOURCE_DIR [ARGS...]
#   ARGS default to --quick (a few fast models, for CI); pass model names,
#   or --json FILE, to run others (no ARGS beyond '--all': every model).
set -euo pipefail
build=$1
src=$2
shift 2
python=${MP_PYTHON:-$src/.venv/bin/python}
if ! [[ -x $python ]] || ! "$python" -c "import torch, torchvision, timm, transformers, keras" \
    >/dev/null 2>&1; then
  echo "SKIPPED: $python cannot import torch, torchvision, timm, transformers and keras;" \
       "run scripts/setup.sh"
  exit 77
fi
if [[ $# -eq 0 ]]; then
  set -- --quick
elif [[ $1 == --all ]]; then
  shift
fi
exec "$python" "$src/test/Exporters/zoo_corpus.py" "$build" "$@"
