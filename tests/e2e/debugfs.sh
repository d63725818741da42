#!/usr/bin/env bash
# The kernel docs' own commands against `ucov mount` at /sys/kernel/debug, in a
# private mount namespace: lcov's kernel mode (lcov --capture with no
# --directory finds gcov/reset; lcov --zerocounters), and the Clang PGO
# workflow (cp -a /sys/kernel/debug/pgo/profraw, llvm-profdata merge, a
# rebuild with -fprofile-instr-use; pgo/reset). A pull tree has the same names:
# lcov's kernel mode reads it (lcov_gcov_dir), llvm-profdata its pgo/profraw.
# (The mount needs root and unshare -m; the pull trees are checked anyway.)
# Usage: debugfs.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
mountable=1
[ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null ||
  { echo "mount checks skipped: needs root and unshare -m"; mountable=; }
[ -c /dev/fuse ] && command -v fusermount3 >/dev/null || { echo "mount checks skipped: no FUSE"; mountable=; }
"$UCOV" mount --help 2>&1 | grep -q 'built without FUSE' &&
  { echo "mount checks skipped: no libfuse3"; mountable=; }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
gcc -O1 "$SRC/examples/daemon/kvd.c" -o client
wait_for() { for _ in $(seq 250); do [ -e "$1" ] && return 0; sleep 0.02; done; return 1; }

# gcov: lcov's kernel mode.
CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" "$SRC/examples/daemon/kvd.c" -o kvd
./kvd kvd.sock &
pid=$!
wait_for kvd.sock && wait_for "rt/$pid.sock"
./client --client kvd.sock "SET a 1" "SET b 2" "DEL a" >/dev/null
# The same in a pull tree, read as lcov reads a copy of the kernel's gcov dir.
"$UCOV" pull --pid $pid -o G 2>/dev/null && [ -f G/gcov/reset ] && [ ! -s G/gcov/reset ] &&
  [ "$(readlink G/gcov/kernel/gcov/base.gcno)" = /kernel/gcov/base.gcno ] && pass "a pull tree has gcov/reset and lcov's base.gcno link" ||
  fail "a pull tree has gcov/reset and lcov's base.gcno link"
lcov -q --capture --rc lcov_gcov_dir="$WORK/G/gcov" -o g.info >g.out 2>&1 &&
  grep -q "^SF:$SRC/examples/daemon/kvd.c$" g.info && [ "$(fnda g.info cmd_set)" = 2 ] &&
  [ "$(fnda g.info cmd_del)" = 1 ] && pass "lcov kernel mode on a pull tree" || fail "lcov kernel mode on a pull tree ($(tail -3 g.out))"
if [ -n "$mountable" ]; then
  cat >lcov_kernel.sh <<'SH'
set -u
"$UCOV" mount --pid "$PID" -f /sys/kernel/debug 2>mount.err &
m=$!
for _ in $(seq 250); do [ -e /sys/kernel/debug/gcov/reset ] && break; sleep 0.02; done
[ -f /sys/kernel/debug/gcov/reset ] && echo "ok gcov/reset"
lcov -q --capture -o k.info >lcov.out 2>&1 && echo "ok capture"
lcov -q --zerocounters >>lcov.out 2>&1 && echo "ok zerocounters"
lcov -q --capture -o z.info >>lcov.out 2>&1 && echo "ok capture after zero"
fusermount3 -u /sys/kernel/debug
wait $m
SH
  UCOV=$UCOV PID=$pid unshare -m --propagation private bash lcov_kernel.sh >k.txt 2>&1
  for what in "gcov/reset" "capture" "zerocounters" "capture after zero"; do
    grep -qx "ok $what" k.txt && pass "lcov kernel mode: $what" || fail "lcov kernel mode: $what ($(tail -3 lcov.out 2>/dev/null))"
  done
  grep -q "^SF:$SRC/examples/daemon/kvd.c$" k.info && [ "$(fnda k.info cmd_set)" = 2 ] &&
    [ "$(fnda k.info cmd_del)" = 1 ] && pass "lcov --capture (kernel mode) counts" || fail "lcov --capture (kernel mode) counts"
  [ "$(fnda z.info cmd_set)" = 0 ] && pass "lcov --zerocounters reset the target (cmd_set" || fail "lcov --zerocounters reset the target (cmd_set $(fnda z.info cmd_set))"
fi
kill $pid
wait $pid

# Relative source names (`cd build && cc -c ../src/kvd.c`, as make does): lcov's
# kernel mode resolves them against base.gcno's build directory, which must be
# the one they were compiled in (as a kernel's is its object tree). lcov 1.16
# only warns about a source it cannot find, lcov 2 fails: the SF: paths are
# checked. A unit with relative names from another directory is named in a
# warning (lcov takes one build directory).
mkdir -p rel/src rel/build rel/lib rel/libbuild
cp "$SRC/examples/daemon/kvd.c" rel/src/kvd.c
printf 'int extra_unit(int x) { return x > 1 ? x : -x; }\n' >rel/lib/extra.c
(cd rel/build && CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" -c ../src/kvd.c -o kvd.o) &&
  (cd rel/libbuild && CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" -c ../lib/extra.c -o extra.o) &&
  (cd rel/build && CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" kvd.o -o kvd &&
    CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" kvd.o ../libbuild/extra.o -o kvd2) ||
  fail "relative names: build"
for v in kvd kvd2; do
  rel/build/$v rel-$v.sock &
  pid=$!
  wait_for rel-$v.sock && wait_for "rt/$pid.sock"
  ./client --client rel-$v.sock "SET a 1" "SET b 2" "DEL a" >/dev/null
  "$UCOV" pull --pid $pid -o R-$v 2>R-$v.err
  [ "$(readlink R-$v/gcov/kernel/gcov/base.gcno)" = "$WORK/rel/build/kernel/gcov/base.gcno" ] &&
    pass "$v: base.gcno names the build directory" || fail "$v: base.gcno names the build directory: $(readlink R-$v/gcov/kernel/gcov/base.gcno)"
  lcov -q --capture --rc lcov_gcov_dir="$WORK/R-$v/gcov" -o r-$v.info >r-$v.out 2>&1
  [ "$(grep '^SF:.*kvd.c$' r-$v.info)" = "SF:$WORK/rel/src/kvd.c" ] && [ "$(fnda r-$v.info cmd_set)" = 2 ] &&
    pass "$v: lcov kernel mode, relative names" || fail "$v: lcov kernel mode, relative names: $(grep ^SF: r-$v.info | head -3) $(tail -2 r-$v.out)"
  if [ $v = kvd2 ]; then
    grep -q "extra.gcno: relative source names, compiled in $WORK/rel/libbuild" R-$v.err &&
      pass "a unit from another build directory is named" || fail "a unit from another build directory is named: $(cat R-$v.err)"
  else
    ! grep -q 'relative source names' R-$v.err && pass "$v: pull said" || fail "$v: pull said: $(cat R-$v.err)"
  fi
  if [ -n "$mountable" ] && [ $v = kvd ]; then
    cat >lcov_rel.sh <<'SH'
set -u
"$UCOV" mount --pid "$PID" -f /sys/kernel/debug 2>mount.err &
m=$!
for _ in $(seq 250); do [ -e /sys/kernel/debug/gcov/reset ] && break; sleep 0.02; done
readlink /sys/kernel/debug/gcov/kernel/gcov/base.gcno
lcov -q --capture -o rk.info >lcov-rel.out 2>&1 && echo "ok capture"
fusermount3 -u /sys/kernel/debug
wait $m
SH
    UCOV=$UCOV PID=$pid unshare -m --propagation private bash lcov_rel.sh >rk.txt 2>&1
    grep -qx "$WORK/rel/build/kernel/gcov/base.gcno" rk.txt && grep -qx "ok capture" rk.txt &&
      [ "$(grep '^SF:.*kvd.c$' rk.info)" = "SF:$WORK/rel/src/kvd.c" ] && pass "lcov kernel mode on the mount, relative names" ||
      fail "lcov kernel mode on the mount, relative names: $(cat rk.txt) $(grep ^SF: rk.info 2>/dev/null)"
  fi
  kill $pid
  wait $pid
done

# LLVM: the Clang PGO kernel docs' commands, word for word but the paths.
if command -v clang >/dev/null && command -v llvm-profdata >/dev/null; then
  CC=clang "$UCOV" cc --pgo -O1 "${SANFLAGS[@]}" "$SRC/examples/daemon/kvd.c" -o pkvd
  ./pkvd pkvd.sock &
  pid=$!
  wait_for pkvd.sock && wait_for "rt/$pid.sock"
  ./client --client pkvd.sock "SET a 1" "SET b 2" "GET a" >/dev/null
  # The same names in a pull tree.
  "$UCOV" pull --pid $pid -o P 2>/dev/null && [ -s P/pgo/profraw ] && [ -f P/pgo/reset ] &&
    [ ! -s P/pgo/reset ] && llvm-profdata merge --output=pull.profdata P/pgo/profraw &&
    llvm-profdata show --function=cmd_set --counts pull.profdata | grep -q 'Function count: 2' &&
    pass "a pull tree's pgo/profraw and pgo/reset" || fail "a pull tree's pgo/profraw and pgo/reset"
  if [ -n "$mountable" ]; then
    cat >pgo_kernel.sh <<'SH'
set -u
"$UCOV" mount --pid "$PID" -f /sys/kernel/debug 2>mount.err &
m=$!
for _ in $(seq 250); do [ -e /sys/kernel/debug/pgo/profraw ] && break; sleep 0.02; done
cp -a /sys/kernel/debug/pgo/profraw vmlinux.profraw && echo "ok cp"
# (the later series' name: the same file, and listed)
cp -a /sys/kernel/debug/pgo/vmlinux.profraw new-name.profraw && cmp -s vmlinux.profraw new-name.profraw &&
  ls /sys/kernel/debug/pgo | grep -qx vmlinux.profraw && echo "ok new name"
echo 1 >/sys/kernel/debug/pgo/reset && echo "ok reset"
cp -a /sys/kernel/debug/pgo/profraw after.profraw
fusermount3 -u /sys/kernel/debug
wait $m
SH
    UCOV=$UCOV PID=$pid unshare -m --propagation private bash pgo_kernel.sh >p.txt 2>&1
    grep -qx "ok cp" p.txt && llvm-profdata merge --output=vmlinux.profdata vmlinux.profraw &&
      llvm-profdata show --function=cmd_set --counts vmlinux.profdata | grep -q 'Function count: 2' &&
      pass "cp -a pgo/profraw; llvm-profdata merge" || fail "cp -a pgo/profraw; llvm-profdata merge ($(cat p.txt))"
    grep -qx "ok new name" p.txt && llvm-profdata merge --output=new.profdata new-name.profraw &&
      llvm-profdata show --function=cmd_set --counts new.profdata | grep -q 'Function count: 2' &&
      pass "cp -a pgo/vmlinux.profraw, the later PGO series' name" || fail "cp -a pgo/vmlinux.profraw, the later PGO series' name ($(cat p.txt))"
    clang -O1 -fprofile-instr-use=vmlinux.profdata -Werror=profile-instr-unprofiled \
      -Wno-error=profile-instr-out-of-date -c "$SRC/examples/daemon/kvd.c" -o rebuilt.o 2>use.err &&
      pass "a rebuild with -fprofile-instr-use" || fail "a rebuild with -fprofile-instr-use ($(cat use.err))"
    llvm-profdata merge --output=after.profdata after.profraw &&
      llvm-profdata show --function=cmd_set --counts after.profdata | grep -q 'Function count: 0' &&
      pass "pgo/reset" || fail "pgo/reset"
  fi
  kill $pid
  wait $pid
fi

finish debugfs
