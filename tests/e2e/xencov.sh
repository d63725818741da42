#!/usr/bin/env bash
# Xen's coverage blob from any ucov target: the "xencov" object (ls, pull
# --xencov, mount), split as xencov_split splits it into .gcda files
# byte-identical to a pull's, read back by ucov report, reset as Xen resets.
# Usage: xencov.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" -c "$SRC/examples/daemon/kvd.c" -o kvd.o
CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" -c "$SRC/examples/demo/httpreq.c" -o httpreq.o
CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" kvd.o httpreq.o -o kvd 2>/dev/null ||
  CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" kvd.o -o kvd
gcc -O1 "$SRC/examples/daemon/kvd.c" -o client
./kvd kvd.sock &
pid=$!
for _ in $(seq 250); do [ -S kvd.sock ] && [ -S "rt/$pid.sock" ] && break; sleep 0.02; done
./client --client kvd.sock "SET a 1" "SET b 2" "GET a" >/dev/null

"$UCOV" ls --pid $pid | grep -qP '^\d+\txencov$' && pass "ls lists xencov" || fail "ls lists xencov"
"$UCOV" pull --pid $pid -o T 2>/dev/null && [ ! -e T/xencov ] && pass "a tree pull leaves xencov out (its units are there)" ||
  fail "a tree pull leaves xencov out (its units are there)"
"$UCOV" pull --pid $pid --xencov k.blob && [ "$(head -c 4 k.blob)" = VOCX ] && pass "pull --xencov writes the blob (magic XCOV)" ||
  fail "pull --xencov writes the blob (magic XCOV)"
python3 "$SRC/tests/e2e/xen_split.py" k.blob S >split.txt && pass "xencov_split's format" || fail "xencov_split's format"
same=0 total=0
while read -r name; do
  total=$((total + 1))
  cmp -s "S$name" "T/gcov$name" && same=$((same + 1))
done <split.txt
[ $total -ge 1 ] && [ $same = $total ] && pass "split .gcda byte-identical to the pulled ones ($same of $total)" ||
  fail "split .gcda byte-identical to the pulled ones ($same of $total)"
"$UCOV" report -q k.blob --lcov b.info && "$UCOV" report -q T --lcov t.info &&
  diff <(grep -E '^(SF|DA|FNDA)' b.info) <(grep -E '^(SF|DA|FNDA)' t.info) >/dev/null &&
  [ "$(fnda b.info cmd_set)" = 2 ] && pass "ucov report reads the blob as the tree" || fail "ucov report reads the blob as the tree"
# Xen's reset: every unit.
"$UCOV" reset --pid $pid xencov && "$UCOV" pull --pid $pid -o R 2>/dev/null &&
  "$UCOV" report -q R --lcov r.info && [ "$(fnda r.info cmd_set)" = 0 ] && pass "reset xencov resets every unit" ||
  fail "reset xencov resets every unit"
# A hostile blob: a record that claims more than there is, a path with "..".
printf 'VOCX/x/../../etc/p.gcda\0\4\0\0\0abcd/y.gcda\0\377\377\0\0ab' >bad.blob
"$UCOV" report -q bad.blob --lcov bad.info 2>err.txt
[ $? -eq 1 ] && grep -q "refusing record name" err.txt && grep -q "claims" err.txt && pass "a hostile blob is refused clearly" ||
  fail "a hostile blob is refused clearly ($(cat err.txt))"
kill $pid
wait $pid

finish xencov
