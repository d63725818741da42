#!/usr/bin/env bash
# ucov mount: a running daemon's objects as files. The tree (.gcda with .gcno
# links, modules, reset), cp -a equal to ucov pull, lcov --capture and gcov on
# the mounted files, a reset through the reset file, read-only files refusing
# writes, and the target exiting: the mount goes, ucov mount says so.
# Usage: mount.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
[ -c /dev/fuse ] || { echo "skip: /dev/fuse is absent"; exit 0; }
command -v fusermount3 >/dev/null || { echo "skip: fusermount3 missing (fuse3)"; exit 0; }
if "$UCOV" mount --help 2>&1 | grep -q 'built without FUSE'; then
  echo "skip: ucov built without libfuse3"
  exit 0
fi
rm -rf "$WORK" && mkdir -p "$WORK/mnt" && cd "$WORK" || exit 1
export UCOV_RUNTIME_DIR=$WORK/rt
CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" "$SRC/examples/daemon/kvd.c" -o kvd
gcc -O1 "$SRC/examples/daemon/kvd.c" -o client
./kvd kvd.sock &
pid=$!
for _ in $(seq 200); do [ -S kvd.sock ] && [ -S "rt/$pid.sock" ] && break; sleep 0.02; done
./client --client kvd.sock "SET a 1" "GET a" "DEL a" >/dev/null
"$UCOV" mount --pid $pid -f mnt 2>mount.err &
mpid=$!
for _ in $(seq 100); do [ -e mnt/modules ] && break; sleep 0.05; done
g=mnt/gcov$WORK/kvd.gcda
[ -f "$g" ] && [ -L "${g%.gcda}.gcno" ] && [ "$(readlink "${g%.gcda}.gcno")" = "$WORK/kvd.gcno" ] &&
  [ -f mnt/reset ] && pass "the tree" || fail "the tree: $(find mnt | head -5)"
cp -a mnt/. copy/ && "$UCOV" pull --pid $pid -o pulled >/dev/null 2>&1 &&
  cmp copy/gcov"$WORK"/kvd.gcda pulled/gcov"$WORK"/kvd.gcda && cmp copy/modules pulled/modules &&
  [ "$(stat -c %s "$g")" = "$(stat -c %s pulled/gcov"$WORK"/kvd.gcda)" ] && pass "cp -a of the mount equals ucov pull" ||
  fail "cp -a of the mount equals ucov pull"
if command -v lcov >/dev/null; then
  lcov -q --capture --directory "mnt/gcov$WORK" -o m.info 2>/dev/null &&
    grep -q "^SF:$SRC/examples/daemon/kvd.c$" m.info && grep -q '^FNDA:1,cmd_del$' m.info && pass "lcov --capture --directory on the mount" ||
    fail "lcov --capture --directory on the mount"
fi
(cd "mnt/gcov$WORK" && gcov -n kvd.gcda 2>&1) | grep -q "File '$SRC/examples/daemon/kvd.c'" &&
  pass "gcov on a mounted .gcda" || fail "gcov on a mounted .gcda"
echo 1 >mnt/reset && "$UCOV" pull --pid $pid -o after >/dev/null 2>&1 &&
  "$UCOV" report -q after --lcov after.info && grep -q '^FNDA:0,cmd_del$' after.info && pass "writing to reset resets everything" ||
  fail "writing to reset resets everything"
./client --client kvd.sock "DEL b" >/dev/null
echo x >"$g" && "$UCOV" pull --pid $pid -o after2 >/dev/null 2>&1 &&
  "$UCOV" report -q after2 --lcov after2.info && grep -q '^FNDA:0,cmd_del$' after2.info && pass "writing to a .gcda resets it" ||
  fail "writing to a .gcda resets it"
! (echo x >mnt/modules) 2>/dev/null && pass "modules is read-only" || fail "modules is read-only"
# The target closes connections idle for 10 s: the mount connects again.
sleep 11
[ -s mnt/modules ] && cat "$g" >/dev/null && pass "the mount outlives an idle connection" || fail "the mount outlives an idle connection"
kill $pid
wait $pid
st=0
for _ in $(seq 100); do kill -0 $mpid 2>/dev/null || break; sleep 0.05; done
wait $mpid || st=$?
[ $st = 1 ] && grep -q "process $pid exited: unmounting" mount.err && ! mount | grep -q "$WORK/mnt" &&
  pass "the target exits: status $st" || fail "the target exits: status $st, $(cat mount.err)"
fusermount3 -u mnt 2>/dev/null
# An LLVM profile: llvm-profdata reads the mounted file; pgo/reset resets it.
if command -v clang >/dev/null && command -v llvm-profdata >/dev/null; then
  CC=clang "$UCOV" cc --pgo -O0 "${SANFLAGS[@]}" "$SRC/examples/daemon/kvd.c" -o pkvd
  rm -f kvd.sock
  ./pkvd kvd.sock &
  pid=$!
  for _ in $(seq 200); do [ -S kvd.sock ] && [ -S "rt/$pid.sock" ] && break; sleep 0.02; done
  ./client --client kvd.sock "SET a 1" "DEL a" >/dev/null
  "$UCOV" mount --pid $pid -f mnt 2>pmount.err &
  mpid=$!
  for _ in $(seq 100); do [ -e mnt/modules ] && break; sleep 0.05; done
  cp mnt/pgo/pkvd.profraw p1.profraw
  llvm-profdata show --function=cmd_del --counts p1.profraw 2>/dev/null | grep -q 'Function count: 1' &&
    pass "llvm-profdata reads a mounted .profraw" || fail "llvm-profdata reads a mounted .profraw"
  echo 1 >mnt/pgo/reset && cp mnt/pgo/pkvd.profraw p2.profraw &&
    llvm-profdata show --function=cmd_del --counts p2.profraw 2>/dev/null | grep -q 'Function count: 0' &&
    pass "pgo/reset resets the LLVM profile" || fail "pgo/reset resets the LLVM profile"
  fusermount3 -u mnt
  wait $mpid
  st=$?
  [ $st = 0 ] && pass "leaving with fusermount3 -u: status $st" || fail "leaving with fusermount3 -u: status $st, $(cat pmount.err)"
  kill $pid
  wait $pid
fi
finish mount
