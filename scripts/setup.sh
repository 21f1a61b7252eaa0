#!/usr/bin/env bash
# Installs what mp needs on Debian 12 and is missing; safe to run again.
# apt-get update runs only when something has to be installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache python3 git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev
  python3-torch python3-venv python3-pip
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
# a venv over Debian's Python that sees Debian's PyTorch (python3-torch, CPU
# only; PyPI's torch would pull gigabytes of CUDA wheels) and gets
# TensorFlow (CPU) and matplotlib from PyPI. tensorflow-cpu 2.15 is the
# last release with Keras 2 (tf.keras) and numpy < 2, which Debian's PyTorch
# 1.13 needs.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${MP_VENV:-$root/.venv}
if [[ -x $venv/bin/python ]] &&
   "$venv/bin/python" -c "import torch, tensorflow, matplotlib" >/dev/null 2>&1; then
  echo "setup: $venv has torch, tensorflow and matplotlib"
else
  echo "setup: making $venv (PyTorch from Debian, tensorflow-cpu and matplotlib from PyPI)"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "tensorflow-cpu==2.15.1" "numpy<2" matplotlib
  "$venv/bin/python" -c "import torch, tensorflow, matplotlib" >/dev/null
fi
