#!/usr/bin/env bash
# Checks that every C++ file is formatted by .clang-format (Debian 12's clang-format 14); exits 1 and
# lists the files when one is not. `tools/check-format.sh --fix` formats them in place.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h' | grep -v -e '^tests/data/' -e '/corpus/')
if [ "${1:-}" = "--fix" ]; then
    clang-format -i "${files[@]}"
    exit 0
fi
bad=()
for f in "${files[@]}"; do
    clang-format --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
    printf 'not formatted (run tools/check-format.sh --fix):\n'
    printf '  %s\n' "${bad[@]}"
    exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
