#!/usr/bin/env bash
# A shared library and a program, both built by `ucov cc`, and each alone
# (the other built by the plain compiler), in every mode and with gcc and
# clang: the process has one runtime (one control server thread), coverage
# comes from every instrumented module and from no other, the module map
# places the library's PCs, live pulls and exit files hold both modules.
# Also: a library dlopen'ed into an uninstrumented program.
# Usage: dso.sh UCOV SRCDIR WORKDIR [SANITIZE [CC]]
# (Sanitizer builds test only CC, the compiler of the runtime: one process
# cannot mix gcc's and clang's sanitizer runtimes.)
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-} RTCC=$(basename "${5:-}")
. "$SRC/tests/lib.sh"
sanflags "${4:-}"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
export UCOV_RUNTIME_DIR=$WORK/rt
I=$SRC/tests/integration
LLVM_PROFDATA=llvm-profdata-14
# Sanitizer runtimes must come first in a program that loads them; the plain
# program of the "library alone" case has none then.
PLAIN_SAN=("${SANFLAGS[@]}")
# A program with its own runtime that loads libucov.so (a library's
# dependency) has two definitions of the runtime's exported data: the
# program's, which every module binds to, and the dormant library's. ASan
# calls that an ODR violation; here it is interposition by design.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0

# hit INFO FUNC WANT(yes|no): the function is counted (>0) or absent/zero.
hit() {
  if [ "$3" = yes ]; then counted "$1" "$2"; else ! counted "$1" "$2"; fi
}

# run_case CC MODE COMBO: COMBO is both, lib (library only) or exe (program only).
run_case() {
  local cc=$1 mode=$2 combo=$3 tag=$1-$2-$3 kmode=none lib_in=yes exe_in=yes
  case $mode in trace) kmode=pc ;; ext) kmode=ext ;; unique) kmode=unique ;; esac
  [ "$combo" = exe ] && lib_in=no
  [ "$combo" = lib ] && exe_in=no
  mkdir -p "$tag" && cd "$tag" || return
  if [ $lib_in = yes ]; then
    CC=$cc "$UCOV" cc --"$mode" "${SANFLAGS[@]}" -g -O0 -fPIC -shared "$I/dso_lib.c" -o libdso.so
  else
    $cc "${SANFLAGS[@]}" -g -O0 -fPIC -shared "$I/dso_lib.c" -o libdso.so
  fi || { fail "$tag: library build"; cd ..; return; }
  if [ $exe_in = yes ]; then
    CC=$cc "$UCOV" cc --"$mode" "${SANFLAGS[@]}" -g -O0 -I"$SRC/include" "$I/dso_main.c" \
      -L. -ldso -Wl,-rpath,"$PWD" -o main
  else
    $cc "${PLAIN_SAN[@]}" -g -O0 -I"$SRC/include" "$I/dso_main.c" -L. -ldso -Wl,-rpath,"$PWD" -o main
  fi || { fail "$tag: program build"; cd ..; return; }
  coproc M { LLVM_PROFILE_FILE=$PWD/exit.profraw exec ./main $kmode pcs.txt mods.txt; }
  local pid=$M_PID ready=""
  read -r -t 30 ready <&"${M[0]}"
  for _ in $(seq 100); do [ -S "$UCOV_RUNTIME_DIR/$pid.sock" ] && break; sleep 0.02; done
  local threads
  threads=$(cat /proc/"$pid"/task/*/comm 2>/dev/null | grep -c '^ucov-control$')
  "$UCOV" ls --pid "$pid" >ls.txt 2>&1
  "$UCOV" pull --pid "$pid" -o P >/dev/null 2>pull.err
  [ -n "${M[1]:-}" ] && echo q >&"${M[1]}"
  wait "$pid"
  local rc=$?
  [ "${ready%% *}" = ready ] && [ $rc = 0 ] && pass "$tag: ran ($ready, status $rc)" || fail "$tag: ran ($ready, status $rc)"
  # One runtime: one control server thread (a second runtime would start its own).
  [ "$threads" = 1 ] && pass "$tag: $threads control threads: one runtime per process" || fail "$tag: $threads control threads: one runtime per process"
  grep -q "$PWD/libdso.so" mods.txt && grep -q "$PWD/main" mods.txt && pass "$tag: module map lists the program and the library" ||
    fail "$tag: module map lists the program and the library"
  case $mode in
  trace | ext | unique)
    "$UCOV" report pcs.txt --modules mods.txt --lcov t.info 2>t.err
    hit t.info exe_work $exe_in && hit t.info lib_work $lib_in && pass "$tag: traced PCs: exe_work=" ||
      fail "$tag: traced PCs: exe_work=$(fnda t.info exe_work) lib_work=$(fnda t.info lib_work)" \
        "$(head -2 t.err)"
    # EXT: ENTRY and EXIT records from each instrumented module, whichever
    # module defines __cyg_profile_func_enter first in the lookup order (libc
    # does, before libucov.so, in a program not linked by ucov cc).
    if [ "$mode" = ext ]; then
      local lib_ext=no exe_ext=no
      grep -q '^entry libdso.so lib_work$' pcs.txt.ext &&
        grep -q '^exit libdso.so lib_work$' pcs.txt.ext && lib_ext=yes
      grep -q '^entry main ' pcs.txt.ext && grep -q '^exit main ' pcs.txt.ext && exe_ext=yes
      [ $lib_ext = "$lib_in" ] && [ $exe_ext = "$exe_in" ] && pass "$tag: ENTRY/EXIT records: library $lib_ext, program $exe_ext:" ||
        fail "$tag: ENTRY/EXIT records: library $lib_ext, program $exe_ext:" \
          "$(sort pcs.txt.ext | uniq -c | tr '\n' ' ')"
    fi
    if [ "$mode" = trace ]; then
      "$UCOV" report P --lcov p.info 2>p.err
      hit p.info exe_work $exe_in && hit p.info lib_work $lib_in && pass "$tag: pulled trace" ||
        fail "$tag: pulled trace: $(head -2 p.err)"
    fi
    ;;
  gcov)
    if [ $lib_in = yes ]; then grep -q 'dso_lib.gcda$' ls.txt; else ! grep -q dso_lib ls.txt; fi &&
      pass "$tag: ls" || fail "$tag: ls: $(cat ls.txt)"
    # (clang's gcov files are LLVM's format: ucov report reads them with llvm-cov gcov)
    "$UCOV" report P --lcov p.info 2>p.err
    hit p.info lib_work $lib_in && hit p.info exe_work $exe_in && pass "$tag: pulled gcov: lib_work=" ||
      fail "$tag: pulled gcov: lib_work=$(fnda p.info lib_work) exe_work=$(fnda p.info exe_work)" \
        "$(head -2 p.err 2>/dev/null)"
    if [ $lib_in = yes ]; then
      grep -q '^FNDA:0,lib_idle$' p.info && pass "$tag: lib_idle counted 0" || fail "$tag: lib_idle counted 0"
    fi
    local gcdas
    gcdas=$(find . -name '*.gcda' -not -path './P/*' | grep -c dso_lib)
    [ "$gcdas" = "$([ $lib_in = yes ] && echo 1 || echo 0)" ] && pass "$tag: exit .gcda of the library: $gcdas" ||
      fail "$tag: exit .gcda of the library: $gcdas"
    ;;
  pgo)
    ls P/pgo/*.profraw >/dev/null 2>&1 && pass "$tag: no live profile pulled" || fail "$tag: no live profile pulled"
    local n_live
    n_live=$(find P/pgo -maxdepth 1 -name '*.profraw' | wc -l)
    [ "$n_live" = "$([ "$combo" = both ] && echo 2 || echo 1)" ] && [ -s P/pgo/profraw ] && pass "$tag: live profiles (and pgo/profraw, all of them)" ||
      fail "$tag: live profiles (and pgo/profraw, all of them): $(ls P/pgo)"
    $LLVM_PROFDATA show --all-functions exit.profraw >show.txt 2>&1
    { grep -q '^  lib_work:' show.txt && [ $lib_in = yes ] || [ $lib_in = no ]; } &&
      { grep -q '^  \(dso_main.c:\)\?exe_work:' show.txt && [ $exe_in = yes ] || [ $exe_in = no ]; } &&
      ! { [ $lib_in = no ] && grep -q lib_work show.txt; } && pass "$tag: exit profile" ||
      fail "$tag: exit profile: $(tr '\n' ' ' <show.txt)"
    if [ "$combo" = both ]; then
      $LLVM_PROFDATA merge -o m.profdata exit.profraw &&
        llvm-cov-14 export -format=lcov ./main -object ./libdso.so -instr-profile m.profdata >c.info &&
        hit c.info lib_work yes && hit c.info exe_work yes && pass "$tag: llvm-cov of both modules from one exit profile" ||
        fail "$tag: llvm-cov of both modules from one exit profile"
      "$UCOV" report P --lcov p.info 2>p.err
      hit p.info lib_work yes && hit p.info exe_work yes && pass "$tag: report of the pulled profiles" ||
        fail "$tag: report of the pulled profiles: $(head -2 p.err)"
    fi
    ;;
  esac
  cd .. || exit 1
}

for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  [ -n "$SAN" ] && [ -n "$RTCC" ] && [[ $RTCC != $cc* ]] && continue
  for mode in trace ext unique gcov pgo; do
    [ $mode = pgo ] && [ $cc = gcc ] && continue
    for combo in both lib exe; do
      # clang's sanitizer runtimes define trace-pc-guard hooks of their own, which
      # an uninstrumented sanitized program exports first: the library binds to them.
      [ -n "$SAN" ] && [ $cc = clang ] && [ $mode = unique ] && [ $combo = lib ] && continue
      run_case $cc $mode $combo
    done
  done
done

# dlopen and dlclose: an instrumented library in a program built without ucov
# and in one built by ucov cc. At dlclose the library's gcov units are kept
# (copied: a later live read must not touch its unmapped memory) and written
# at exit; its LLVM profile is written and forgotten; the program's own
# counts go on to its exit.
mkdir -p dl && cd dl || exit 1
cat >dl.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int after(int x) { return x * 2; }
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  int (*f)(int) = (int (*)(int))dlsym(h, "lib_work");
  int r = f(argc + 5);
  dlclose(h);
  /* A write before the exit's (compiler-rt's API): the exit must not add the
   * profiles twice. */
  int (*write_file)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "__llvm_profile_write_file");
  if (write_file && getenv("DL_WRITE"))
    write_file();
  printf("ready %d\n", after(r));
  fflush(stdout);
  char line[8];
  if (argc > 2 && !strcmp(argv[2], "hold") && !fgets(line, sizeof(line), stdin))
    return 0;
  return 0;
}
C
DLCC=gcc
[ -n "$SAN" ] && [ -n "$RTCC" ] && DLCC=$RTCC
dl_case() { # TAG MODE PROGRAM-BUILT-BY-UCOV(yes|no)
  local tag=$1 mode=$2 inst=$3 cc=$DLCC
  [ "$mode" = pgo ] && cc=clang
  [ "$mode" = pgo ] && [ -n "$SAN" ] && [[ $RTCC != clang* ]] && return
  mkdir -p "$tag" && cd "$tag" || return
  CC=$cc "$UCOV" cc --"$mode" "${SANFLAGS[@]}" -g -O0 -fPIC -shared "$I/dso_lib.c" -o libdl.so
  if [ "$inst" = yes ]; then
    CC=$cc "$UCOV" cc --"$mode" "${SANFLAGS[@]}" -g -O0 ../dl.c -o dl -ldl
  else
    $cc "${PLAIN_SAN[@]}" ../dl.c -o dl -ldl
  fi
  coproc D { DL_WRITE=1 LLVM_PROFILE_FILE=$PWD/exit.profraw exec ./dl "$PWD/libdl.so" hold; }
  local pid=$D_PID ready=""
  read -r -t 30 ready <&"${D[0]}"
  for _ in $(seq 100); do [ -S "$UCOV_RUNTIME_DIR/$pid.sock" ] && break; sleep 0.02; done
  "$UCOV" ls --pid "$pid" >ls.txt 2>&1
  "$UCOV" pull --pid "$pid" -o P >/dev/null 2>&1
  [ -n "${D[1]:-}" ] && echo q >&"${D[1]}"
  wait "$pid"
  local rc=$?
  [ "$ready" = "ready 28" ] && [ $rc = 0 ] && pass "dlclose $tag: ran ($ready, status $rc)" || fail "dlclose $tag: ran ($ready, status $rc)"
  if [ "$mode" = gcov ]; then
    # Its gcov units are kept (their counts served until a pull or the exit
    # takes them); its LLVM profile is written at dlclose and gone.
    local g
    grep -q 'dso_lib.gcda' ls.txt && pass "dlclose $tag: the library's gcov object stays after dlclose" ||
      fail "dlclose $tag: the library's gcov object stays after dlclose: $(cat ls.txt)"
    "$UCOV" report P --lcov p.info 2>/dev/null && hit p.info lib_work yes && pass "dlclose $tag: a pull after dlclose has the library's counts" ||
      fail "dlclose $tag: a pull after dlclose has the library's counts"
    g=$(find . -maxdepth 1 -name '*dso_lib.gcda')
    [ -n "$g" ] && "$UCOV" report "$g" --lcov l.info 2>/dev/null && hit l.info lib_work yes && pass "dlclose $tag: the library's .gcda, written at exit" ||
      fail "dlclose $tag: the library's .gcda, written at exit"
    if [ "$inst" = yes ]; then
      "$UCOV" report . --lcov all.info 2>/dev/null
      hit all.info after yes && pass "dlclose $tag: the program's counts after dlclose" || fail "dlclose $tag: the program's counts after dlclose"
    fi
  else
    ! grep -q 'dso_lib\|libdl' ls.txt && grep -q modules ls.txt && pass "dlclose $tag: the library's objects are gone after dlclose" ||
      fail "dlclose $tag: the library's objects are gone after dlclose: $(cat ls.txt)"
    llvm-profdata-14 show --all-functions --counts exit.profraw >show.txt 2>&1
    grep -q '^  lib_work:' show.txt && { [ "$inst" = no ] || grep -q 'after:' show.txt; } && pass "dlclose $tag: exit profile" ||
      fail "dlclose $tag: exit profile: $(tr '\n' ' ' <show.txt)"
    # Each function once: the library's profile saved at dlclose, the program's
    # at exit, after a __llvm_profile_write_file in between.
    ! grep -q 'Function count: 2' show.txt && grep -A3 '^  lib_work:' show.txt |
      grep -q 'Function count: 1' && pass "dlclose $tag: counted twice" || fail "dlclose $tag: counted twice: $(tr '\n' ' ' <show.txt)"
  fi
  cd .. || exit 1
}
dl_case gcov-plain gcov no
dl_case gcov-ucov gcov yes
dl_case pgo-plain pgo no
dl_case pgo-ucov pgo yes

# EXT through dlopen(RTLD_LOCAL) in a program that knows nothing of ucov: the
# library's ENTRY and EXIT records reach the runtime it brought (libucov.so,
# found only through the library's handle), with gcc and clang.
cat >dlext.c <<'C'
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "ucov/kcov.h"
int main(int argc, char **argv) {
  (void)argc;
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  int (*u_open)(void) = (int (*)(void))dlsym(h, "ucov_open");
  int (*u_ioctl)(int, unsigned long, unsigned long) =
      (int (*)(int, unsigned long, unsigned long))dlsym(h, "ucov_ioctl");
  void *(*u_mmap)(void *, size_t, int, int, int, long) =
      (void *(*)(void *, size_t, int, int, int, long))dlsym(h, "ucov_mmap");
  int (*f)(int) = (int (*)(int))dlsym(h, "lib_work");
  if (!u_open || !u_ioctl || !u_mmap || !f) { fprintf(stderr, "no runtime\n"); return 1; }
  int fd = u_open();
  if (fd < 0 || u_ioctl(fd, KCOV_INIT_TRACE, 4096)) return 1;
  uint64_t *t = u_mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (t == MAP_FAILED || u_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC_EXT)) return 1;
  __atomic_store_n(&t[0], 0, __ATOMIC_RELAXED);
  int r = f(7);
  u_ioctl(fd, KCOV_DISABLE, 0);
  for (uint64_t i = 0, n = __atomic_load_n(&t[0], __ATOMIC_RELAXED); i < n; i++) {
    uint64_t type = KCOV_RECORD_TYPE(t[1 + i]);
    Dl_info info;
    if ((type == KCOV_RECORD_ENTRY || type == KCOV_RECORD_EXIT) &&
        dladdr((void *)(uintptr_t)KCOV_RECORD_IP(t[1 + i]), &info) && info.dli_sname)
      printf("%s %s\n", type == KCOV_RECORD_ENTRY ? "entry" : "exit", info.dli_sname);
  }
  printf("result %d\n", r);
  return 0;
}
C
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  [ -n "$SAN" ] && [ -n "$RTCC" ] && [[ $RTCC != $cc* ]] && continue
  mkdir -p "ext-$cc" && (
    cd "ext-$cc" || exit 1
    CC=$cc "$UCOV" cc --ext "${SANFLAGS[@]}" -g -O0 -fPIC -shared "$I/dso_lib.c" -o libx.so &&
      $cc "${PLAIN_SAN[@]}" -D_GNU_SOURCE -I"$SRC/include" ../dlext.c -o dlext -ldl &&
      ./dlext "$PWD/libx.so" >out.txt 2>err.txt
  )
  grep -q '^entry lib_work$' "ext-$cc/out.txt" && grep -q '^exit lib_work$' "ext-$cc/out.txt" &&
    grep -q '^result ' "ext-$cc/out.txt" && pass "dlopen ext $cc: ENTRY/EXIT of lib_work" ||
    fail "dlopen ext $cc: ENTRY/EXIT of lib_work: $(tr '\n' ' ' <"ext-$cc/out.txt")" \
      "$(head -3 "ext-$cc/err.txt")"
done
cd .. || exit 1
finish dso
