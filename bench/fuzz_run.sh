#!/usr/bin/env bash
# fuzz_run.sh [SECONDS] [ROUNDS]: afl-fuzz's executions per second on
# tests/e2e/afl/target.c built three ways, in forkserver and persistent
# mode: AFL++ alone (afl-clang-fast), with gcov counters kept by libgcov
# (afl-clang-fast --coverage: each execution's child writes the .gcda at its
# exit) and with ucov's (ucov cc --cc afl-clang-fast --gcov: counters shared
# with the forkserver, nothing written per execution); and ucov's own fork
# server and maps with no AFL++ compiler (ucov cc --afl, clang's guards and
# gcc's hashed edges), against AFL++ alone. Each campaign runs
# SECONDS (default 10), the builds interleaved, ROUNDS times (default 3);
# minimum and median of execs_done / run time per build, and ucov's median
# as a ratio of libgcov's and of AFL++ alone. Writes RESULTS-fuzz.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
secs=${1:-10} rounds=${2:-3}
cmake -S "$root" -B "$root/build/bench" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$root/build/bench" -j 2 >/dev/null
UCOV=$root/build/bench/ucov T=$root/tests/e2e/afl/target.c
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
builds=(afl libgcov ucov ucov-afl ucov-afl-gcc)
for mode in forkserver persistent; do
  d=() && [ $mode = persistent ] && d=(-DPERSISTENT)
  for b in "${builds[@]}"; do
    mkdir -p "$mode-$b/in" && printf 'hello' >"$mode-$b/in/a"
    case $b in
    afl) (cd "$mode-$b" && afl-clang-fast -O2 "${d[@]}" "$T" -o target) ;;
    libgcov) (cd "$mode-$b" && afl-clang-fast -O2 --coverage "${d[@]}" "$T" -o target) ;;
    ucov) (cd "$mode-$b" && "$UCOV" cc --cc afl-clang-fast --gcov -O2 "${d[@]}" "$T" -o target) ;;
    ucov-afl) (cd "$mode-$b" && "$UCOV" cc --afl --cc clang -O2 "${d[@]}" "$T" -o target) ;;
    ucov-afl-gcc) (cd "$mode-$b" && "$UCOV" cc --afl --cc gcc -O2 "${d[@]}" "$T" -o target) ;;
    esac >/dev/null 2>&1
  done
done
declare -A rate med
for _ in $(seq "$rounds"); do
  for mode in forkserver persistent; do
    for b in "${builds[@]}"; do
      (cd "$mode-$b" && rm -rf out ./*.gcda && afl-fuzz -i in -o out -V "$secs" -- ./target >afl.log 2>&1)
      s=$mode-$b/out/default/fuzzer_stats
      e=$(awk '$1 == "execs_done" {print $3}' "$s") t=$(awk '$1 == "run_time" {print $3}' "$s")
      rate[$mode-$b]+="$((e / (t > 0 ? t : 1))) "
    done
  done
done
# stat LIST: "min median" of whitespace-separated numbers
stat() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR] = $1} END {print v[1], v[int((NR + 1) / 2)]}'; }
{
  echo "# Fuzzing: afl-fuzz executions per second"
  echo
  echo "$(date -u +%F), $(uname -r), $(nproc) cores, AFL++ $(afl-fuzz -h 2>&1 | grep -o 'afl-fuzz++[0-9.a-z]*' | head -1 | cut -c11-);"
  echo "tests/e2e/afl/target.c at -O2, $secs s per campaign, $rounds rounds interleaved"
  echo "(bench/fuzz_run.sh). Wall-time rates: they vary by some 15% on this machine."
  echo
  echo "| mode | build | min exec/s | median exec/s |"
  echo "|---|---|---:|---:|"
  for mode in forkserver persistent; do
    for b in "${builds[@]}"; do
      read -r lo m < <(stat "${rate[$mode-$b]}")
      echo "| $mode | $b | $lo | $m |"
      med[$b]=$m
    done
    echo "| $mode | ucov / libgcov (medians) | | $(awk -v a="${med[ucov]}" -v b="${med[libgcov]}" 'BEGIN {printf "%.2f", a / b}') |"
    echo "| $mode | ucov / AFL++ alone (medians) | | $(awk -v a="${med[ucov]}" -v b="${med[afl]}" 'BEGIN {printf "%.2f", a / b}') |"
    for b in ucov-afl ucov-afl-gcc; do
      echo "| $mode | $b / AFL++ alone (medians) | | $(awk -v a="${med[$b]}" -v b="${med[afl]}" 'BEGIN {printf "%.2f", a / b}') |"
    done
  done
  echo
  echo "libgcov's children write the .gcda at each execution's exit (and lose the counts of"
  echo "those killed); ucov's count into the forkserver's shared counters and write nothing."
  echo "ucov-afl and ucov-afl-gcc are trace builds of ucov cc --afl (clang, gcc): ucov's"
  echo "fork server, whose process also serves the control socket, and hooks that are calls"
  echo "(AFL++'s own instrumentation is inline). Where ucov-afl's forkserver rate goes"
  echo "(measured by hand, not by this script): each execution's child makes the same few"
  echo "system calls as AFL++'s (closes of the pipes and of the inherited control socket,"
  echo "the read of its input, exit), but it forks from a bigger process: two threads (the"
  echo "control server), 40 mappings against 25, 2.6 MB resident against 1.3 MB, whose page"
  echo "tables each fork copies."
} >"$here/RESULTS-fuzz.md"
cat "$here/RESULTS-fuzz.md"
