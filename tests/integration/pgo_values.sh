#!/usr/bin/env bash
# LLVM value profiles and MC/DC bitmaps against compiler-rt: indirect-call
# targets and memop sizes (clang -fprofile-generate, and -fprofile-instr-generate
# -mllvm -enable-value-profiling) for every clang present (raw versions 8 and
# 10), %m pools holding value data, MC/DC (clang 19+), the live object after a
# reset, and versions ucov does not write.
# Usage: pgo_values.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
PROG=$SRC/tests/integration/pgo_values.c
RUN=(c 0 40 c 1 25 c 2 9 c 3 3 m 3 10 m 700 6 m 64 5 s 100 4 s 4000 2 d 3 2 d 4 1)
SHOW=(show --all-functions --counts --ic-targets --memop-sizes)
ran=0
for v in 14 16 19; do
  CLANG=clang-$v PROFDATA=llvm-profdata-$v
  command -v $CLANG >/dev/null && command -v $PROFDATA >/dev/null || {
    echo "skip $CLANG: not installed"
    continue
  }
  ran=$((ran + 1))
  for mode in ir fe; do
    FLAGS=(-fprofile-generate)
    [ $mode = fe ] && FLAGS=(-fprofile-instr-generate -mllvm -enable-value-profiling)
    d=$v-$mode && mkdir -p $d && cd $d || exit 1
    $CLANG -O1 "${FLAGS[@]}" "${SANFLAGS[@]}" -c "$PROG" -o p.o
    $CLANG "${FLAGS[0]}" "${SANFLAGS[@]}" p.o -o p_rt
    CC=$CLANG "$UCOV" cc --pgo "${SANFLAGS[@]}" p.o -o p_ucov
    LLVM_PROFILE_FILE=rt.profraw ./p_rt "${RUN[@]}"
    LLVM_PROFILE_FILE=ucov.profraw ./p_ucov "${RUN[@]}"
    $PROFDATA "${SHOW[@]}" rt.profraw >rt.show
    $PROFDATA "${SHOW[@]}" ucov.profraw >ucov.show 2>&1
    cmp -s rt.show ucov.show && grep -q 'op_dbl, *25 \]' ucov.show && pass "$CLANG $mode: value profile equals compiler-rt's" ||
      fail "$CLANG $mode: value profile equals compiler-rt's: $(diff rt.show ucov.show | head -5)"
    if [ $mode = ir ]; then
      grep -qP '^\s*\[\s*\d+,\s*513,\s*6 \]' ucov.show && grep -qP '^\s*\[\s*\d+,\s*3,\s*10 \]' ucov.show &&
        pass "$CLANG: memop sizes by range (700 -> 513, 3 -> 3)" || fail "$CLANG: memop sizes by range (700 -> 513, 3 -> 3)"
    fi
    # %m pools: two runs merge their value data, as compiler-rt's do.
    for w in rt ucov; do
      mkdir -p pool-$w
      (cd pool-$w && for _ in 1 2; do LLVM_PROFILE_FILE=p-%m.profraw ../p_$w "${RUN[@]}"; done)
      $PROFDATA "${SHOW[@]}" pool-$w/p-*.profraw >pool-$w.show 2>&1
    done
    # (Indirect-call targets are addresses: with ASLR, old runs' targets stay
    # unnamed in a pool, for compiler-rt as for ucov; counters add up.)
    [ "$(find pool-rt pool-ucov -name '*profraw*' | wc -l)" = 2 ] && cmp -s pool-rt.show pool-ucov.show &&
      grep -qE 'Block counts: \[80[],]|Function count: 80' pool-ucov.show && pass "$CLANG $mode: %m pool with values equals compiler-rt's" ||
      fail "$CLANG $mode: %m pool with values equals compiler-rt's: $(ls pool-rt pool-ucov)
$(diff pool-rt.show pool-ucov.show | head -5) $(grep -A4 'op_inc:' pool-ucov.show)"
    cd .. || exit 1
  done
done
[ $ran -gt 0 ] || {
  echo "skip: no clang-NN with its llvm-profdata"
  exit 0
}

# A pool whose value data is cut short is replaced, with a message.
d=$(find . -maxdepth 1 -type d -name '*-ir' | sort | tail -1) && d=${d#./} && cd "$d" || exit 1
v=${d%%-*}
pf=$(ls pool-ucov/p-*.profraw)
truncate -s -16 "$pf"
(cd pool-ucov && LLVM_PROFILE_FILE=p-%m.profraw ../p_ucov "${RUN[@]}" 2>../err.txt)
grep -q 'not a profile of this program' err.txt &&
  llvm-profdata-"$v" "${SHOW[@]}" "$pf" | grep -q 'op_dbl, *25 \]' && pass "%m: a pool with truncated value data is replaced, with a message" ||
  fail "%m: a pool with truncated value data is replaced, with a message"

# Live: values after a reset are the second phase's only.
# (As with compiler-rt, the profile file is emptied when the program starts.)
echo stale >stale.profraw
coproc P { LLVM_PROFILE_FILE=stale.profraw UCOV_RUNTIME_DIR=$WORK/rt exec ./p_ucov; }
pid=$P_PID
cmd() { echo "$1" >&"${P[1]}" && read -r -t 20 _ <&"${P[0]}"; }
cmd "c 1 7" && cmd "m 700 3"
for _ in $(seq 200); do [ -S "$WORK/rt/$pid.sock" ] && break; sleep 0.02; done
[ -e stale.profraw ] && [ ! -s stale.profraw ] && pass "the profile file is emptied at start" || fail "the profile file is emptied at start"
UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" pull --pid "$pid" -o L1 pgo/p_ucov.profraw &&
  UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" reset --pid "$pid" pgo/p_ucov.profraw && pass "pull and reset pgo/p_ucov.profraw" ||
  fail "pull and reset pgo/p_ucov.profraw"
cmd "c 2 5" && cmd "c 1 2"
UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" pull --pid "$pid" -o L2 pgo/p_ucov.profraw
cmd q
wait "$pid"
llvm-profdata-"$v" "${SHOW[@]}" stale.profraw | grep -q 'op_dbl, *2 \]' && pass "the exit profile: counts since the reset" ||
  fail "the exit profile: counts since the reset"
llvm-profdata-"$v" "${SHOW[@]}" L1/pgo/p_ucov.profraw >l1.show
llvm-profdata-"$v" "${SHOW[@]}" L2/pgo/p_ucov.profraw >l2.show
grep -q 'op_dbl, *7 \]' l1.show && grep -q 'op_neg, *5 \]' l2.show &&
  grep -q 'op_dbl, *2 \]' l2.show && ! grep -qP '^\s*\[\s*\d+,\s*513,\s*[1-9]' l2.show && pass "live values after a reset: only the second phase" ||
  fail "live values after a reset: only the second phase"
cd .. || exit 1

# MC/DC bitmaps (clang 19+): the same report as compiler-rt's; a live reset clears them.
if command -v clang-19 >/dev/null && command -v llvm-cov-19 >/dev/null; then
  mkdir -p mcdc && cd mcdc || exit 1
  F=(-O1 -fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc)
  clang-19 "${F[@]}" "${SANFLAGS[@]}" -c "$PROG" -o p.o
  clang-19 -fprofile-instr-generate "${SANFLAGS[@]}" p.o -o p_rt
  CC=clang-19 "$UCOV" cc --pgo "${SANFLAGS[@]}" p.o -o p_ucov
  for w in rt ucov; do
    LLVM_PROFILE_FILE=$w.profraw ./p_$w d 3 2 d 1 1 d 4 1
    llvm-profdata-19 merge -o $w.profdata $w.profraw
    llvm-cov-19 show --show-mcdc ./p_$w -instr-profile=$w.profdata | sed "s/p_$w//" >$w.mcdc
  done
  cmp -s rt.mcdc ucov.mcdc && grep -q 'C2-Pair: covered' ucov.mcdc && pass "MC/DC: llvm-cov show --show-mcdc equals compiler-rt's" ||
    fail "MC/DC: llvm-cov show --show-mcdc equals compiler-rt's"
  coproc M { UCOV_RUNTIME_DIR=$WORK/rt exec ./p_ucov; }
  pid=$M_PID
  echo "d 3 1" >&"${M[1]}" && read -r -t 20 _ <&"${M[0]}"
  for _ in $(seq 200); do [ -S "$WORK/rt/$pid.sock" ] && break; sleep 0.02; done
  UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" reset --pid "$pid" pgo/p_ucov.profraw
  echo "d 1 1" >&"${M[1]}" && read -r -t 20 _ <&"${M[0]}"
  UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" pull --pid "$pid" -o L pgo/p_ucov.profraw
  echo q >&"${M[1]}"
  wait "$pid"
  llvm-profdata-19 merge -o live.profdata L/pgo/p_ucov.profraw &&
    llvm-cov-19 show --show-mcdc ./p_ucov -instr-profile=live.profdata >live.mcdc
  # One test vector (a=1 b=0 c=0) since the reset: no pair (without the
  # reset, a=1 b=1 c=0 before it would make the b pair).
  grep -q 'Executed MC/DC Test Vectors' live.mcdc && ! grep -q 'Pair: covered' live.mcdc && pass "MC/DC: a reset clears the bitmaps" ||
    fail "MC/DC: a reset clears the bitmaps"
  # clang 19 front-end code read as another version: a clear message, the program runs.
  UCOV_LLVM_PROFILE_VERSION=7 LLVM_PROFILE_FILE=v7.profraw ./p_ucov d 1 1 2>err.txt &&
    grep -q 'not supported' err.txt && [ ! -e v7.profraw ] && pass "an unsupported raw profile version: message, no file, the program runs" ||
    fail "an unsupported raw profile version: message, no file, the program runs"
  cd .. || exit 1
else
  echo "skip MC/DC: clang-19 not installed"
fi
finish pgo_values
