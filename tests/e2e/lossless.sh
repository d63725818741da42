#!/usr/bin/env bash
# Lossless even when the client dies: `ucov pull --reset` killed at random
# points, a client that closes before reading, a full disk. Every count of the
# run is in the pulled trees plus the exit-time file, exactly.
# Usage: lossless.sh UCOV SRCDIR WORKDIR [SANITIZE] [KILLS]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-} KILLS=${5:-1000}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
SUM=(python3 "$SRC/tests/e2e/sumcounts.py")
H=(python3 "$SRC/tests/e2e/hostile.py")
CC=gcc "$UCOV" cc --gcov -O1 -pthread -fprofile-update=atomic "${SANFLAGS[@]}" \
  "$SRC/tests/integration/gcov_hammer.c" -o hammer || exit 1
N=2000000
[ -n "$SAN" ] && N=300000
UCOV_EXIT_DIR=$WORK/ref ./hammer $N linger </dev/null
want=$("${SUM[@]}" ref)
[ "$want" -gt $((4 * N)) ] && pass "reference run counted ($want)" || fail "reference run counted ($want)"

# One live run: the hammer counts, then lingers until its stdin closes.
start() { target_start "$WORK/$1" ./hammer $N linger; }

# 1. Killed pulls: SIGKILL at a random moment, then --recover finishes or drops it.
start exit1
mkdir -p p
killed=0
for i in $(seq "$KILLS"); do
  "$UCOV" pull --pid $pid --reset -o p/"$i" 2>/dev/null &
  k=$!
  sleep "0.00$((RANDOM % 10))$((RANDOM % 10))"
  kill -9 $k 2>/dev/null && killed=$((killed + 1))
  wait $k 2>/dev/null
  "$UCOV" pull --pid $pid --recover -o p/"$i" 2>/dev/null
done
"$UCOV" pull --pid $pid --reset -o p/last 2>/dev/null
target_stop
pulled=$("${SUM[@]}" p)
final=$("${SUM[@]}" exit1)
echo "killed pulls: $KILLS pulls ($killed killed mid-way): $pulled pulled + $final at exit = $((pulled + final)), want $want"
[ $((pulled + final)) -eq "$want" ] && pass "0 counts lost over $KILLS killed clients" || fail "0 counts lost over $KILLS killed clients"
leftover=$(find p -name '*.ucov-tmp.*' -o -name '.ucov-pending.*' | wc -l)
[ "$leftover" -eq 0 ] && pass "--recover leaves no temporary file ($leftover)" || fail "--recover leaves no temporary file ($leftover)"

# 2. A client that closes before reading: SNAPSHOT loses nothing (READ_AND_RESET,
# the one-round-trip op, would: that is what it documents).
start exit2
name=$("$UCOV" ls --pid $pid | awk -F'\t' '$2 ~ /^gcov\// { print $2 }')
for _ in $(seq 50); do "${H[@]}" snapshot-close "rt/$pid.sock" "$name"; done
"$UCOV" pull --pid $pid --reset -o q 2>/dev/null
target_stop
got=$(($("${SUM[@]}" q) + $("${SUM[@]}" exit2)))
[ "$got" -eq "$want" ] && pass "snapshots closed before reading lose nothing ($got, want $want)" || fail "snapshots closed before reading lose nothing ($got, want $want)"

# 3. A full disk (a 64 KiB tmpfs in a private mount namespace): the pull fails,
# nothing is reset, and a later pull elsewhere gets every count.
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
  start exit3
  mkdir -p small
  unshare -m --propagation private bash -c \
    "mount -t tmpfs -o size=64k tmpfs small && head -c 60000 /dev/zero >small/fill;
     '$UCOV' pull --pid $pid --reset -o small/p 2>'$WORK/full.err'; echo \$? >'$WORK/full.st'"
  "$UCOV" pull --pid $pid --reset -o r 2>/dev/null
  target_stop
  got=$(($("${SUM[@]}" r) + $("${SUM[@]}" exit3)))
  [ "$(cat full.st)" = 1 ] && grep -q 'No space left' full.err && grep -q 'nothing reset' full.err &&
    pass "pull onto a full disk fails clearly" || fail "pull onto a full disk fails clearly ($(cat full.st): $(cat full.err))"
  [ "$got" -eq "$want" ] && pass "a full disk loses nothing ($got, want $want)" || fail "a full disk loses nothing ($got, want $want)"
else
  echo "full-disk check skipped: needs root and unshare -m"
fi

# 4. The same killed pulls on an LLVM raw profile (clang --pgo, atomic counters).
if command -v clang >/dev/null; then
  CC=clang "$UCOV" cc --pgo -O1 -pthread -fprofile-update=atomic "${SANFLAGS[@]}" \
    "$SRC/tests/integration/gcov_hammer.c" -o phammer || fail "pgo hammer built"
  UCOV_EXIT_DIR=$WORK/pref ./phammer $N linger </dev/null
  pwant=$("${SUM[@]}" pref)
  target_start "$WORK/pexit" ./phammer $N linger
  for i in $(seq $((KILLS / 5))); do
    "$UCOV" pull --pid $pid --reset -o pp/"$i" 2>/dev/null &
    k=$!
    sleep "0.00$((RANDOM % 10))$((RANDOM % 10))"
    kill -9 $k 2>/dev/null
    wait $k 2>/dev/null
    "$UCOV" pull --pid $pid --recover -o pp/"$i" 2>/dev/null
  done
  target_stop
  got=$(($("${SUM[@]}" pp) + $("${SUM[@]}" pexit)))
  [ "$pwant" -gt $((4 * N)) ] && [ "$got" -eq "$pwant" ] && pass "LLVM profile: 0 counts lost over" ||
    fail "LLVM profile: 0 counts lost over $((KILLS / 5)) killed pulls ($got, want $pwant)"
fi

# 4. Concurrent collectors: three loops of `pull --reset` at once. A commit
# that finds the target reset by another is pulled again (within a bound):
# every pull exits 0, and the trees plus the exit file hold every count.
start exit4
mkdir -p cc
loops=()
for l in 1 2 3; do
  (for i in $(seq 15); do
    "$UCOV" pull --pid $pid --reset -o "cc/$l.$i" 2>>"cc.$l.err" || echo "$l.$i" >>cc.failed
  done) &
  loops+=($!)
done
wait "${loops[@]}"
target_stop
got=$(($("${SUM[@]}" cc) + $("${SUM[@]}" exit4)))
again=$(cat cc.*.err | grep -c 'pulling again')
[ ! -s cc.failed ] && [ "$got" -eq "$want" ] &&
  pass "3 concurrent pull --reset loops: 45 of 45 exit 0 ($again pulled again), 0 counts lost" ||
  fail "3 concurrent pull --reset loops: $(wc -l <cc.failed 2>/dev/null || echo 0) failed ($(sort -u cc.*.err | grep -v pulled | head -3)), $got counts, want $want"

# 5. A KCOV trace object: a reset pull takes its PCs and empties it; a pull
# killed before its commit leaves it whole.
CC=gcc "$UCOV" cc --trace -O1 "${SANFLAGS[@]}" -I"$SRC/include" "$SRC/bench/bigtrace.c" -o trace
exec {target_in}> >(exec ./trace 4096 >trace.out)
pid=$!
wait_sock "rt/$pid.sock"
for _ in $(seq 250); do [ -s trace.out ] && break; sleep 0.02; done
size() { "$UCOV" ls --pid $pid | awk -F'\t' '$2 == "kcov/1.kcov" { print $1 }'; }
[ "$(size)" = $((4096 * 8)) ] && pass "the full trace object" || fail "the full trace object ($(size) bytes)"
"$UCOV" pull --pid $pid --reset -o t1 kcov/1.kcov 2>/dev/null
[ "$(stat -c %s t1/kcov/1.kcov)" = $((4096 * 8)) ] && [ "$(size)" = 8 ] && pass "a reset pull takes the trace and empties it" ||
  fail "a reset pull takes the trace and empties it ($(size) bytes left)"
target_stop

finish lossless
