#!/usr/bin/env bash
# A client that closes every descriptor (syzkaller's close_range(3, 30)) and
# reuses the numbers: ucov's control socket comes back by itself, silently,
# and the program's own descriptors stay its own, in it and in a forked
# child (tests/integration/close_all.c).
# Usage: close_all.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
fresh_workdir
mkdir -m 700 rt
export UCOV_RUNTIME_DIR=$WORK/rt
CC=gcc "$UCOV" cc --gcov -O1 "${SANFLAGS[@]}" "$SRC/tests/integration/close_all.c" -o close_all ||
  exit 1
echo hello-client >mine.txt
coproc T { exec ./close_all mine.txt 2>target.err; }
pid=$T_PID
read -r word fd <&"${T[0]}"
[ "$word" = ready ] && [ "$fd" -ge 3 ] && pass "the client reopened a low number ($word $fd)" || fail "the client reopened a low number ($word $fd)"
# served again and again, through a socket made again
ok=0
for _ in 1 2 3 4; do "$UCOV" ls --pid "$pid" >ls.txt 2>ls.err && ok=$((ok + 1)); done
[ $ok = 4 ] && grep -q gcov ls.txt && pass "served after close_range: $ok of 4" || fail "served after close_range: $ok of 4 ($(cat ls.err))"
"$UCOV" pull --pid "$pid" -o P 2>pull.err && [ -n "$(find P -name '*.gcda')" ] && pass "pulled after close_range" ||
  fail "pulled after close_range ($(cat pull.err))"
# the program's own descriptor: its file, in it and in a child
echo go >&"${T[1]}"
read -r who1 what1 <&"${T[0]}"
read -r who2 what2 <&"${T[0]}"
[ "$who1 $what1" = "parent hello-client" ] && [ "$who2 $what2" = "child hello-client" ] && pass "the client's descriptor untouched: '$who1 $what1' '$who2 $what2'" ||
  fail "the client's descriptor untouched: '$who1 $what1' '$who2 $what2'"
"$UCOV" ls --pid "$pid" >/dev/null 2>&1 && pass "served after a fork" || fail "served after a fork"
in=${T[1]}
exec {in}>&-
wait "$pid"
# silently: no word from the runtime
[ ! -s target.err ] && pass "the runtime spoke" || fail "the runtime spoke: $(head -3 target.err)"
finish close_all
