#!/usr/bin/env bash
# LLVM code regions: for clang++ 14, 16 and 19 as installed, on a C++
# program with template instances, macro expansions, a header's static
# function in two translation units, a lambda, a constructor and a
# destructor, ucov's region totals (per file and in all) equal
# `llvm-cov report`'s over the same profiles; three runs reported apart and
# merged give the totals of their merged profile (a region any run covered
# is covered); and the text table, the summary, the JSON summary, Markdown
# and the HTML page show them. gcov data has no regions, and shows none.
# Usage: regions.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
F=$SRC/tests/e2e/regions
# report_regions OUT: "FILE REGIONS COVERED" per file of llvm-cov report's
# table on stdin, and "TOTAL REGIONS COVERED".
report_regions() {
  awk '$1=="TOTAL"{print "TOTAL", $2, $2-$3; next}
       $1 ~ /\.(cc|h)$/ && $2 ~ /^[0-9]+$/ {n=split($1,p,"/"); print p[n], $2, $2-$3}' | sort
}
# summary_regions JSON: the same from ucov's JSON summary.
summary_regions() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["files"]:
    print(f["filename"].split("/")[-1], f.get("region_total", 0), f.get("region_covered", 0))
print("TOTAL", d.get("region_total", 0), d.get("region_covered", 0))' "$1" | sort
}
ran=0
for v in -14 -16 -19; do
  command -v "clang++$v" >/dev/null && command -v "llvm-cov$v" >/dev/null &&
    command -v "llvm-profdata$v" >/dev/null || continue
  ran=1
  d=c$v && mkdir -p "$d" && cd "$d" || exit 1
  "clang++$v" -fprofile-instr-generate -fcoverage-mapping -O0 "$F/main.cc" "$F/scale.cc" -o prog ||
    fail "clang++$v: build"
  LLVM_PROFILE_FILE=a.profraw ./prog 1 >/dev/null
  LLVM_PROFILE_FILE=b.profraw ./prog 2 x >/dev/null
  LLVM_PROFILE_FILE=c.profraw ./prog -3 >/dev/null
  "llvm-profdata$v" merge -o all.profdata a.profraw b.profraw c.profraw &&
    "llvm-cov$v" report -instr-profile all.profdata ./prog | report_regions >want.txt
  "$UCOV" report a.profraw b.profraw c.profraw --binary ./prog --json-summary s.json \
    --markdown m.md --html h.html 2>err.txt || fail "clang++$v: report: $(head -3 err.txt)"
  "$UCOV" report a.profraw b.profraw c.profraw --binary ./prog >table.txt 2>>err.txt
  summary_regions s.json >got.txt
  [ "$(wc -l <want.txt)" -ge 4 ] && cmp -s want.txt got.txt &&
    pass "clang++$v: regions per file and in all equal llvm-cov report's ($(grep TOTAL got.txt))" ||
    fail "clang++$v: regions differ from llvm-cov report: $(diff want.txt got.txt | tr '\n' ' ')"
  for x in a b c; do
    "$UCOV" report $x.profraw --binary ./prog --json $x.json 2>>err.txt || fail "clang++$v: report $x"
  done
  "$UCOV" merge a.json b.json c.json -o abc.json && "$UCOV" report abc.json --json-summary ms.json &&
    [ "$(summary_regions ms.json)" = "$(cat want.txt)" ] &&
    pass "clang++$v: three runs merged: the regions of their merged profile" ||
    fail "clang++$v: three runs merged: $(summary_regions ms.json | tr '\n' ' ') want $(tr '\n' ' ' <want.txt)"
  # One run alone covers fewer regions than the three (the check above could fail).
  "$UCOV" report a.json --json-summary as.json && [ "$(summary_regions as.json | grep TOTAL)" != "$(grep TOTAL want.txt)" ] &&
    pass "clang++$v: one run alone covers fewer regions" || fail "clang++$v: one run alone covers fewer regions"
  read -r _ rf rh < <(grep TOTAL want.txt)
  head -1 table.txt | grep -q 'Regions' && grep -q "^TOTAL .* $rh/$rf\$" table.txt &&
    grep -q "^regions: .*($rh of $rf)" table.txt &&
    pass "clang++$v: the text table and summary show regions" ||
    fail "clang++$v: the text table and summary show regions: $(tr '\n' '|' <table.txt)"
  grep -q "^| Regions | .* | $rh | $rf |\$" m.md && grep -q '| Regions |$' m.md &&
    pass "clang++$v: Markdown shows regions" || fail "clang++$v: Markdown shows regions: $(grep -i region m.md)"
  grep -q "regions $rh/$rf" h.html && grep -q '"reg": true' h.html &&
    pass "clang++$v: the HTML page shows regions" || fail "clang++$v: the HTML page shows regions"
  if [ "$v" = -19 ] && command -v chromium >/dev/null; then
    dom=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=3000 \
      --dump-dom "file://$PWD/h.html" 2>/dev/null)
    grep -q '<th data-k="r" colspan="2"[^>]*>Regions</th>' <<<"$dom" &&
      pass "clang++$v: Chromium draws the Regions column" || fail "clang++$v: Chromium draws the Regions column"
  fi
  cd .. || exit 1
done
[ $ran = 1 ] || echo "skip: no clang++ with its llvm-cov and llvm-profdata"

# gcov data has no regions: no column, no key.
mkdir -p gcc && cd gcc || exit 1
g++ --coverage -O0 "$F/main.cc" "$F/scale.cc" -o prog && ./prog 1 >/dev/null &&
  "$UCOV" report . --json-summary s.json 2>err.txt && "$UCOV" report . >table.txt 2>>err.txt ||
  fail "gcc: report: $(head -3 err.txt)"
head -1 table.txt | grep -q Branches && ! head -1 table.txt | grep -q Regions && ! grep -q "\"region_" s.json && ! grep -q '^regions:' table.txt &&
  pass "gcov data: no regions shown" || fail "gcov data: no regions shown"
finish regions
