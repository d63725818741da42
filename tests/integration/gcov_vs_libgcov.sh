#!/usr/bin/env bash
# ucov's gcov runtime against the real libgcov: the same objects linked both
# ways must write byte-identical .gcda files, alone and when merging, across
# __gcov_dump/__gcov_reset, with GCOV_PREFIX/_STRIP; bad existing files get a
# message and are left alone. Usage: gcov_vs_libgcov.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK/obj" && cd "$WORK" || exit 1

cc_obj() { gcc -O1 -g --coverage "${SANFLAGS[@]}" -c "$1" -o "$2"; }
cc_obj "$SRC/examples/demo/httpreq.c" obj/httpreq.o
cc_obj "$SRC/tests/integration/gcov_main.c" obj/gcov_main.o
gcc --coverage "${SANFLAGS[@]}" obj/*.o -o prog_libgcov
CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" obj/*.o -o prog_ucov
nm prog_ucov | grep -q ' T __gcov_init' && ! nm prog_ucov | grep -q 'gcov_do_dump\|__gcov_root' &&
  pass "prog_ucov has ucov's __gcov_init and nothing of libgcov" || fail "prog_ucov has ucov's __gcov_init and nothing of libgcov"

R1='GET / HTTP/1.1\r\nHost: a\r\n\r\n'
R2='POST /x HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc'
R3='BREW /pot HTTP/1.1\r\n\r\n'
R4='GET /y HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'
gcdas() { ls obj/*.gcda 2>/dev/null; }
clean() { rm -f obj/*.gcda; }
save() { mkdir -p "$1" && cp "${SAVE_FROM:-obj}"/*.gcda "$1/"; }
same() { # same DESCRIPTION DIR1 DIR2: identical .gcda sets
  local a b ok=1
  for a in "$2"/*.gcda; do
    b=$3/$(basename "$a")
    cmp -s "$a" "$b" || { ok=0; echo "  $a differs from $b" >&2; }
  done
  [ "$(find "$2" -mindepth 1 -maxdepth 1 | wc -l)" -eq "$(find "$3" -mindepth 1 -maxdepth 1 | wc -l)" ] && [ $ok -eq 1 ] && pass "$1" || fail "$1"
}
run() { ./"$1" "${@:2}" >/dev/null; }
# Like same, but the files may differ in the run count of the summary (the
# word before the 8-byte EOF record): compiler-rt counts the run only in the
# first file a process writes, ucov in every file.
same_but_runs() {
  local a b ok=1 len off
  for a in "$2"/*.gcda; do
    b=$3/$(basename "$a")
    len=$(stat -c %s "$a")
    [ "$len" = "$(stat -c %s "$b")" ] || { ok=0; continue; }
    while read -r off _; do
      [ "$off" -ge $((len - 11)) ] && [ "$off" -le $((len - 8)) ] || { ok=0; echo "  $a: byte $off" >&2; }
    done < <(cmp -l "$a" "$b")
  done
  [ $ok -eq 1 ] && pass "$1" || fail "$1"
}

# One run.
clean; run prog_libgcov "$R1" "$R3"; save ref1
clean; run prog_ucov "$R1" "$R3"; save ucov1
same "one run: byte-identical" ref1 ucov1
[ "$(gcdas | wc -l)" -eq 2 ] && pass "one .gcda per object" || fail "one .gcda per object"

# Merging into existing files: counts add, runs increase; either runtime first.
clean; run prog_libgcov "$R1" "$R3"; run prog_libgcov "$R2" "$R4"; save ref2
clean; run prog_ucov "$R1" "$R3"; run prog_ucov "$R2" "$R4"; save ucov2
same "two runs merged: byte-identical" ref2 ucov2
clean; run prog_libgcov "$R1" "$R3"; run prog_ucov "$R2" "$R4"; save mixed
same "libgcov's file merged by ucov" ref2 mixed
(cd obj && gcov -t -o . "$SRC/examples/demo/httpreq.c" 2>/dev/null) >gcov.txt
grep -q '^ *-: *0:Runs:2$' gcov.txt && pass "gcov reads Runs:2" || fail "gcov reads Runs:2"
grep -qE '^ *4: +[0-9]+:int http_parse' gcov.txt && pass "gcov: http_parse called 4 times" || fail "gcov: http_parse called 4 times"

# __gcov_dump and __gcov_reset mid-run.
clean; run prog_libgcov "$R1" --dump-reset "$R2" "$R4"; save ref3
clean; run prog_ucov "$R1" --dump-reset "$R2" "$R4"; save ucov3
same "__gcov_dump/__gcov_reset: byte-identical" ref3 ucov3

# gcov-tool reads and merges ucov's files.
mkdir -p tool && gcov-tool merge -o tool/out ucov2 ucov1 >/dev/null 2>&1 &&
  [ -s tool/out/httpreq.gcda ] && pass "gcov-tool merge accepts ucov's files" || fail "gcov-tool merge accepts ucov's files"

# GCOV_PREFIX and GCOV_PREFIX_STRIP relocate as libgcov does.
for strip in 0 2; do
  clean; rm -rf pfx-ref pfx-ucov
  GCOV_PREFIX=$WORK/pfx-ref GCOV_PREFIX_STRIP=$strip run prog_libgcov "$R1"
  GCOV_PREFIX=$WORK/pfx-ucov GCOV_PREFIX_STRIP=$strip run prog_ucov "$R1"
  ref=$(cd pfx-ref && find . -name '*.gcda' | sort) ucov=$(cd pfx-ucov && find . -name '*.gcda' | sort)
  [ -n "$ref" ] && [ "$ref" = "$ucov" ] && [ -z "$(gcdas)" ] && pass "GCOV_PREFIX_STRIP=$strip: '$ucov' vs libgcov's '$ref'" ||
    fail "GCOV_PREFIX_STRIP=$strip: '$ucov' vs libgcov's '$ref'"
done

# Bad existing files: a message, the file untouched, the program unharmed.
clean; printf 'garbage garbage garbage' >obj/httpreq.gcda; cp obj/httpreq.gcda garbage.copy
./prog_ucov "$R1" >/dev/null 2>err.txt; st=$?
[ $st -eq 0 ] && grep -q 'httpreq.gcda: not a gcov data file' err.txt && cmp -s obj/httpreq.gcda garbage.copy &&
  pass "garbage .gcda: message, left alone (status $st)" || fail "garbage .gcda: message, left alone (status $st)"
clean; cp ucov1/httpreq.gcda obj/; truncate -s 100 obj/httpreq.gcda; cp obj/httpreq.gcda trunc.copy
./prog_ucov "$R1" >/dev/null 2>err.txt
grep -q 'merge mismatch' err.txt && cmp -s obj/httpreq.gcda trunc.copy && pass "truncated .gcda: message, left alone" ||
  fail "truncated .gcda: message, left alone"
# Another compilation's file (its checksum differs) is overwritten, as libgcov does.
clean; run prog_ucov "$R1"; cp obj/gcov_main.gcda fresh.gcda
mkdir -p other
cat "$SRC/tests/integration/gcov_main.c" - >other/gcov_main.c <<'C'
int another_function_another_checksum(void) { return 1; }
C
gcc -O1 -g --coverage "${SANFLAGS[@]}" -iquote "$SRC/tests/integration" -c other/gcov_main.c -o other/gm.o
CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" obj/httpreq.o other/gm.o -o prog_other
clean; ./prog_other "$R1" >/dev/null; cp other/gm.gcda obj/gcov_main.gcda; rm -f obj/httpreq.gcda
./prog_ucov "$R1" >/dev/null 2>err.txt
grep -q 'overwriting' err.txt && cmp -s obj/gcov_main.gcda fresh.gcda && pass "another compilation's .gcda is overwritten" ||
  fail "another compilation's .gcda is overwritten"

# -fprofile-info-section=ucov_gcov_info: no constructor, no __gcov_init; the
# runtime finds the units in the section and writes them at exit all the same.
mkdir -p sec && cd sec || exit 1
gcc -O1 -g --coverage -fprofile-info-section=ucov_gcov_info "${SANFLAGS[@]}" \
  -c "$SRC/examples/demo/httpreq.c" -o httpreq.o
gcc -O1 -g --coverage -fprofile-info-section=ucov_gcov_info "${SANFLAGS[@]}" \
  -c "$SRC/tests/integration/gcov_main.c" -o gcov_main.o
CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" httpreq.o gcov_main.o -o prog_sec
./prog_sec "$R1" "$R3" "$R4" >/dev/null
! nm httpreq.o | grep -q __gcov_init && [ -s httpreq.gcda ] && [ -s gcov_main.gcda ] &&
  gcov -t -o . "$SRC/examples/demo/httpreq.c" 2>/dev/null | grep -qE '^ *3: +[0-9]+:int http_parse' &&
  pass "-fprofile-info-section units are found and written at exit" || fail "-fprofile-info-section units are found and written at exit"
cd .. || exit 1

# -fprofile-generate value profiles (TOPN, indirect calls, average, ior, time
# profiler), single-threaded and atomic: identical to libgcov, merges included.
# ASLR off: the ior counter ors pointer values (stack addresses, so the two
# programs' names have the same length).
if command -v setarch >/dev/null && setarch -R true 2>/dev/null; then
  for update in single atomic; do
    mkdir -p "vp-$update" && cd "vp-$update" || exit 1
    gcc -O2 -fprofile-generate -fprofile-update=$update "${SANFLAGS[@]}" \
      -c "$SRC/tests/integration/gcov_valueprof.c" -o vp.o
    gcc -fprofile-generate "${SANFLAGS[@]}" vp.o -o vp_gcc
    CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" vp.o -o vp_ucv
    rm -f ./*.gcda; setarch -R ./vp_gcc 3000; setarch -R ./vp_gcc 4000 x; cp vp.gcda ref.out
    rm -f ./*.gcda; setarch -R ./vp_ucv 3000; setarch -R ./vp_ucv 4000 x; cp vp.gcda ucov.out
    rm -f ./*.gcda; setarch -R ./vp_gcc 3000; setarch -R ./vp_ucv 4000 x; cp vp.gcda mixed.out
    cp ucov.out ucov.gcda && cmp -s ref.out ucov.out && cmp -s ref.out mixed.out &&
      gcov-dump -l ucov.gcda | grep -q topn &&
      pass "-fprofile-generate ($update): value profiles identical to libgcov" || fail "-fprofile-generate ($update): value profiles identical to libgcov"
    cd .. || exit 1
  done
else
  echo "skip -fprofile-generate comparison: setarch -R unavailable"
fi

# clang --coverage: ucov against compiler-rt's GCDAProfiling, and llvm-cov reads it.
if command -v clang >/dev/null; then
  mkdir -p clang && cd clang || exit 1
  export SAVE_FROM=.
  clang -O1 -g --coverage "${SANFLAGS[@]}" -c "$SRC/examples/demo/httpreq.c" -o httpreq.o
  clang -O1 -g --coverage "${SANFLAGS[@]}" -c "$SRC/tests/integration/gcov_main.c" -o gcov_main.o
  clang --coverage "${SANFLAGS[@]}" httpreq.o gcov_main.o -o prog_rt
  CC=clang "$UCOV" cc --gcov "${SANFLAGS[@]}" httpreq.o gcov_main.o -o prog_ucov
  rm -f ./*.gcda; ./prog_rt "$R1" "$R3" >/dev/null; save rt1; mv rt1 ../clang-rt1
  rm -f ./*.gcda; ./prog_ucov "$R1" "$R3" >/dev/null; save ucov1; mv ucov1 ../clang-ucov1
  rm -f ./*.gcda; ./prog_rt "$R1" "$R3" >/dev/null; ./prog_rt "$R2" >/dev/null; save rt2
  mv rt2 ../clang-rt2
  rm -f ./*.gcda; ./prog_ucov "$R1" "$R3" >/dev/null; ./prog_ucov "$R2" >/dev/null; save ucov2
  mv ucov2 ../clang-ucov2
  rm -f ./*.gcda; ./prog_rt "$R1" "$R3" >/dev/null; ./prog_ucov "$R2" >/dev/null; save mixed
  mv mixed ../clang-mixed
  cd .. || exit 1
  same "clang: one run, byte-identical to compiler-rt" clang-rt1 clang-ucov1
  same_but_runs "clang: two runs merged, identical but for compiler-rt's run count" clang-rt2 clang-ucov2
  same_but_runs "clang: compiler-rt's file merged by ucov" clang-rt2 clang-mixed
  cmp -s clang-rt2/httpreq.gcda clang-ucov2/httpreq.gcda && pass "clang: the first file written is byte-identical, runs included" ||
    fail "clang: the first file written is byte-identical, runs included"
  (cd clang-ucov2 && cp ../clang/*.gcno . && llvm-cov gcov -t httpreq.gcda 2>/dev/null) >llvm.txt
  grep -q '^ *-: *0:Runs:2$' llvm.txt && grep -qE '^ *3: +[0-9]+:int http_parse' llvm.txt && pass "llvm-cov gcov reads ucov's clang .gcda" ||
    fail "llvm-cov gcov reads ucov's clang .gcda"
else
  echo "skip clang: not installed"
fi

finish gcov_vs_libgcov
