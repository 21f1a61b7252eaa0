#!/usr/bin/env bash
# Everything needed to run every test on a fresh Debian 12 machine:
# install what is missing, build, run the whole suite with ctest (lit tests
# and unit tests alike).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
ctest --test-dir "${MP_BUILD_DIR:-$root/build}" --output-on-failure -j "$(nproc)"
