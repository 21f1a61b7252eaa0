#!/usr/bin/env bash
# Installs what mp needs on Debian 12 and is missing; safe to run again.
# apt-get update runs only when something has to be installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache python3 git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev
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
