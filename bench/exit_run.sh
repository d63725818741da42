#!/usr/bin/env bash
# exit_run.sh [UNITS] [[NAME=]UCOV...]: instructions (callgrind) a program of
# UNITS gcov units (default 300, one function each, built by `ucov cc --gcov`
# with gcc) spends from start to the end of its exit, .gcda writing included,
# for each ucov given (another checkout's build is the anchor), and how many of
# them went to finding modules (dladdr, or the cached dl_iterate_phdr ranges).
# Writes RESULTS-exit.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
units=${1:-300}
shift || true
# shellcheck source=bench/ucov_builds.sh
. "$here/ucov_builds.sh"
bench_ucovs "$root" "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for i in $(seq 0 $((units - 1))); do
  echo "int u$i(int x) { return x & 1 ? x + $i : x - $i; }" >"u$i.c"
done
{
  for i in $(seq 0 $((units - 1))); do echo "int u$i(int);"; done
  echo "int main(int argc, char **argv) { (void)argv; int s = 0;"
  for i in $(seq 0 $((units - 1))); do echo "s += u$i(argc);"; done
  echo "return s == 42; }"
} >main.c
{
  echo "# Start-up and exit of a program of $units gcov units"
  echo
  echo "$(date -u +%F), $(uname -r); callgrind instruction counts (exact, repeatable)."
  echo
  echo "| build | instructions, start to exit | in module lookups | lookups' share |"
  echo "|---|---|---|---|"
} >"$here/RESULTS-exit.md"
for k in "${!ucovs[@]}"; do
  mkdir -p "b$k" && cd "b$k"
  for f in ../*.c; do CC=gcc "${ucovs[$k]}" cc --gcov -O1 -c "$f" -o "$(basename "$f" .c).o"; done
  CC=gcc "${ucovs[$k]}" cc --gcov ./*.o -o prog
  ./prog || true
  UCOV_CONTROL=0 valgrind --tool=callgrind --callgrind-out-file=cg.out ./prog >/dev/null 2>&1 || true
  total=$(callgrind_annotate cg.out 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
  lookup=$(callgrind_annotate --inclusive=yes cg.out 2>/dev/null |
    awk '/ (dladdr|_dl_addr|ucov_posix_module_base|dl_iterate_phdr|__dl_iterate_phdr)[ (]/ || /:(dladdr|_dl_addr|ucov_posix_module_base|dl_iterate_phdr|__dl_iterate_phdr) / { gsub(",", "", $1); if ($1 > m) m = $1 } END { print m + 0 }')
  awk -v n="${names[$k]}" -v t="$total" -v l="$lookup" 'BEGIN {
    printf "| %s | %d | %d | %.1f%% |\n", n, t, l, 100 * l / t }' >>"$here/RESULTS-exit.md"
  cd ..
done
cat "$here/RESULTS-exit.md"
