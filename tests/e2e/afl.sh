#!/usr/bin/env bash
# An AFL++ campaign's exact source coverage, live: a target built with
# `ucov cc --cc afl-clang-fast --gcov` (its gcov counters shared across
# fork, the default with AFL++'s compilers) fuzzed by afl-fuzz in forkserver
# mode and in persistent mode (__AFL_LOOP), and one built with --pgo
# (clang's profile counters, shared the same way) in forkserver mode, each
# for a bounded time:
# - while it runs, `ucov ls/pull --pid <forkserver>` shows the campaign's
#   counts growing, and no .gcda is written per execution;
# - when afl-fuzz stops (it SIGKILLs the forkserver), the counts are written
#   all the same (the runtime's keeper process);
# - exact: the harness (ran() in target.c) ran as many times as the target logged executions,
#   children killed for a crash or a timeout included: afl-fuzz's
#   execs_done, or one more (the execution it had started when it stopped,
#   which it leaves out of its count; a plain afl-clang-fast build logs the
#   same);
# - every line of the harness that a replay of queue/, crashes/ and hangs/
#   through a plain --coverage build covers is covered in ucov's counts.
# Usage: afl.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
command -v afl-fuzz >/dev/null && command -v afl-clang-fast >/dev/null || {
  fail "afl-fuzz and afl-clang-fast (Debian's afl++; scripts/deps.sh installs it)"
  finish afl
  exit 1
}
# (the targets are not sanitized; afl-fuzz refuses an ASAN_OPTIONS without symbolize=0)
unset ASAN_OPTIONS UBSAN_OPTIONS MSAN_OPTIONS
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 \
  AFL_SKIP_CRASHES=1
T=$SRC/tests/e2e/afl/target.c
# (the plain build, for the replays)
mkdir -p plain && (cd plain && gcc --coverage -O0 "$T" -o target) || fail "plain --coverage build"
# covered INFO: "LINE" per covered line of target.c's harness (above main,
# whose lines differ with -DPERSISTENT)
main_line=$(grep -n '^int main' "$T" | cut -d: -f1)
covered() {
  awk -F'[:,]' -v m="$main_line" '/^SF:/{p = $2 ~ /target\.c$/} p && /^DA:/ && $3 > 0 && $2 < m {print $2}' "$1" |
    sort -n
}

for mode in forkserver persistent pgo; do
  mkdir -p "$mode/in" && cd "$mode" || exit 1
  # (a crashing seed: its runs in the dry run and after crash, AFL_SKIP_CRASHES)
  printf 'hello' >in/a && printf 'FUY!' >in/b && printf 'HAN!' >in/c && printf 'FUZ!' >in/d
  flags=(--gcov) && [ $mode = persistent ] && flags=(--gcov -DPERSISTENT)
  [ $mode = pgo ] && flags=(--pgo)
  "$UCOV" cc --cc afl-clang-fast "${flags[@]}" -O0 "$T" -o target >cc.log 2>&1 ||
    fail "$mode: ucov cc --cc afl-clang-fast ${flags[*]}: $(tail -2 cc.log)"
  LLVM_PROFILE_FILE=$PWD/target.profraw TARGET_LOG=$PWD/runs.log \
    afl-fuzz -i in -o out -t 100 -V 12 -- ./target >afl.log 2>&1 &
  afl=$!
  # (pulled beside the build directory, which the final report reads)
  afl_live_pulls "$UCOV" $afl 'target\.gcda\|profraw' ../$mode
  a=$(fnda p1.info ran) b=$(fnda p2.info ran)
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ] && [ "$b" -gt "$a" ] && ! compgen -G '*.gcda' >/dev/null &&
    ! [ -s target.profraw ] &&
    pass "$mode: live pulls from the forkserver: the harness at $a, then $b; no .gcda written per execution" ||
    fail "$mode: live pulls from forkserver '$fs': '$a' then '$b'; $(ls)"
  wait $afl
  afl_wait_keeper
  if [ $mode = pgo ]; then
    "$UCOV" report target.profraw --binary ./target --lcov final.info 2>/dev/null
  else
    "$UCOV" report . --lcov final.info 2>/dev/null
  fi
  h=$(fnda final.info ran) runs=$(wc -l <runs.log)
  e=$(awk '$1 == "execs_done" {print $3}' out/default/fuzzer_stats)
  c=$(awk '$1 == "saved_crashes" {print $3}' out/default/fuzzer_stats)
  t=$(awk '$1 == "saved_hangs" {print $3}' out/default/fuzzer_stats)
  [ -n "$h" ] && [ "$h" = "$runs" ] && [ "$((h - e))" -ge 0 ] && [ "$((h - e))" -le 1 ] &&
    pass "$mode: after afl-fuzz stopped: the harness ran $h times, every logged execution (execs_done $e; $c crashes, $t hangs saved)" ||
    fail "$mode: harness '$h', logged $runs, execs_done $e"
  crashed=$(grep -c '^FUZ!$' runs.log)
  [ "$crashed" -gt 0 ] && pass "$mode: $crashed executions crashed (killed by SIGABRT), counted above" ||
    fail "$mode: no execution crashed"
  # replay of what afl-fuzz kept, through the plain --coverage build
  rm -f ../plain/*.gcda
  for f in out/default/queue/id* out/default/crashes/id* out/default/hangs/id*; do
    [ -f "$f" ] && (cd ../plain && timeout 1 ./target <"$OLDPWD/$f" >/dev/null 2>&1)
  done 2>/dev/null # (the crashes abort)
  "$UCOV" report ../plain --lcov replay.info 2>/dev/null
  missing=$(comm -23 <(covered replay.info) <(covered final.info) | tr '\n' ' ')
  [ -s replay.info ] && [ -z "$missing" ] &&
    pass "$mode: every line the replay of queue/, crashes/ and hangs/ covers is covered ($(covered final.info | wc -l) lines)" ||
    fail "$mode: lines the replay covers and ucov does not: $missing"
  cd .. || exit 1
done
finish afl
