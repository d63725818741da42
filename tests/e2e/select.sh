#!/usr/bin/env bash
# Selective instrumentation: --only/--skip globs (and UCOV_ONLY/UCOV_SKIP) on a
# three-directory sample, per translation unit, for gcc and clang in trace,
# gcov and pgo modes: the instrumented objects are exactly the selected ones
# (checked by the symbols each references); a command mixing selected and
# unselected sources is refused; response files are read; UCOV_NO_INSTRUMENT
# keeps one function out.
# Usage: select.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK"/{core,lib,vendor} && cd "$WORK" || exit 1
for d in core lib vendor; do
  printf 'int f_%s(int x) { return x > 2 ? x * 3 : x + 1; }\n' $d >$d/$d.c
done
marker() { # the symbol an instrumented object of a mode references
  case $1 in trace) echo __sanitizer_cov_trace_pc ;; gcov) echo '__gcov_init\|llvm_gcov_init' ;;
  pgo) echo __profc_ ;; esac
}
check() { # CC MODE: --only core and vendor, then --skip vendor
  local cc=$1 mode=$2 m got
  m=$(marker "$mode")
  got=""
  for d in core lib vendor; do
    CC=$cc "$UCOV" cc --"$mode" --only 'core/*' --only "$WORK/vendor/*" -c $d/$d.c -o $d-"$cc"-"$mode".o
    nm $d-"$cc"-"$mode".o | grep -q "$m" && got="$got $d"
  done
  [ "$got" = " core vendor" ] && pass "$cc $mode --only: instrumented$got" || fail "$cc $mode --only: instrumented$got"
  got=""
  for d in core lib vendor; do
    UCOV_SKIP='vendor/*:nothing/*' CC=$cc "$UCOV" cc --"$mode" -c $d/$d.c -o s-$d-"$cc"-"$mode".o
    nm s-$d-"$cc"-"$mode".o | grep -q "$m" && got="$got $d"
  done
  [ "$got" = " core lib" ] && pass "$cc $mode UCOV_SKIP: instrumented$got" || fail "$cc $mode UCOV_SKIP: instrumented$got"
}
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  check $cc trace
  check $cc gcov
  [ $cc = clang ] && check $cc pgo
done
CC=gcc "$UCOV" cc --skip 'lib/*' -c core/core.c lib/lib.c 2>mixed.txt
[ $? = 2 ] && grep -q 'select 1 of the 2 sources' mixed.txt && pass "a mixed command is refused" || fail "a mixed command is refused"
# Base-name globs, and a link of plain objects still gets the runtime.
CC=gcc "$UCOV" cc --skip 'lib.c' -c lib/lib.c -o base.o && ! nm base.o | grep -q __sanitizer_cov &&
  pass "a glob without / matches the base name" || fail "a glob without / matches the base name"
# Response files (@FILE, nested, quoted): ucov sees the sources and -c they hold.
printf -- '-c "core/core.c"\n-o rsp.o' >args.rsp
printf '@args.rsp' >outer.rsp
CC=gcc "$UCOV" cc --trace @outer.rsp && nm rsp.o | grep -q __sanitizer_cov_trace_pc &&
  CC=gcc "$UCOV" cc --trace --skip 'core/*' @args.rsp && ! nm rsp.o | grep -q __sanitizer_cov &&
  pass "response files" || fail "response files"
# UCOV_NO_INSTRUMENT keeps one function out of every mode.
cat >no.c <<'C'
#include "ucov/ucov.h"
UCOV_NO_INSTRUMENT int quiet(int x) { return x > 2 ? x * 3 : x + 1; }
int loud(int x) { return x > 2 ? x * 3 : x + 1; }
C
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  CC=$cc "$UCOV" cc --trace --ext -c no.c -o no-$cc.o
  body() { objdump -dr --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2==f{p=1;next} /^$/{p=0} p'; }
  ! body no-$cc.o quiet | grep -q '__sanitizer_cov\|__cyg_profile' &&
    body no-$cc.o loud | grep -q '__sanitizer_cov_trace_pc' && pass "$cc: UCOV_NO_INSTRUMENT keeps trace and entry/exit hooks out" ||
    fail "$cc: UCOV_NO_INSTRUMENT keeps trace and entry/exit hooks out"
  CC=$cc "$UCOV" cc --gcov -O1 -c no.c -o nog-$cc.o
  # (counter updates are relocations against .bss or the counter arrays)
  ctr='R_X86_64_PC32.*\(\.bss\|gcov\)'
  [ "$(body nog-$cc.o quiet | grep -c "$ctr")" = 0 ] &&
    [ "$(body nog-$cc.o loud | grep -c "$ctr")" -gt 0 ] && pass "$cc: UCOV_NO_INSTRUMENT keeps gcov counters out" ||
    fail "$cc: UCOV_NO_INSTRUMENT keeps gcov counters out"
done
finish select
