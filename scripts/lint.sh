#!/usr/bin/env bash
# The format and lint checks CI runs (ctest lint/*; CONTRIBUTING.md):
#   scripts/lint.sh python   ruff over the Python tree (pyproject.toml)
#   scripts/lint.sh format   clang-format (.clang-format) on the C++ lines
#                            changed since $MP_LINT_BASE (default: HEAD~1,
#                            the change under test), with git clang-format
# Exit 0 clean, 1 findings (printed), 77 when the tool or the history is
# not there (ctest reports it skipped).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
case "${1:-}" in
python)
  ruff=${MP_RUFF:-$root/.venv/bin/ruff}
  if [[ ! -x $ruff ]]; then
    echo "lint: no ruff at $ruff (scripts/setup.sh installs it)"
    exit 77
  fi
  exec "$ruff" check --no-cache --output-format concise .
  ;;
format)
  base=${MP_LINT_BASE:-HEAD~1}
  if ! command -v git-clang-format >/dev/null || ! command -v clang-format >/dev/null; then
    echo "lint: clang-format or git-clang-format is missing"
    exit 77
  fi
  if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
    echo "lint: no commit $base to compare with (a shallow clone?)"
    exit 77
  fi
  # The checked-in generated headers are mp-tblgen's text, checked against
  # it by the generated/* ctests.
  out=$(git clang-format --diff "$base" -- '*.cpp' '*.h' '*.cu' \
    ':!runtime/include/mp/runtime/OpTable.h' \
    ':!runtime/include/mp/runtime/Vocabulary.h' 2>&1)
  case "$out" in
  "" | *"did not modify any files"* | *"no modified files to format"*)
    echo "lint: the C++ lines changed since $base are formatted"
    exit 0
    ;;
  esac
  echo "$out"
  echo "lint: the C++ lines changed since $base are not formatted as .clang-format says; git clang-format $base fixes them"
  exit 1
  ;;
*)
  echo "usage: scripts/lint.sh python|format" >&2
  exit 2
  ;;
esac
