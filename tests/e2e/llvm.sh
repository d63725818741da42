#!/usr/bin/env bash
# LLVM profiles, batched: all the raw profiles of one program are merged once
# (`llvm-profdata merge`) and exported once (`llvm-cov export`, JSON), for
# clang 14, 16 and 19 as installed; lines, functions and branches equal
# llvm-cov's own lcov export of the same merge, line by line, every function
# of the program listed (never called ones at 0). Programs that
# share sources add up by source line. MC/DC (clang 19): the conditions ucov
# counts equal `llvm-cov report --show-mcdc-summary`, and reach the lcov 2
# tracefile, ucov JSON and the HTML page.
# Usage: llvm.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK/bin" && cd "$WORK" || exit 1
D=$SRC/examples/demo
# Every llvm tool ucov runs goes through a wrapper that logs its subcommand.
for t in llvm-profdata llvm-cov; do
  for v in "" -14 -16 -19; do
    real=$(command -v "$t$v") || continue
    # shellcheck disable=SC2016 # ($1 and $@ are the wrapper's own)
    printf '#!/bin/sh\necho "%s $1" >>"%s/tools.log"\nexec "%s" "$@"\n' "$t$v" "$WORK" "$real" \
      >"bin/$t$v"
    chmod +x "bin/$t$v"
  done
done
# lcov records per file and line, branch pairs as a multiset (llvm-cov
# numbers the pairs of one line in an order of its own).
norm() {
  awk -F'[:,]' '/^SF:/{f=$2} /^DA:|^FNDA:|^FN:/{print f, $0} /^BRDA:/{print f, "BRDA", $2, $5}' "$1" |
    sort
}
R1='GET / HTTP/1.1\r\nHost: a\r\n\r\n'
R2='POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n'
R3='BREW /pot HTTP/1.1\r\n\r\n'
ran=0
for v in "" -16 -19; do
  command -v "clang$v" >/dev/null && command -v "llvm-cov$v" >/dev/null &&
    command -v "llvm-profdata$v" >/dev/null || continue
  ran=1
  d=c${v:-default} && mkdir -p "$d" && cd "$d" || exit 1
  "clang$v" -fprofile-instr-generate -fcoverage-mapping -O1 -I"$D" "$D/httpreq.c" \
    "$SRC/tests/integration/gcov_main.c" -o prog || fail "clang$v: build"
  k=0
  for r in "$R1" "$R2" "$R3" "$R1$R2"; do
    k=$((k + 1))
    LLVM_PROFILE_FILE=p$k.profraw ./prog "$r" >/dev/null
  done
  : >"$WORK/tools.log"
  PATH=$WORK/bin:$PATH "$UCOV" report p1.profraw p2.profraw p3.profraw p4.profraw --binary ./prog \
    --lcov u.info 2>u.err || fail "clang$v: report: $(head -3 u.err)"
  [ "$(grep -c ' merge$' "$WORK/tools.log")" = 1 ] && [ "$(grep -c ' export$' "$WORK/tools.log")" = 1 ] &&
    pass "clang$v: 4 profiles, not one merge and one export" || fail "clang$v: 4 profiles, not one merge and one export: $(tr '\n' ' ' <"$WORK/tools.log")"
  "llvm-profdata$v" merge -o all.profdata p*.profraw &&
    "llvm-cov$v" export -format=lcov -instr-profile all.profdata ./prog >l.info
  [ -s u.info ] && cmp -s <(norm u.info) <(norm l.info) && pass "clang$v: ucov equals llvm-cov's lcov export" ||
    fail "clang$v: ucov and llvm-cov's lcov export differ: $(diff <(norm u.info) <(norm l.info) | head -4)"
  # Every function of the program counts, hit or not.
  grep -q '^FNDA:0,httpreq.c:parse_u64$' u.info && grep -q '^FNDA:[1-9][0-9]*,http_parse$' u.info &&
    pass "clang$v: functions never called" || fail "clang$v: functions never called: $(grep -c '^FNDA:0' u.info) at 0"
  # A second program on the same sources: both programs' counts add up by line.
  printf '#include "httpreq.h"\n#include <string.h>\nint main(int c, char **v) { struct http_request r;\n  return c > 1 ? http_parse(v[1], strlen(v[1]), &r) != 0 : 0; }\n' >two.c
  "clang$v" -fprofile-instr-generate -fcoverage-mapping -O1 -I"$D" "$D/httpreq.c" two.c -o two
  LLVM_PROFILE_FILE=t1.profraw ./two 'GET / HTTP/1.1' >/dev/null
  "$UCOV" report p1.profraw --binary ./prog --lcov a.info && "$UCOV" report t1.profraw --binary ./two \
    --lcov b.info && "$UCOV" merge a.info b.info -o ab.info &&
    awk -F'[:,]' -v f="SF:$D/httpreq.c" '$0==f{p=1} /^end_of_record/{p=0}
      p&&/^FNDA:/&&$3=="http_parse"{print $2}' ab.info | grep -qx 2 && pass "clang$v: two programs on one source: http_parse counts add up" ||
    fail "clang$v: two programs on one source: http_parse counts add up"
  cd .. || exit 1
done
[ $ran = 1 ] || echo "skip: no clang with its llvm-cov and llvm-profdata"

# MC/DC: clang 19's -fcoverage-mcdc.
if command -v clang-19 >/dev/null && command -v llvm-cov-19 >/dev/null; then
  mkdir -p mcdc && cd mcdc || exit 1
  clang-19 -fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc -O0 "$SRC/tests/e2e/llvm/mcdc.c" \
    -o m || fail "mcdc: build"
  LLVM_PROFILE_FILE=a.profraw ./m 1 1 >/dev/null
  LLVM_PROFILE_FILE=b.profraw ./m 1 0 >/dev/null
  LLVM_PROFILE_FILE=c.profraw ./m 0 1 >/dev/null
  llvm-profdata-19 merge -o m.profdata ./*.profraw
  # llvm-cov's TOTAL: ... MC/DC conditions, missed, percent (the last three columns)
  read -r total missed < <(llvm-cov-19 report --show-mcdc-summary -instr-profile m.profdata ./m |
    awk '/^TOTAL/{print $(NF-2), $(NF-1)}')
  "$UCOV" report ./*.profraw --binary ./m >sum.txt --lcov-format 2 2>&1
  "$UCOV" report ./*.profraw --binary ./m --lcov m.info --lcov-format 2 --json m.json --html m.html
  hit=$((total - missed))
  [ -n "$total" ] && [ "$total" -gt 0 ] && grep -q "^MC/DC: .*($hit of $total)" sum.txt && pass "mcdc: llvm-cov counts $hit of $total conditions, ucov" ||
    fail "mcdc: llvm-cov counts $hit of $total conditions, ucov: $(grep MC/DC sum.txt)"
  [ "$(grep -c '^MCDC:' m.info)" = "$total" ] && grep -q "^MCF:$total$" m.info &&
    grep -q "^MCH:$hit$" m.info && grep -q '"mcdc": \[\[' m.json && grep -q 'MC/DC' m.html && pass "mcdc: lcov 2, JSON, HTML" ||
    fail "mcdc: lcov 2, JSON, HTML: $(grep -E '^MC' m.info | head -4)"
  cd .. || exit 1
else
  echo "skip MC/DC: no clang-19 with llvm-cov-19"
fi
finish llvm
