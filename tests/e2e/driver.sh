#!/usr/bin/env bash
# ucov cc as a drop-in compiler driver, for gcc and clang in every mode:
# --version, -E, -M/-MM, -MD/-MMD -MF, -S, assembler input (.s, .S) under
# -Werror, -x c from stdin, -o first, -shared, and what configure scripts
# probe (-V and -qversion fail as the compiler does, a compile error keeps
# its status, a test program links and runs).
# Usage: driver.sh UCOV SRCDIR WORKDIR [SANITIZE [CC]]
# (Sanitizer builds test only CC, the runtime's compiler: programs link its
# sanitizer runtime.)
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-} RTCC=$(basename "${5:-}")
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK/sub" && cd "$WORK" || exit 1
cat >a.c <<'C'
#include <stdio.h>
#include "a.h"
int f(int x) { return x > 2 ? x * A : x + 1; }
C
echo '#define A 3' >a.h
cat >main.c <<'C'
int f(int x);
int main(int argc, char **argv) { (void)argv; return f(argc) == 2 ? 0 : 1; }
C
printf '.globl g\ng:\n ret\n' >s.s
printf '#define R ret\n.globl h\nh:\n R\n' >S.S
# instrumented FILE: does the object or program carry the mode's instrumentation?
# (LLVM's counters are private symbols: a program shows them as a section.)
instrumented() {
  if [ $mode = pgo ]; then readelf -S "$1" | grep -q __llvm_prf_cnts; else nm "$1" | grep -q "$m"; fi
}
marker() { case $1 in trace) echo __sanitizer_cov_trace_pc ;; gcov) echo '__gcov_init\|llvm_gcov_init' ;;
  pgo) echo __profc_ ;; esac; }

for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  [ -n "$SAN" ] && [ -n "$RTCC" ] && [[ $RTCC != $cc* ]] && continue
  for mode in trace gcov pgo; do
    [ $mode = pgo ] && [ $cc = gcc ] && continue
    t="$cc $mode"
    u() { CC=$cc "$UCOV" cc --$mode "$@"; }
    m=$(marker $mode)
    [ "$(u --version 2>&1)" = "$($cc --version 2>&1)" ] && pass "$t: --version passes through" || fail "$t: --version passes through"
    u -E a.c >e1.txt && $cc -E a.c >e2.txt && cmp -s e1.txt e2.txt && pass "$t: -E output" || fail "$t: -E output"
    u -M a.c >m1.txt && $cc -M a.c >m2.txt && cmp -s m1.txt m2.txt && pass "$t: -M output" || fail "$t: -M output"
    u -MM a.c >m1.txt && $cc -MM a.c >m2.txt && cmp -s m1.txt m2.txt && pass "$t: -MM output" || fail "$t: -MM output"
    rm -f sub/*
    u -Werror -MD -MF sub/a.d -c a.c -o sub/a.o && $cc -MD -MF sub/p.d -c a.c -o sub/a.o.plain &&
      grep -q 'a.h' sub/a.d && [ "$(sed 1d sub/a.d)" = "$(sed 1d sub/p.d)" ] &&
      instrumented sub/a.o && pass "$t: -MD -MF: dependencies and an instrumented object" || fail "$t: -MD -MF: dependencies and an instrumented object"
    u -Werror -MMD -c a.c -o sub/b.o && grep -q 'a.h' sub/b.d && ! grep -q stdio.h sub/b.d && pass "$t: -MMD writes sub/b.d" ||
      fail "$t: -MMD writes sub/b.d"
    u -Werror -S a.c -o a.s && grep -q "$m" a.s && pass "$t: -S: instrumented assembly" ||
      fail "$t: -S: instrumented assembly"
    u -Werror -c s.s -o s.o && u -Werror -c S.S -o S.o && ! instrumented s.o && ! instrumented S.o && pass "$t: assembler input under -Werror" ||
      fail "$t: assembler input under -Werror"
    echo 'int main(void) { return 0; }' | u -Werror "${SANFLAGS[@]}" -x c - -o stdin-prog && ./stdin-prog &&
      nm stdin-prog | grep -q ' T ucov_open' && instrumented stdin-prog && pass "$t: -x c from stdin: an instrumented program with the runtime" ||
      fail "$t: -x c from stdin: an instrumented program with the runtime"
    u -o prog -g "${SANFLAGS[@]}" a.c main.c && ./prog && nm prog | grep -q ' T ucov_open' && instrumented prog && pass "$t: -o first, two sources, linked and run" ||
      fail "$t: -o first, two sources, linked and run"
    u -fPIC -shared "${SANFLAGS[@]}" -o libx.so a.c && readelf -d libx.so | grep -q 'NEEDED.*libucov.so' &&
      ! nm -D --defined-only libx.so | grep -q ucov_open && pass "$t: -shared: libucov.so needed, no runtime of its own" ||
      fail "$t: -shared: libucov.so needed, no runtime of its own"
    # Configure probes.
    u -V >/dev/null 2>&1
    a=$?
    $cc -V >/dev/null 2>&1
    [ $a = $? ] && pass "$t: -V fails as $cc does" || fail "$t: -V fails as $cc does"
    u -qversion >/dev/null 2>&1
    a=$?
    $cc -qversion >/dev/null 2>&1
    [ $a = $? ] && pass "$t: -qversion as $cc" || fail "$t: -qversion as $cc"
    echo 'int main(void) { return undeclared; }' >bad.c
    ! u -c bad.c -o bad.o 2>/dev/null && pass "$t: a compile error keeps its status" || fail "$t: a compile error keeps its status"
    printf '#include <stdlib.h>\nint main(void) { return getenv("PATH") ? 0 : 1; }\n' >conftest.c
    u -O2 -g "${SANFLAGS[@]}" conftest.c -o conftest && ./conftest && pass "$t: a test program links and runs" || fail "$t: a test program links and runs"
  done
done
# ucov cc --gcov names notes and data files exactly as the compiler alone:
# gcc -o p p.c writes p.gcno (the runtime is no input of the driver's), two
# sources p-a.gcno and p-main.gcno, no -o a-main.gcno, -c main.c main.gcno;
# the .gcda of each run likewise.
names_of() { (cd "$1" && find . -name '*.gc*' | sort | tr '\n' ' '); }
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  [ -n "$SAN" ] && [ -n "$RTCC" ] && [[ $RTCC != $cc* ]] && continue
  for form in "-o main main.c a.c" "-o solo solo.c" "-o prog main.c a.c" "main.c a.c" \
    "-c main.c" "-c main.c -o sub/m.o" "-o sub/main main.c a.o" "-x c main.c -x none a.o -o main"; do
    rm -rf n1 n2 && mkdir -p n1/sub n2/sub && cp main.c a.c a.h n1/ && cp main.c a.c a.h n2/ &&
      echo 'int main(void) { return 0; }' | tee n1/solo.c >n2/solo.c
    (cd n1 && $cc --coverage -c a.c -o a.o) && (cd n2 && CC=$cc "$UCOV" cc --gcov -c a.c -o a.o)
    # shellcheck disable=SC2086 # $form: the compiler's arguments
    (cd n1 && $cc --coverage "${SANFLAGS[@]}" $form) && (cd n2 && CC=$cc "$UCOV" cc --gcov "${SANFLAGS[@]}" $form) ||
      fail "$cc $form: compiles"
    for prog in main solo prog a.out sub/main; do
      [ -x n1/$prog ] && (cd n1 && ./$prog) && (cd n2 && ./$prog)
    done
    a=$(names_of n1) b=$(names_of n2)
    [ "$a" = "$b" ] && [[ $a == *.gcno* ]] && pass "$cc $form: $cc names '$a', ucov cc '$b'" || fail "$cc $form: $cc names '$a', ucov cc '$b'"
  done
done
# --pgo needs clang: said so, not a flag gcc does not know.
CC=gcc "$UCOV" cc --pgo -c a.c -o x.o 2>pgo.err
[ $? = 2 ] && grep -q 'needs clang' pgo.err && pass "--pgo with gcc" || fail "--pgo with gcc: $(cat pgo.err)"
# ucov cc's own options anywhere on the line (and in a response file), never
# passed to the compiler; after `--` everything is the compiler's.
if command -v gcc >/dev/null && { [ -z "$SAN" ] || [[ $RTCC == gcc* ]]; }; then
  first=$(CC=gcc "$UCOV" cc -v --gcov --cc gcc -c a.c -o o1.o 2>&1 | head -1)
  anywhere=$(CC=gcc "$UCOV" cc -v -c a.c --cc gcc -o o1.o --gcov 2>&1 | head -1)
  [[ $first == *--coverage* ]] && [[ $anywhere == *--coverage* ]] && [[ $anywhere != *--gcov* ]] &&
    [[ $anywhere != *--cc* ]] && pass "own options anywhere: '$anywhere'" || fail "own options anywhere: '$anywhere'"
  CC=gcc "$UCOV" cc -c a.c --only a.c --trace -o o2.o && nm o2.o | grep -q __sanitizer_cov_trace_pc &&
    pass "--only GLOB after the source" || fail "--only GLOB after the source"
  echo '--gcov -c a.c -o o3.o' >rsp
  CC=gcc "$UCOV" cc @rsp && nm o3.o | grep -q __gcov_init && pass "own options in a response file" || fail "own options in a response file"
  ! CC=gcc "$UCOV" cc -c a.c -o o4.o -- --gcov 2>err.txt && grep -q -- '--gcov' err.txt && pass "after --, --gcov goes to the compiler (which refuses it)" ||
    fail "after --, --gcov goes to the compiler (which refuses it)"
fi

# CMake: the compiler named inside CC (--cc) holds for the build steps too;
# a shared library and a program, both instrumented, one profile at exit.
if [ -z "$SAN" ] && command -v cmake >/dev/null && command -v clang >/dev/null; then
  mkdir -p cm && cd cm || exit 1
  printf 'cmake_minimum_required(VERSION 3.20)\nproject(p C)\nadd_library(l SHARED l.c)\n' >CMakeLists.txt
  printf 'add_executable(m m.c)\ntarget_link_libraries(m l)\n' >>CMakeLists.txt
  echo 'int lf(int x) { return x > 1 ? x : 2; }' >l.c
  printf 'int lf(int);\nint main(void) { return lf(3) != 3; }\n' >m.c
  env -u UCOV_CC CC="$UCOV cc --cc clang --pgo" cmake -S . -B b >cmake.log 2>&1 &&
    env -u UCOV_CC -u CC cmake --build b >>cmake.log 2>&1 && (cd b && ./m) &&
    llvm-profdata-14 show --all-functions b/default.profraw >show.txt &&
    grep -q '^  main:' show.txt && grep -q '^  lf:' show.txt && pass "cmake with CC='ucov cc --cc clang --pgo'" ||
    fail "cmake with CC='ucov cc --cc clang --pgo': $(tail -3 cmake.log) $(cat show.txt 2>/dev/null)"
  cd .. || exit 1
fi
finish driver
