#!/usr/bin/env bash
# The store gives the report of one run, however the same work was cut
# into pushes: a loop-heavy program (tests/integration/loop_rounds.c) pulled
# again and again while its loops turn, each snapshot pushed, gives in
# `ucov report --store` exactly the lines, functions and branches of one
# undisturbed run (gcov's line counts do not add across snapshots; the
# store sums the units' counters and solves them once), and so does
# `ucov report` of all the snapshots' trees at once. On SQLite and on a
# PostgreSQL server of the test's own, with gcc's notes and clang's, by
# `ucov push` of pulled trees and by `ucov collect`.
# Usage: store_rounds.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
# shellcheck source=tests/pg.sh
. "$SRC/tests/pg.sh"
fresh_workdir
trap pg_stop EXIT
mkdir -m 700 rt
export UCOV_RUNTIME_DIR=$WORK/rt
N=600
recs() { grep -E '^(SF|DA|FNDA|BRDA|LF|LH|FNF|FNH|BRF|BRH):' "$1"; }

# rounds CC: the program built by CC; one run into one-CC/, then a run pulled
# (with reset) into rounds-CC/<k>/ until it exits, its exit files in
# rounds-CC/exit/; n the number of rounds.
rounds() {
  local cc=$1 k=0
  mkdir -p "rounds-$cc"
  mkdir -p "$cc" && (cd "$cc" && CC=$cc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" \
    "$SRC/tests/integration/loop_rounds.c" -o loop) || return 1
  printf x | UCOV_EXIT_DIR=$WORK/one-$cc "$cc/loop" $N || return 1
  target_start "$WORK/rounds-$cc/exit" "$cc/loop" $N
  printf x >&"$target_in"
  while kill -0 "$pid" 2>/dev/null; do
    k=$((k + 1))
    "$UCOV" pull --pid "$pid" --reset -o "rounds-$cc/$k" 2>/dev/null || rm -rf "rounds-$cc/$k"
  done
  target_stop
  n=$k
}

# same NAME URL CC: every round pushed into URL gives the one run's report
same() {
  local name=$1 url=$2 cc=$3 d
  for d in "rounds-$cc"/*/; do
    "$UCOV" push "$d" --store "$url" --test "$(basename "$d")" -q || fail "$name $cc: push $d"
  done
  "$UCOV" report --store "$url" --lcov "$name-$cc.info" 2>"$name-$cc.err"
  [ "$(recs "$name-$cc.info")" = "$(recs "one-$cc.info")" ] && pass "$name $cc: the store's report is one run's" ||
    fail "$name $cc: the store's report is one run's: $(cat "$name-$cc.err"; diff <(recs "$name-$cc.info") <(recs "one-$cc.info") | head -6)"
  # one round's test alone: that snapshot's own report
  "$UCOV" report --store "$url" --test 2 --lcov "$name-$cc-2.info" 2>/dev/null
  "$UCOV" report "rounds-$cc/2" --lcov "round2-$cc.info" 2>/dev/null
  [ -s "round2-$cc.info" ] && [ "$(recs "$name-$cc-2.info")" = "$(recs "round2-$cc.info")" ] && pass "$name $cc: --test 2 is round 2's report" ||
    fail "$name $cc: --test 2 is round 2's report: $(diff <(recs "$name-$cc-2.info") <(recs "round2-$cc.info") | head -6)"
}

ccs=(gcc)
command -v clang >/dev/null && ccs+=(clang)
for cc in "${ccs[@]}"; do
  rounds "$cc" || { fail "$cc: the runs"; continue; }
  "$UCOV" report "one-$cc" --lcov "one-$cc.info" 2>/dev/null
  # the rounds' own line counts, summed as lcov sums tracefiles, are not one
  # run's (else this test would show nothing)
  rm -rf "traces-$cc" && mkdir "traces-$cc"
  for d in "rounds-$cc"/*/; do "$UCOV" merge "$d" -o "traces-$cc/$(basename "$d").info" 2>/dev/null; done
  "$UCOV" merge "traces-$cc"/*.info -o "sum-$cc.info" 2>/dev/null
  [ "$n" -ge 3 ] && [ "$(recs "sum-$cc.info")" != "$(recs "one-$cc.info")" ] &&
    pass "$cc: the rounds add up to more than one round" ||
    echo "note: $cc: $n rounds whose line counts happen to add up"
  # the rounds' trees read together: each unit's runs summed, solved once
  "$UCOV" report "rounds-$cc"/*/ --lcov "trees-$cc.info" 2>/dev/null
  [ "$(recs "trees-$cc.info")" = "$(recs "one-$cc.info")" ] && pass "$cc: the rounds' trees read together are one run" ||
    fail "$cc: the rounds' trees read together are one run: $(diff <(recs "trees-$cc.info") <(recs "one-$cc.info") | head -6)"
  same sqlite "$WORK/s-$cc.db" "$cc"
done

# collect: rounds taken by `ucov collect` while the program runs
target_start "$WORK/cexit" gcc/loop $N
mkdir -m 700 cd
printf x >&"$target_in"
while kill -0 "$pid" 2>/dev/null; do
  UCOV_COLLECT_DIR=$WORK/cd "$UCOV" collect --pid "$pid" --once --store c.db -q 2>/dev/null
done
target_stop
"$UCOV" push cexit --store c.db -q
"$UCOV" report --store c.db --lcov c.info 2>c.err
[ "$(recs c.info)" = "$(recs one-gcc.info)" ] && pass "collect: the store's report is one run's" ||
  fail "collect: the store's report is one run's: $(cat c.err; diff <(recs c.info) <(recs one-gcc.info) | head -6)"

if pg_start; then
  for cc in "${ccs[@]}"; do
    pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U ucov "r$cc" >/dev/null 2>&1
    same postgresql "postgresql:///r$cc?host=$PG_DIR&user=ucov" "$cc"
  done
  pg_stop
else
  # a missing server fails the test, unless PostgreSQL is left out on purpose
  if [ "${UCOV_SKIP_PG:-}" = 1 ]; then
    echo "PostgreSQL left out (UCOV_SKIP_PG=1)"
  else
    fail "no PostgreSQL server could be started (scripts/deps.sh installs postgresql; UCOV_SKIP_PG=1 leaves it out)"
  fi
fi
finish store_rounds
