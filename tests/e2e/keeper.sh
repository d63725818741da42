#!/usr/bin/env bash
# The keeper of shared counters (`ucov cc --gcov --shared-counters`) writes,
# when its owner is SIGKILLed, exactly what the owner's exit would have
# written then, whatever came before (keeper/kt.c, ten units and main):
# - after a dump: __gcov_dump + __gcov_reset, and a dump in place (ucov pull
#   --in-place): the files hold every step() run, none twice; after
#   __gcov_dump alone they hold what the program's own exit writes;
# - during the exit dump, killed right after a rename landed and right
#   before one (strace delays them): every unit exact, one run, no file
#   left half-made;
# - after a dlopen: the program's units exact, the keeper unharmed by a
#   unit it never mapped;
# - the keeper is not a child of the program: wait(NULL) says ECHILD.
# Counts are gcov's (the oracle) against the runs the program logged.
# Usage: keeper.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
fresh_workdir
export UCOV_RUNTIME_DIR=$WORK/rt
mkdir -p rt && chmod 700 rt
K=$SRC/tests/e2e/keeper
units=()
for i in 0 1 2 3 4 5 6 7 8 9; do
  printf 'int u%d(int x) {\n  return x %% 3 ? x + %d : x - 1;\n}\n' $i $i >u$i.c
  units+=("u$i.c")
done

# build DIR: kt (and lib.so) built in DIR, which it runs in.
build() {
  mkdir -p "$1" && cp "$K/kt.c" "$K/lib.c" "${units[@]}" "$1/" && (
    cd "$1" &&
      CC=gcc "$UCOV" cc --gcov --shared-counters -O1 "${SANFLAGS[@]}" kt.c "${units[@]}" -o kt -ldl &&
      CC=gcc "$UCOV" cc --gcov -shared -fPIC -O1 "${SANFLAGS[@]}" lib.c -o lib.so
  ) >"$1.build.log" 2>&1 || fail "$1: build: $(tail -3 "$1.build.log")"
}
# calls DIR UNIT FUNC: gcov's count of the line that opens FUNC in UNIT.c
# (kt-UNIT.gcda).
calls() {
  (cd "$1" && gcov -t "kt-$2.gcda" 2>/dev/null) |
    sed -n "s/^ *\([0-9]*\): *[0-9]*:\(static \)\?int $3(int [a-z]*) {\$/\1/p"
}
# runs DIR: the "runs" of u0's .gcda (gcov's header).
runs() { (cd "$1" && gcov -t kt-u0.gcda 2>/dev/null | sed -n 's/^ *-: *0:Runs:\([0-9]*\)$/\1/p'); }
# settled DIR: no kt of DIR left (its keeper done).
settled() { for _ in $(seq 100); do pgrep -f "^./kt " >/dev/null || return 0; sleep 0.1; done; return 1; }
# exact DIR WHAT: every unit and step() called once per logged run.
exact() {
  local d=$1 n bad=
  n=$(grep -c . "$d/count.log")
  for f in step u0 u3 u9; do
    local c
    c=$(calls "$d" "$([ $f = step ] && echo kt || echo $f)" $f)
    [ "$c" = "$n" ] || bad="$bad $f=$c"
  done
  [ -z "$bad" ] && [ "$n" -gt 0 ] && pass "$2: every unit counts the $n runs" || fail "$2: $n runs logged, gcov says$bad"
}
# start DIR MODE N: kt MODE N in DIR, its output in DIR/out; kt is its pid.
start() {
  (cd "$1" && exec ./kt "$2" "$3" >out 2>err) &
  for _ in $(seq 100); do grep -q '^pid' "$1/out" 2>/dev/null && break; sleep 0.05; done
  kt=$(sed -n 's/^pid //p' "$1/out")
}
# until_said DIR WORD
until_said() { for _ in $(seq 200); do grep -qx "$2" "$1/out" 2>/dev/null && return 0; sleep 0.05; done; return 1; }

# wait(NULL) in the program: no child of its own to wait for.
build wait && (cd wait && timeout 10 ./kt wait 1 >out) &&
  grep -qx 'wait -1 ECHILD' wait/out && pass "the keeper is no child of the program: wait(NULL) says ECHILD" ||
  fail "the keeper is no child of the program: $(cat wait/out 2>/dev/null)"

# After __gcov_dump + __gcov_reset, and after a dump in place.
for mode in dump inplace; do
  build $mode
  if [ $mode = inplace ]; then
    mkfifo $mode/in
    (cd $mode && exec ./kt inplace 300 <in >out 2>err) &
    exec {feed}>$mode/in
    until_said $mode half
    kt=$(sed -n 's/^pid //p' $mode/out)
    "$UCOV" pull --pid "$kt" --in-place 2>$mode/pull.err || fail "$mode: pull --in-place: $(cat $mode/pull.err)"
    echo go >&$feed
  else
    start $mode dump 300
  fi
  until_said $mode ready || fail "$mode: kt never got ready: $(cat $mode/err)"
  kill -9 "$kt"
  [ $mode = inplace ] && exec {feed}>&-
  settled || fail "$mode: the keeper never ended"
  exact $mode "killed after a $mode"
  [ "$(runs $mode)" = 1 ] && pass "$mode: one run in the files" || fail "$mode: runs '$(runs $mode)'"
done

# After __gcov_dump alone the exit writes nothing more: killed, the same.
build nodump
start nodump nodump 100
until_said nodump ready || fail "nodump: kt never got ready: $(cat nodump/err)"
kill -9 "$kt"
settled || fail "nodump: the keeper never ended"
c=$(calls nodump kt step)
[ "$c" = 100 ] && pass "killed after __gcov_dump alone: what its exit writes (100 of 200 runs)" ||
  fail "killed after __gcov_dump alone: step() '$c', not 100"

# During the exit dump: SIGKILL lands right after a rename (delay_exit) or
# right before one (delay_enter), four units in.
can_trace=1
command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null || can_trace=
[ -n "$can_trace" ] || echo "keeper: the exit dump's kills skipped, strace cannot trace here"
whens=()
[ -n "$can_trace" ] && whens=(exit enter)
for when in "${whens[@]}"; do
  d=exit-$when
  build "$d"
  (cd "$d" && exec strace -qq -o /dev/null -e trace=rename -e inject=rename:delay_"$when"=400000:when=4+ \
    ./kt exit 200 >out 2>err) &
  until_said "$d" exiting || fail "$d: kt never got to its exit"
  kt=$(sed -n 's/^pid //p' "$d/out")
  sleep 1
  kill -9 "$kt"
  settled || fail "$d: the keeper never ended"
  wait
  exact "$d" "killed in the exit dump, a rename's $when delayed"
  [ "$(runs "$d")" = 1 ] && pass "$d: one run in the files" || fail "$d: runs '$(runs "$d")'"
  left=$(find "$d" -name '*.ucov-tmp.*' | wc -l)
  [ "$left" = 0 ] && pass "$d: no half-made file left" || fail "$d: $left temporary files left"
done

# After a dlopen: the library's units are private to the dead owner.
build dlopen
start dlopen dlopen 150
until_said dlopen ready || fail "dlopen: kt never got ready: $(cat dlopen/err)"
kill -9 "$kt"
settled || fail "dlopen: the keeper never ended"
exact dlopen "killed after a dlopen"
[ ! -e dlopen/lib.so-lib.gcda ] && pass "dlopen: the library's units, never shared, are not written" ||
  fail "dlopen: lib.gcda written by the keeper"
finish keeper
