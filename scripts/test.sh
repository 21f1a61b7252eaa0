#!/usr/bin/env bash
# Everything needed to run every test on a fresh Debian 12 machine:
# install what is missing, build, run the whole suite with ctest (lit tests
# and unit tests alike).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
ctest --test-dir "${MP_BUILD_DIR:-$root/build}" --output-on-failure -j "$(nproc)"
# The fuzz targets' smoke run (5 s each, on a clang build with ASan and
# UBSan in build-fuzz: docs/reliability.md) where clang is available; it
# says why and exits 77 where not.
status=0
"$root/scripts/fuzz.sh" smoke || status=$?
if ((status != 0 && status != 77)); then
  exit "$status"
fi
