#!/usr/bin/env bash
# The tree's form: every C file as clang-format (.clang-format) writes it, every
# shell script clean under shellcheck (.shellcheckrc). Exits non-zero with the
# diff or the findings. Run by scripts/check.sh before the builds.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
# The tree's files, tracked or new (not ignored), that exist now.
files() { git ls-files --cached --others --exclude-standard "$@" | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
mapfile -t c_files < <(files '*.c' '*.h')
if ! clang-format --dry-run -Werror "${c_files[@]}" 2>"$out"; then
  echo "lint: clang-format would change these files (run clang-format -i on them):"
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' "$out" | cut -d: -f1 | sort -u | sed 's/^/  /'
  head -40 "$out"
  status=1
fi
mapfile -t sh_files < <(files '*.sh' .ci/run)
if ! shellcheck -x -f gcc "${sh_files[@]}"; then
  echo "lint: shellcheck findings above"
  status=1
fi
[ $status -eq 0 ] && echo "lint: clang-format and shellcheck clean (${#c_files[@]} C files, ${#sh_files[@]} scripts)"
exit $status
