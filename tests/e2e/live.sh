#!/usr/bin/env bash
# ucov ls | pull | reset | run against a live daemon built with `ucov cc --gcov`.
# Usage: live.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
CC=gcc "$UCOV" cc --gcov -O0 -g "${SANFLAGS[@]}" -c "$SRC/examples/daemon/kvd.c" -o kvd.o
CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" kvd.o -o kvd
gcc -O1 "$SRC/examples/daemon/kvd.c" -o client
wait_sock() { for _ in $(seq 200); do [ -S "$1" ] && return 0; sleep 0.02; done; return 1; }
cli() { ./client --client kvd.sock "$@" >/dev/null; }
# gcov's count for the line of a function's opening (its call count), in tree $1.
calls() {
  (cd "$1/gcov$WORK" && gcov -t -o . "$SRC/examples/daemon/kvd.c" 2>/dev/null) |
    awk -v fn="$2" -F: '$3 ~ "^static void " fn "\\(" { gsub(/ /, "", $1); print $1; exit }'
}

./kvd kvd.sock &
pid=$!
wait_sock kvd.sock && wait_sock "$UCOV_RUNTIME_DIR/$pid.sock" && pass "daemon and control socket up" || fail "daemon and control socket up"
[ "$(stat -c %a "$UCOV_RUNTIME_DIR/$pid.sock")" = 600 ] && [ "$(stat -c %a "$UCOV_RUNTIME_DIR")" = 700 ] &&
  pass "socket 0600 in a 0700 directory" || fail "socket 0600 in a 0700 directory"

"$UCOV" ls --pid $pid >ls.txt && grep -qP '^\d+\tmodules$' ls.txt &&
  grep -qP "^\\d+\\tgcov$WORK/kvd.gcda\$" ls.txt && pass "ls lists modules and the unit" || fail "ls lists modules and the unit"
cli PING
"$UCOV" pull --pid $pid -o A 2>/dev/null && [ -s "A/gcov$WORK/kvd.gcda" ] && [ -s A/modules ] &&
  [ -L "A/gcov$WORK/kvd.gcno" ] && pass "pull writes the tree with a .gcno link" || fail "pull writes the tree with a .gcno link"
"$UCOV" reset --pid $pid && pass "reset all" || fail "reset all"
cli "SET a 1" "SET b 2" "SET c 3" "GET a"
"$UCOV" pull --pid $pid -o B --reset 2>/dev/null
[ "$(calls B cmd_set)" = 3 ] && [ "$(calls B cmd_get)" = 1 ] && [ "$(calls B cmd_del)" = "#####" ] &&
  pass "after reset: only this phase (set=" || fail "after reset: only this phase (set=$(calls B cmd_set) get=$(calls B cmd_get) del=$(calls B cmd_del))"
cli "DEL a"
"$UCOV" pull --pid $pid -o C "gcov$WORK/kvd.gcda" 2>/dev/null
[ "$(calls C cmd_del)" = 1 ] && [ "$(calls C cmd_set)" = "#####" ] && [ ! -e C/modules ] &&
  pass "pull --reset reset it; a named pull reads only that object" || fail "pull --reset reset it; a named pull reads only that object"
"$UCOV" reset --pid $pid "gcov$WORK/kvd.gcda" && pass "reset one object" || fail "reset one object"
"$UCOV" pull --pid $pid -o D gcov/no/such.gcda 2>err.txt; [ $? -eq 1 ] && grep -q 'no such object' err.txt &&
  pass "missing object: exit 1 with a message" || fail "missing object: exit 1 with a message"
"$UCOV" reset --pid $pid modules 2>err.txt; [ $? -eq 1 ] && grep -q 'not supported' err.txt &&
  pass "resetting modules is refused" || fail "resetting modules is refused"
"$UCOV" pull --pid $pid -o D ../escape 2>err.txt; [ $? -eq 1 ] && [ ! -e escape ] && pass "hostile object name refused" ||
  fail "hostile object name refused"
kill $pid; wait $pid
[ ! -e "$UCOV_RUNTIME_DIR/$pid.sock" ] && pass "socket removed at exit" || fail "socket removed at exit"
[ -s kvd.gcda ] && pass "exit-time .gcda still written" || fail "exit-time .gcda still written"
"$UCOV" ls --pid $pid 2>err.txt; [ $? -eq 1 ] && grep -q "no process $pid" err.txt && pass "ls of a gone process: exit 1" ||
  fail "ls of a gone process: exit 1"
"$UCOV" ls --bogus 2>/dev/null; [ $? -eq 2 ] && pass "ls with a bad option: exit 2" || fail "ls with a bad option: exit 2"

# UCOV_CONTROL=0: no socket.
UCOV_CONTROL=0 ./kvd kvd2.sock &
pid=$!
wait_sock kvd2.sock; sleep 0.2
[ ! -e "$UCOV_RUNTIME_DIR/$pid.sock" ] && pass "UCOV_CONTROL=0 serves nothing" || fail "UCOV_CONTROL=0 serves nothing"
kill $pid; wait $pid

# ucov run: interval pulls while it runs, the final tree at exit, its exit status.
"$UCOV" run -o R --interval 0.2 -- ./kvd kvd3.sock 2>run.txt &
runpid=$!
wait_sock kvd3.sock; ./client --client kvd3.sock "SET x 1" >/dev/null
for _ in $(seq 100); do [ -s "R/gcov$WORK/kvd.gcda" ] && break; sleep 0.05; done
[ -s "R/gcov$WORK/kvd.gcda" ] && pass "run: interval pulls" || fail "run: interval pulls"
pkill -TERM -f '^./kvd kvd3.sock'; wait $runpid; st=$?
[ $st -eq 0 ] && [ "$(calls R cmd_set)" = 1 ] && [ -L "R/gcov$WORK/kvd.gcno" ] && [ -s R/modules ] &&
  pass "run: final tree at exit (status $st)" || fail "run: final tree at exit (status $st)"
"$UCOV" run -o R2 -- ./kvd --client /nonexistent PING 2>/dev/null; [ $? -eq 1 ] &&
  [ -s "R2/gcov$WORK/kvd.gcda" ] && pass "run: the program's exit status, tree written" || fail "run: the program's exit status, tree written"

# A forked child (a daemon going to the background) gets its own socket.
cat >fork.c <<'C'
#include <unistd.h>
int busy(int i) { return i * 2; }
int main(void) {
  if (fork() == 0) { for (int i = 0; i < 30; i++) { busy(i); usleep(50000); } return 0; }
  return 0;
}
C
CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" fork.c -o forker && ./forker
child=$(pgrep -n -f '^./forker$')
wait_sock "$UCOV_RUNTIME_DIR/$child.sock" && "$UCOV" ls --pid "$child" | grep -q "forker-fork.gcda" &&
  pass "forked child serves its own socket" || fail "forked child serves its own socket"

# The same live pull from a clang --coverage build, read by llvm-cov gcov.
if command -v clang >/dev/null; then
  mkdir -p clang && (cd clang && CC=clang "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" \
    -c "$SRC/examples/daemon/kvd.c" -o kvd.o && CC=clang "$UCOV" cc --gcov "${SANFLAGS[@]}" kvd.o -o kvd)
  ./clang/kvd kvd4.sock &
  pid=$!
  wait_sock kvd4.sock && wait_sock "$UCOV_RUNTIME_DIR/$pid.sock"
  ./client --client kvd4.sock "SET k v" "SET k w" >/dev/null
  "$UCOV" pull --pid $pid -o L 2>/dev/null
  kill $pid; wait $pid
  (cd "L/gcov$WORK/clang" && llvm-cov gcov -t kvd.gcda 2>/dev/null) >llvm.txt
  grep -qE '^ *2: +[0-9]+:static void cmd_set\(' llvm.txt &&
    grep -qE '^ *#####: +[0-9]+:static void cmd_del\(' llvm.txt && pass "clang unit pulled live, read by llvm-cov gcov" ||
    fail "clang unit pulled live, read by llvm-cov gcov"
fi

finish live
