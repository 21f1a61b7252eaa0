#!/usr/bin/env bash
# Runs keras_corpus.py (small Keras 3 steps against Keras' own train_on_batch)
# with the frameworks' venv; skipped (77) when it cannot import keras.
# usage: keras-corpus.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
python=${MP_PYTHON:-$src/.venv/bin/python}
if ! [[ -x $python ]] || ! "$python" -c "import keras" >/dev/null 2>&1; then
  echo "SKIPPED: $python cannot import keras; run scripts/setup.sh"
  exit 77
fi
exec "$python" "$src/test/Exporters/keras_corpus.py" "$build"
