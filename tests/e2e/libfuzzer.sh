#!/usr/bin/env bash
# A libFuzzer campaign's exact source coverage: a harness built with
# `ucov cc --cc clang --gcov -fsanitize=fuzzer` (ucov's gcov runtime beside
# libFuzzer's; counters shared across fork, with a keeper per process):
# - one fuzzing process (its crash disarmed: it runs on): `ucov pull --pid`
#   shows its counts growing while it runs; at its end the harness's count
#   equals the runs it logged;
# - -fork=2 (children exec'd by the parent, 20-odd of them crashing, killed
#   at the end) and -jobs=2: every child's counts reach the .gcda exactly
#   (each child's keeper writes what a crashed or killed child could not):
#   the harness's count equals every run logged, crashing ones included.
# Usage: libfuzzer.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
H=$SRC/tests/e2e/libfuzzer/harness.c
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >probe.c ||
  ! clang -fsanitize=fuzzer probe.c -o probe 2>/dev/null; then
  fail "clang's libFuzzer (-fsanitize=fuzzer) is not installed (scripts/deps.sh installs it)"
  finish libfuzzer
  exit 1
fi
count() { awk -F'[:,]' -v f="$2" '$1 == "FNDA" && $3 == f {print $2}' "$1"; }
# settle NAME: until no process of the harness (a keeper still writing) is left
settle() { for _ in $(seq 100); do pgrep -x "$1" >/dev/null || return 0; sleep 0.1; done; }

for mode in one fork jobs; do
  mkdir -p "$mode/corpus" && cd "$mode" || exit 1
  printf 'FUY' >corpus/seed
  "$UCOV" cc --cc clang --gcov -fsanitize=fuzzer -O1 "$H" -o fz >cc.log 2>&1 ||
    fail "$mode: ucov cc --cc clang --gcov -fsanitize=fuzzer: $(tail -2 cc.log)"
  case $mode in
  one)
    HARNESS_SAFE=1 HARNESS_LOG=$PWD/runs.log ./fz -max_total_time=5 corpus >fz.log 2>&1 &
    pid=$!
    sleep 2
    "$UCOV" pull --pid $pid -o ../one-p1 >/dev/null 2>&1 && sleep 1 &&
      "$UCOV" pull --pid $pid -o ../one-p2 >/dev/null 2>&1 &&
      "$UCOV" report ../one-p1 --lcov p1.info 2>/dev/null && "$UCOV" report ../one-p2 --lcov p2.info 2>/dev/null
    a=$(count p1.info ran) b=$(count p2.info ran)
    [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ] && [ "$b" -gt "$a" ] &&
      pass "one process: live pulls: the harness at $a, then $b" || fail "one process: live pulls '$a', '$b'"
    wait $pid
    ;;
  fork) HARNESS_LOG=$PWD/runs.log ./fz -fork=2 -ignore_crashes=1 -max_total_time=6 corpus >fz.log 2>&1 ;;
  jobs) HARNESS_LOG=$PWD/runs.log ./fz -jobs=2 -workers=2 -max_total_time=4 corpus >fz.log 2>&1 ;;
  esac
  settle fz
  "$UCOV" report . --lcov final.info 2>/dev/null
  h=$(count final.info ran) runs=$(wc -l <runs.log) crashed=$(grep -c '^c$' runs.log)
  [ -n "$h" ] && [ "$h" = "$runs" ] && { [ "$crashed" -gt 0 ] || [ $mode = one ]; } &&
    pass "$mode: the harness ran $h times, every logged run ($crashed of them crashing)" ||
    fail "$mode: harness '$h', logged $runs runs ($crashed crashing)"
  cd .. || exit 1
done
finish libfuzzer
