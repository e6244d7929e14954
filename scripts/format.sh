#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# clang-format over every C++/CUDA/HIP source of the repository (.clang-format at the root).
#   bash scripts/format.sh          check: lists the files that differ, exits 1 if any
#   bash scripts/format.sh --fix    rewrite them in place
# The test command runs the check (ctest: format_check, label host). CLANG_FORMAT picks the binary.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
CF="${CLANG_FORMAT:-clang-format}"
command -v "$CF" >/dev/null 2>&1 || { echo "format.sh: $CF not found (scripts/install_deps.sh installs it)" >&2; exit 2; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.hpp' '*.cpp' '*.cu' '*.h' '*.inc')
else
  mapfile -t files < <(find include tests bench examples -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.h' -o -name '*.inc')
fi
if [[ "${1:-}" == "--fix" ]]; then
  "$CF" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue
  if ! "$CF" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "needs clang-format: $f"
    bad=1
  fi
done
if ((bad)); then
  echo "run: bash scripts/format.sh --fix ($("$CF" --version))" >&2
  exit 1
fi
echo "format_check: ${#files[@]} files formatted ($("$CF" --version))"
