#!/usr/bin/env bash
# Code that comes and goes: a program loads many copies of one library built
# by `ucov cc --gcov` and unloads a quarter of them each round. Every load's
# counts add up: in `ucov run`'s exit tree (with and without its periodic
# pulls), in the build's .gcda files, and across `pull --reset` loops run
# while libraries go (each pull succeeds; the pulls plus the exit tree hold
# every call exactly); gcc's units and clang's.
# Usage: unload.sh UCOV SRCDIR WORKDIR [SANITIZE [CC]]
# (gcc's units; a sanitizer build whose runtime clang built runs none of it:
# one process cannot mix gcc's and clang's sanitizer runtimes.)
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-} RTCC=$(basename "${5:-gcc}")
. "$SRC/tests/lib.sh"
sanflags "$SAN"
fresh_workdir
if [ -n "$SAN" ] && [[ $RTCC != gcc* ]]; then
  echo "unload: a $RTCC sanitizer runtime; the gcc and ASan builds run this test"
  finish unload
  exit
fi
export UCOV_RUNTIME_DIR=$WORK/rt
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0
U=$SRC/tests/e2e/unload
COPIES=40 ROUNDS=40
[ -n "$SAN" ] && ROUNDS=20
want=0
for i in $(seq 0 $((COPIES - 1))); do want=$((want + i % 5 + 1)); done
want=$((want * ROUNDS))

# calls DIR...: lib_call's entry count summed over the trees given.
calls() {
  local n=0 d c
  for d in "$@"; do
    [ -d "$d" ] || continue
    "$UCOV" report "$d" --lcov "$d.info" 2>/dev/null || { echo "report $d failed"; return; }
    c=$(sed -n 's/^FNDA:\([0-9]*\),lib_call$/\1/p' "$d.info" | head -1)
    n=$((n + ${c:-0}))
  done
  echo $n
}

# gcov_cases CC: the program and the library built by CC (gcc's units, or
# clang's), in a directory of their own.
gcov_cases() {
  local cc=$1 got
  mkdir -p "$cc" && cd "$cc" || return
  CC=$cc "$UCOV" cc --gcov "${SANFLAGS[@]}" -g -O0 -fPIC -shared "$U/lib.c" -o lib.so &&
    CC=$cc "$UCOV" cc --gcov "${SANFLAGS[@]}" -g -O0 "$U/main.c" -o main -ldl || {
    fail "$cc: build"
    cd .. && return
  }
  mkdir -p copies && for i in $(seq 0 $((COPIES - 1))); do cp lib.so "copies/copy$i.so"; done

  # 1. ucov run: the exit tree holds every load's calls.
  "$UCOV" run -o run1 -- ./main "$PWD/copies" $COPIES $ROUNDS >/dev/null 2>run1.err
  got=$(calls run1)
  [ "$got" = "$want" ] && pass "$cc: ucov run: every load's calls in the exit tree ($got)" ||
    fail "$cc: ucov run: every load's calls in the exit tree ($got of $want)" "$(tail -3 run1.err)"

  # 2. The same with pulls into the tree while it runs.
  "$UCOV" run -o run2 --interval 0.03 -- ./main "$PWD/copies" $COPIES $ROUNDS >/dev/null 2>run2.err
  got=$(calls run2)
  [ "$got" = "$want" ] && pass "$cc: ucov run --interval: every load's calls in the exit tree ($got)" ||
    fail "$cc: ucov run --interval: every load's calls ($got of $want)" "$(tail -3 run2.err)"

  # 3. No exit directory: the build's .gcda files, as the runtime merges them.
  mkdir -p build && cp "$U/lib.c" "$U/main.c" build/ && (
    cd build &&
      CC=$cc "$UCOV" cc --gcov "${SANFLAGS[@]}" -g -O0 -fPIC -shared lib.c -o lib.so &&
      CC=$cc "$UCOV" cc --gcov "${SANFLAGS[@]}" -g -O0 main.c -o main -ldl &&
      mkdir -p copies && for i in $(seq 0 $((COPIES - 1))); do cp lib.so "copies/copy$i.so"; done &&
      ./main "$PWD/copies" $COPIES $ROUNDS >/dev/null
  )
  got=$(calls build)
  [ "$got" = "$want" ] && pass "$cc: build .gcda: every load's calls ($got)" ||
    fail "$cc: build .gcda: every load's calls ($got of $want)"

  # 4. pull --reset while libraries go: every pull succeeds, and the pulls
  # plus the exit tree hold every call once.
  target_start "$PWD/exit4" ./main "$PWD/copies" $COPIES $((ROUNDS * 4)) linger >out4.txt
  mkdir -p p
  local bad=0 n=0
  while ! grep -q calls out4.txt && kill -0 "$pid" 2>/dev/null && [ $n -lt 2000 ]; do
    n=$((n + 1))
    "$UCOV" pull --pid "$pid" --reset -o p/$n 2>p/$n.err || { bad=$((bad + 1)); cp p/$n.err bad.err; }
  done
  "$UCOV" pull --pid "$pid" --reset -o p/last 2>p/last.err || { bad=$((bad + 1)); cp p/last.err bad.err; }
  target_stop
  [ $bad = 0 ] && [ $n -ge 3 ] && pass "$cc: pull --reset while libraries go: $((n + 1)) pulls, none failed" ||
    fail "$cc: pull --reset while libraries go: $bad of $((n + 1)) failed" "$(cat bad.err 2>/dev/null)"
  got=$(calls p/* exit4)
  [ "$got" = $((want * 4)) ] && pass "$cc: pull --reset while libraries go: pulls + exit tree = every call ($got)" ||
    fail "$cc: pull --reset while libraries go: pulls + exit tree ($got of $((want * 4)))"
  cd .. || exit 1
}
gcov_cases gcc
[ -z "$SAN" ] && command -v clang >/dev/null && gcov_cases clang

# 5. LLVM profiles of libraries that go (pgo/<copy>.profraw): listed, then
# gone. Every pull succeeds and says what it skipped. (12 copies: a process
# serves 32 modules' profiles at once.)
if command -v clang >/dev/null && [ -z "$SAN" ]; then
  mkdir -p pgo && (
    cd pgo &&
      CC=clang "$UCOV" cc --pgo -g -O0 -fPIC -shared "$U/lib.c" -o lib.so &&
      CC=clang "$UCOV" cc --pgo -g -O0 "$U/main.c" -o main -ldl &&
      mkdir -p copies p && for i in $(seq 0 11); do cp lib.so "copies/copy$i.so"; done
  ) || fail "pgo build"
  export LLVM_PROFILE_FILE=$WORK/pgo/exit-%m.profraw
  target_start "$WORK/pgo/exit" pgo/main "$WORK/pgo/copies" 12 $((ROUNDS * 4)) linger >out5.txt
  bad=0 n=0 skipped=0
  while ! grep -q calls out5.txt && kill -0 "$pid" 2>/dev/null && [ $n -lt 2000 ]; do
    n=$((n + 1))
    r=; [ $((n % 2)) = 0 ] && r=--reset
    "$UCOV" pull --pid "$pid" $r -o pgo/p/$n 2>pgo/$n.err || { bad=$((bad + 1)); cp pgo/$n.err bad5.err; }
    grep -q 'gone since it was listed' pgo/$n.err && skipped=$((skipped + 1))
  done
  target_stop
  unset LLVM_PROFILE_FILE
  [ $bad = 0 ] && [ $n -ge 3 ] && pass "pulls while LLVM profiles go: $n pulls, none failed ($skipped skipped an object)" ||
    fail "pulls while LLVM profiles go: $bad of $n failed" "$(cat bad5.err 2>/dev/null)"
fi
finish unload
