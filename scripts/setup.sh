#!/usr/bin/env bash
# Installs what mp needs on Debian 12 and is missing; safe to run again.
# apt-get update runs only when something has to be installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache python3 git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev clang-format
  python3-venv python3-pip
  openmpi-bin libopenmpi-dev
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

# The digits data set is fetched with pip (data/get_digits.py).
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "setup: installing python3-pip"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-pip
fi

# The framework exporters' environment (python/mp_export, docs/exporters.md):
# a venv over Debian's Python with PyPI's PyTorch (its CPU execution is what
# the exporter and the benches use; the wheel pulls PyPI's CUDA libraries
# along, ~4.5 GB installed), tensorflow-cpu 2.21 with Keras 3 (the Keras
# exporter's) and matplotlib. A venv from before (Debian's PyTorch 1.13, or
# TensorFlow 2.15 with Keras 2) is made again.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${MP_VENV:-$root/.venv}
torch_version=2.15.0
tf_version=2.21.0
if [[ -x $venv/bin/python ]] &&
   "$venv/bin/python" - "$torch_version" "$tf_version" >/dev/null 2>&1 <<'PY'
import sys
import keras, matplotlib, tensorflow, torch
assert torch.__version__.split("+")[0] == sys.argv[1], torch.__version__
assert tensorflow.__version__ == sys.argv[2], tensorflow.__version__
assert keras.__version__.startswith("3."), keras.__version__
PY
then
  echo "setup: $venv has torch $torch_version, tensorflow-cpu $tf_version (Keras 3) and matplotlib"
else
  echo "setup: making $venv (torch $torch_version, tensorflow-cpu $tf_version, matplotlib from PyPI)"
  if [[ -e $venv && ! -f $venv/pyvenv.cfg ]]; then
    echo "setup: $venv exists and is not a venv; move it away or set MP_VENV" >&2
    exit 1
  fi
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "torch==$torch_version" "tensorflow-cpu==$tf_version" matplotlib
  "$venv/bin/python" -c "import torch, tensorflow, keras, matplotlib" >/dev/null
fi

# The Python linter CI runs (scripts/lint.sh, pyproject.toml's settings).
ruff_version=0.17.6
if [[ "$("$venv/bin/ruff" --version 2>/dev/null)" != "ruff $ruff_version" ]]; then
  echo "setup: installing ruff $ruff_version into $venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ruff==$ruff_version"
fi

# The Python package's tests (test/Python, through ctest) and the
# checkout's python/ on the venv's path, so that `import mp` (and
# mp_export) works from $venv/bin/python right after this script and a
# build (docs/python.md).
pytest_version=9.2.0
if [[ "$("$venv/bin/python" -m pytest --version 2>/dev/null)" != "pytest $pytest_version" ]]; then
  echo "setup: installing pytest $pytest_version into $venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pytest==$pytest_version"
fi
site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$root/python" > "$site/mp-checkout.pth"

# The model libraries the zoo corpus builds its models from (test/Exporters/
# zoo_corpus.py) and the exporters' Hugging Face schedules: versions that
# accept this torch (torchvision pins its torch exactly), installed with torch
# pinned on the same line so pip never replaces it.
zoo=(torchvision==0.29.2 timm==1.0.31 transformers==5.25.0)
if "$venv/bin/python" - "$torch_version" "${zoo[@]}" >/dev/null 2>&1 <<'PY'
import sys
from importlib.metadata import version
import torch
assert torch.__version__.split("+")[0] == sys.argv[1]
for pin in sys.argv[2:]:
    name, want = pin.split("==")
    assert version(name).split("+")[0] == want, (name, version(name))
PY
then
  echo "setup: $venv has ${zoo[*]}"
else
  echo "setup: installing ${zoo[*]} into $venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "torch==$torch_version" "${zoo[@]}"
  "$venv/bin/python" - "$torch_version" <<'PY'
import sys
import torch, torchvision, timm, transformers
assert torch.__version__.split("+")[0] == sys.argv[1], "pip replaced torch: " + torch.__version__
PY
fi
