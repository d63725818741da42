#!/usr/bin/env bash
# Exclusions: markers (LCOV_EXCL_*, GCOVR_EXCL_*), patterns, unreachable and
# exception branches, with gcovr as the oracle for the percentages and lcov
# for the functions; the same lines out for gcov, LLVM, trace and tracefile
# inputs; unbalanced markers warned about by file and line; the counts of what
# was excluded in the summary, JSON, Markdown and HTML.
# Usage: exclude.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK/g" && cd "$WORK/g" || exit 1
X=$SRC/tests/e2e/excl
cp "$X/markers.c" "$X/unbalanced.c" "$X/cleanup.c" .
gcc --coverage -O0 markers.c -o markers && ./markers >/dev/null

# totals FILE: "lines L/LF functions F/FF branches B/BF" from a JSON summary
# (gcovr's or ucov's: the same keys).
totals() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("lines %d/%d functions %d/%d branches %d/%d" % (d["line_covered"], d["line_total"],
  d["function_covered"], d["function_total"], d["branch_covered"], d["branch_total"]))' "$1"
}
# lb FILE: lines and branches only (gcovr 5 keeps an excluded function: lcov does not)
lb() { totals "$1" | sed 's/ functions [0-9/]*//'; }

"$UCOV" report . --json-summary u.json --lcov u.info 2>u.err && [ ! -s u.err ] && pass "report with markers" ||
  fail "report with markers: $(head -3 u.err)"
if command -v gcovr >/dev/null; then
  gcovr -r . -b --json-summary g.json >/dev/null 2>&1
  [ "$(lb u.json)" = "$(lb g.json)" ] && pass "markers: ucov" ||
    fail "markers: ucov $(lb u.json), gcovr $(lb g.json)"
  # (gcovr's patterns are Python's: \d, (?:...) and lazy quantifiers mean the same here)
  for p in --exclude-lines-by-pattern=.*SKIPME --exclude-branches-by-pattern=.*branches.here \
    '--exclude-lines-by-pattern=(?:\s*)if \(v == \d+\)' '--exclude-lines-by-pattern=.*?12345\D'; do
    "$UCOV" report . "$p" --json-summary up.json 2>/dev/null
    gcovr -r . -b "$p" --json-summary gp.json >/dev/null 2>&1
    [ "$(lb up.json)" = "$(lb gp.json)" ] && [ "$(lb up.json)" != "$(lb u.json)" ] && pass "$p: ucov" ||
      fail "$p: ucov $(lb up.json), gcovr $(lb gp.json)"
  done
  # The percentages as gcovr writes them (one decimal, 99.9 at most below 100).
  python3 - u.json g.json <<'PY' && pass "percentages equal gcovr's" || fail "percentages differ from gcovr's"
import json, sys
u, g = (json.load(open(p)) for p in sys.argv[1:])
for k in ("line_percent", "branch_percent"):
    assert u[k] == g[k], (k, u[k], g[k])
    assert u["files"][0][k] == g["files"][0][k], k
PY
else
  echo "skip gcovr: not installed"
fi
# lcov 1.x leaves the function of an excluded region out, as ucov does (lcov
# knows only the LCOV_ spelling: compared on functions).
if command -v lcov >/dev/null; then
  lcov -q -c -d . -o l.info >/dev/null 2>&1
  [ "$(grep -c '^FN:' l.info)" = "$(grep -c '^FN:' u.info)" ] && ! grep -q 'FN:.*never' u.info &&
    pass "functions excluded as lcov does" || fail "functions excluded as lcov does: $(grep '^FN:' u.info | tr '\n' ' ')"
fi
# Nothing of an excluded line is left, and the excluded counts say what went.
! grep -qE '^(DA|BRDA):(7|8|14|15|16|17|18),' u.info && grep -q '^DA:24,' u.info &&
  ! grep -qE '^BRDA:(24|27),' u.info && pass "excluded lines and branches left out" || fail "excluded lines and branches left out"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert (d["line_excluded"], d["function_excluded"]) == (7, 1), d
assert d["branch_excluded"] >= 8, d' u.json && pass "excluded counts in the JSON summary" || fail "excluded counts in the JSON summary"
"$UCOV" report . >sum.txt && grep -q '^excluded:  7 lines, 1 functions' sum.txt && pass "excluded counts in the summary" ||
  fail "excluded counts in the summary: $(cat sum.txt)"
"$UCOV" report . --summary -q 2>lsum.txt && grep -q 'excluded...: 7 lines' lsum.txt && pass "excluded counts in --summary" ||
  fail "excluded counts in --summary"
"$UCOV" report . --markdown md.txt && grep -q '^Excluded: 7 lines, 1 functions' md.txt && pass "excluded counts in the Markdown" ||
  fail "excluded counts in the Markdown"
"$UCOV" report . --json uj.json && python3 -c 'import json,sys
f=json.load(open(sys.argv[1]))["files"][0]
assert f["excluded"]["lines"] == [7, 8, 14, 15, 16, 17, 18], f["excluded"]' uj.json && pass "ucov JSON lists the excluded lines" ||
  fail "ucov JSON lists the excluded lines"
# ucov JSON carries them through a merge: the same summary after.
"$UCOV" merge uj.json -o back.json && "$UCOV" report back.json >sum2.txt &&
  cmp -s sum.txt sum2.txt && pass "excluded counts survive ucov JSON" || fail "excluded counts survive ucov JSON: $(diff sum.txt sum2.txt)"
# --no-markers: everything back.
"$UCOV" report . --no-markers --lcov nm.info && grep -q '^DA:7,' nm.info &&
  grep -q '^FN:.*never' nm.info && pass "--no-markers keeps the marked lines" || fail "--no-markers keeps the marked lines"

# Unbalanced markers: a warning naming file and line; an unmatched START
# excludes nothing (as gcovr), a STOP without START neither.
mkdir -p ../u && cp unbalanced.c ../u && (cd ../u && gcc --coverage -O0 -c unbalanced.c &&
  gcc --coverage unbalanced.o -o ub && ./ub)
"$UCOV" report ../u --lcov ub.info 2>ub.err
grep -q "u/unbalanced.c:3: LCOV_EXCL_STOP without a LCOV_EXCL_START" ub.err &&
  grep -q "unbalanced.c:5: LCOV_EXCL_BR_START without a LCOV_EXCL_BR_STOP" ub.err &&
  grep -q "unbalanced.c:9: GCOVR_EXCL_START without a GCOVR_EXCL_STOP" ub.err &&
  grep -q '^DA:10,' ub.info && grep -q '^BRDA:3,' ub.info && pass "unbalanced markers" ||
  fail "unbalanced markers: $(cat ub.err)"

# A pattern that is not an ERE: a usage error.
"$UCOV" report . --exclude-lines-by-pattern '(' >/dev/null 2>re.err
[ $? = 2 ] && grep -q 'exclude-lines-by-pattern' re.err && pass "a bad ERE" || fail "a bad ERE: $(cat re.err)"

# Other inputs lose the same lines: an lcov tracefile (made without
# exclusions), LLVM profiles and a trace.
"$UCOV" report nm.info --lcov fromtf.info && grep -c '^DA:' fromtf.info >a.n &&
  grep -c '^DA:' u.info >b.n && cmp -s a.n b.n && pass "a tracefile input is excluded alike" || fail "a tracefile input is excluded alike"
if command -v clang >/dev/null && command -v llvm-profdata >/dev/null; then
  mkdir -p ../l && cp markers.c ../l && (cd ../l && clang -fprofile-instr-generate \
    -fcoverage-mapping -O0 markers.c -o lm && LLVM_PROFILE_FILE=lm.profraw ./lm >/dev/null)
  "$UCOV" report ../l/lm.profraw --binary ../l/lm --lcov llvm.info --json-summary llvm.json 2>/dev/null &&
    ! grep -qE '^DA:(7|8|14|15|16|17|18),' llvm.info && grep -q '^DA:24,' llvm.info &&
    ! grep -q 'never' llvm.info && python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["line_excluded"] > 0 and d["function_excluded"] == 1, d' llvm.json && pass "LLVM profile input excluded alike" ||
    fail "LLVM profile input excluded alike"
  # clang's notes: branches on a line of only "}" go with
  # --exclude-unreachable-branches, exception edges with --exclude-throw-branches,
  # as gcovr counts them through llvm-cov gcov.
  mkdir -p ../c && cp cleanup.c ../c && (cd ../c && clang --coverage -fexceptions -O0 cleanup.c \
    -o c && ./c)
  for o in "" --exclude-unreachable-branches --exclude-throw-branches; do
    # shellcheck disable=SC2086 # o is one option or none
    "$UCOV" report ../c/cleanup.gcda $o --json-summary cu.json 2>/dev/null
    if command -v gcovr >/dev/null && command -v llvm-cov >/dev/null; then
      # shellcheck disable=SC2086
      (cd ../c && gcovr $o --gcov-executable "llvm-cov gcov" -r . -b --json-summary ../g/cg.json \
        >/dev/null 2>&1)
      b() { totals "$1" | sed 's/.*branches/branches/'; }
      [ "$(b cu.json)" = "$(b cg.json)" ] && pass "clang cleanup.c ${o:-(no option)}: ucov" ||
        fail "clang cleanup.c ${o:-(no option)}: ucov $(b cu.json), gcovr $(b cg.json)"
    fi
  done
  "$UCOV" report ../c/cleanup.gcda --exclude-unreachable-branches --lcov cu.info 2>/dev/null
  ln=$(grep -n '^  }$' cleanup.c | head -1 | cut -d: -f1)
  "$UCOV" report ../c/cleanup.gcda --lcov cu0.info 2>/dev/null
  grep -q "^BRDA:$ln," cu0.info && ! grep -q "^BRDA:$ln," cu.info && pass "branches on line $ln (only a brace) excluded as unreachable" ||
    fail "branches on line $ln (only a brace) excluded as unreachable"
else
  echo "skip LLVM: clang or llvm-profdata missing"
fi
# gcc's exception edges: counted as lcov counts them, out with --exclude-throw-branches.
mkdir -p ../e && cp cleanup.c ../e && cd ../e || exit 1
gcc --coverage -O0 -fexceptions -c cleanup.c && gcc --coverage cleanup.o -o gc && ./gc
"$UCOV" report cleanup.gcda --lcov-format 2 --lcov t2.info
"$UCOV" report cleanup.gcda --exclude-throw-branches --lcov t0.info
grep -q '^BRDA:[0-9]*,e0,' t2.info && [ "$(grep -c '^BRDA:' t0.info)" -lt "$(grep -c '^BRDA:' t2.info)" ] &&
  pass "exception branches: marked e in lcov 2, out with --exclude-throw-branches" || fail "exception branches: marked e in lcov 2, out with --exclude-throw-branches"
if command -v lcov >/dev/null; then
  rm -f l2.info && lcov -q -c -d . -o l2.info --rc lcov_branch_coverage=1 >/dev/null 2>&1
  "$UCOV" report cleanup.gcda --no-markers --lcov t1.info
  sf() { awk -v f="SF:$PWD/cleanup.c" '$0==f{p=1} /^end_of_record/{p=0} p&&/^BRDA:/' "$1"; }
  [ -n "$(sf t1.info)" ] && [ "$(sf t1.info)" = "$(sf l2.info)" ] && pass "exception branches as lcov counts them" ||
    fail "exception branches as lcov counts them: $(diff <(sf t1.info) <(sf l2.info) | head -5)"
fi
cd ../g || exit 1

# Traces: the PCs of a build with call sites, every site as hit.
if command -v objdump >/dev/null; then
  mkdir -p ../t && cp markers.c ../t && cd ../t || exit 1
  # (the runtime of a sanitizer build needs its flags to link)
  CC=gcc "$UCOV" cc --trace -g -O0 -no-pie "${SANFLAGS[@]}" markers.c -o tm 2>cc.err ||
    fail "ucov cc --trace: $(head -3 cc.err)"
  "$UCOV" symbolize --call-sites --binary tm | while read -r a; do printf '0x%x\n' $((a + 5)); done >pcs.txt
  "$UCOV" report pcs.txt --binary tm --lcov tr.info 2>/dev/null
  "$UCOV" report pcs.txt --binary tm --no-markers --lcov tr0.info 2>/dev/null
  grep -qE '^DA:(7|8),' tr0.info && ! grep -qE '^DA:(7|8|14|15|16|17|18),' tr.info &&
    grep -q '^DA:24,' tr.info && pass "a trace input is excluded alike" || fail "a trace input is excluded alike"
  cd ../g || exit 1
fi

# HTML: the excluded lines marked, the counts shown (headless Chromium); the
# page's header counts what the text summary counts, functions included.
"$UCOV" report uj.json --html x.html --title excl
want=$("$UCOV" report uj.json | sed -n 's/^excluded: *\([0-9]*\) lines, \([0-9]*\) functions, \([0-9]*\) branches$/excluded \1 lines, \2 functions, \3 branches/p')
[ -n "$want" ] && grep -q "&middot; $want" x.html && pass "HTML header: the excluded counts of the summary ($want)" ||
  fail "HTML header excluded counts: want '$want', got '$(grep -o 'excluded [^&]*' x.html | head -1)'"
if command -v chromium >/dev/null; then
  timeout 60 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$WORK/chr" \
    --virtual-time-budget=3000 --dump-dom "file://$PWD/x.html#f=0" >dom.html 2>/dev/null
  grep -q 'id="L7" class="excl"' dom.html && grep -q 'id="excluded">7 lines' dom.html && pass "HTML marks excluded lines" ||
    fail "HTML marks excluded lines: $(grep -o 'id="L7"[^>]*>' dom.html)"
else
  grep -q '"x": \[7,8,14' x.html && pass "HTML data lists the excluded lines" || fail "HTML data lists the excluded lines"
fi
finish exclude
