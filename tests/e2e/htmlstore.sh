#!/usr/bin/env bash
# The HTML page of a store (ucov report --store URL --html) in headless
# Chromium: every row of a file's view carries the tests that ran it
# (data-tests) exactly as ucov who gives them for that line, and its line
# number (data-line); &test=NAME shows one test's hits alone; the chart has
# a point group per build of ucov history, with its line coverage
# (data-percent) and its revision and time in the hover; a Tests column
# counts each line's tests as ucov who does; &test=NAME's header is that
# test's alone; a build without branches has no branch point, and the axis
# names the builds; a report of one test (a campaign) also draws its reach
# over time, point by point as ucov history --test gives it.
# Usage: htmlstore.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
need_chromium
rm -rf "$WORK" && mkdir -p "$WORK/b" && cd "$WORK/b" || exit 1
cat >cls.c <<'C'
#include <stdlib.h>
static int classify(int x) {
  if (x < 0)
    return -1;
  if (x == 0)
    return 0;
  return 1;
}
int main(int argc, char **argv) {
  int s = 0;
  for (int i = 1; i < argc; i++)
    s += classify(atoi(argv[i]));
  return s < -100;
}
C
gcc --coverage -O0 cls.c -o cls || fail "build"
url=$WORK/s.db
# run NAME REVISION ARGS...: one test's run, pushed as that test of that build
run() {
  local name=$1 rev=$2
  shift 2
  rm -f ./*.gcda
  ./cls "$@"
  "$UCOV" push . --store "$url" --test "$name" --revision "$rev" -q || fail "push $name $rev"
}
run neg r1 -1 -2 -3
run zero r1 0 0
run pos r1 5
run pos r2 5 6
cd "$WORK" || exit 1
"$UCOV" report --store "$url" --html s.html 2>rep.err || fail "report --store --html: $(cat rep.err)"
headless --dump-dom "file://$WORK/s.html#file=cls.c&line=4" >file.dom
headless --dump-dom "file://$WORK/s.html#file=cls.c&test=zero" >zero.dom
headless --dump-dom "file://$WORK/s.html" >summary.dom
headless --dump-dom "file://$WORK/s.html#test=zero" >zsum.dom

# rows FILE: "LINE|COUNT|DATA-TESTS|CLASSES" for each rendered row
rows() {
  python3 - "$1" <<'PY'
import html, re, sys
dom = open(sys.argv[1]).read()
for m in re.finditer(r'<tr id="L(\d+)" class="([^"]*)"([^>]*)><td class="ln">\d+</td><td class="cnt"[^>]*>([^<]*)</td>', dom, re.S):
    a = dict(re.findall(r'(data-[a-z]+)="([^"]*)"', m.group(3)))
    if a.get("data-line") != m.group(1):
        print("bad data-line", m.group(1), a, file=sys.stderr)
        sys.exit(1)
    print(m.group(1), m.group(4), html.unescape(a.get("data-tests", "?")), m.group(2), sep="|")
PY
}
rows file.dom >file.rows || fail "rows carry data-line"
n=$(wc -l <file.rows)
[ "$n" -ge 14 ] && pass "a file's view: $n rows, each with its data-line" || fail "a file's view: $n rows"
# data-tests of every row = ucov who for that line
bad=0
while IFS="|" read -r line _ tests _; do
  want=$("$UCOV" who "cls.c:$line" --store "$url" | cut -f1 | tr '\n' ' ')
  [ "$tests " = "$want" ] || [ -z "$tests$want" ] || {
    bad=$((bad + 1))
    echo "line $line: data-tests '$tests', who '$want'" >&2
  }
done <file.rows
[ $bad = 0 ] && pass "every row's data-tests is ucov who for its line" || fail "data-tests against ucov who: $bad lines differ"
grep -qx '4|3|neg|hit cur' file.rows >/dev/null && pass "#file=cls.c&line=4 marks line 4 with its count" ||
  fail "#file=cls.c&line=4: $(grep "^4|" file.rows)"
# &test=zero: each line's hits in that test alone (who's count for it, else 0)
rows zero.dom >zero.rows
bad=0
while IFS="|" read -r line count _ cls; do
  [ "$cls" = none ] && continue
  want=$("$UCOV" who "cls.c:$line" --store "$url" | awk -F'\t' '$1 == "zero" {print $2}')
  [ "$count" = "${want:-0}" ] || {
    bad=$((bad + 1))
    echo "line $line: $count in the view, zero's count '${want:-0}'" >&2
  }
done <zero.rows
grep -q '<p id="only">Test <b>zero</b> alone' zero.dom && [ $bad = 0 ] && [ -s zero.rows ] &&
  pass "&test=zero shows that test's hits alone" || fail "&test=zero: $bad lines differ"
# &test=zero in the summary: each file's lines that test ran, as report
# --test zero counts them; its view's header the same
"$UCOV" report --store "$url" --test zero --lcov z.info 2>/dev/null
lh=$(awk -F: '/^LH:/ {print $2}' z.info) lf=$(awk -F: '/^LF:/ {print $2}' z.info)
got=$(sed -n 's|.*<tr data-path="[^"]*cls.c"><td><a href="#f=0&amp;test=zero">[^<]*</a></td><td><span class="bar">.*</span></td><td class="n[^"]*">[^<]*</td><td class="n">\([0-9]* / [0-9]*\)</td>.*|\1|p' zsum.dom)
[ -n "$lh" ] && [ "$lh" -gt 0 ] && [ "$got" = "$lh / $lf" ] && grep -q '<p id="only">Test <b>zero</b> alone' zsum.dom &&
  grep -q "<p>Lines [0-9.]*% ($lh / $lf)</p>" zero.dom && pass "&test=zero in the summary and the header: $got lines, as report --test" ||
  fail "&test=zero in the summary: '$got', report --test zero: $lh / $lf; header $(grep -o '<p>Lines [^<]*' zero.dom)"
# the chart: a point group per build of ucov history, its line coverage
"$UCOV" history --store "$url" | awk -F'\t' '{sub(/%$/, "", $6); print $1, $6}' >hist.txt
python3 - summary.dom >chart.txt <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
for m in re.finditer(r'<g class="build" data-build="(\d+)" data-percent="([\d.]+)"><title>([^<]*)</title>', dom):
    print(m.group(1), m.group(2))
    assert re.search(r"^build %s r\d \d{4}-\d\d-\d\dT" % m.group(1), m.group(3)), m.group(3)
PY
[ "$(wc -l <hist.txt)" = 2 ] && cmp -s hist.txt chart.txt && grep -q '<svg id="chart"' summary.dom &&
  pass "the chart: one point group per build of ucov history, its percentage" ||
  fail "the chart: history '$(tr '\n' ' ' <hist.txt)', chart '$(tr '\n' ' ' <chart.txt)'"
# the tests column: each row's count of tests is ucov who's, their names
# and counts in its hover
python3 - file.dom >who.rows <<'PY'
import html, re, sys
dom = open(sys.argv[1]).read()
for m in re.finditer(r'<tr id="L(\d+)"[^>]*>.*?<td class="who"([^>]*)>([^<]*)</td>', dom, re.S):
    a = dict(re.findall(r'(title|data-n)="([^"]*)"', m.group(2)))
    print(m.group(1), m.group(3) or 0, html.unescape(a.get("title", "")).replace("\n", ","), sep="|")
PY
bad=0
while IFS="|" read -r line n title; do
  want=$("$UCOV" who "cls.c:$line" --store "$url" | awk -F'\t' '{printf "%s%s: %s", s, $1, $2; s=","}')
  wn=$("$UCOV" who "cls.c:$line" --store "$url" | grep -c .)
  [ "$n" = "$wn" ] && [ "$title" = "$want" ] || {
    bad=$((bad + 1))
    echo "line $line: tests column '$n' '$title', who $wn '$want'" >&2
  }
done <who.rows
[ "$(wc -l <who.rows)" -ge 14 ] && [ $bad = 0 ] && grep -q '^2|3|neg: 3,pos: 3,zero: 2$' who.rows &&
  pass "the tests column: each line's count of tests and their names, as ucov who" ||
  fail "the tests column: $bad of $(wc -l <who.rows) rows differ from ucov who"
# &test=zero: the header gives that test's lines, and no all-tests functions
hd=$(grep -o '<div class="t">.*</div></header>' zsum.dom)
grep -q "test <b>zero</b>: lines $lh/$lf" <<<"$hd" && ! grep -q 'functions [0-9]' <<<"$hd" &&
  pass "&test=zero: the header gives its lines alone ($lh/$lf)" || fail "&test=zero header: $hd"
# the chart of builds with and without branches: a build with none (0/0)
# has no branch point, the branch line breaks there, builds named on the axis
mkdir -p "$WORK/c/flat" "$WORK/c/cls" && cd "$WORK/c" || exit 1
printf 'int main(void) { return 0; }\n' >flat/flat.c
(cd flat && gcc --coverage -O0 flat.c -o flat) && (cd cls && gcc --coverage -O0 "$WORK/b/cls.c" -o cls) ||
  fail "chart builds"
c_url=$WORK/c.db
for r in r1 r2 r3; do
  d=cls && [ $r = r2 ] && d=flat
  rm -f ./*/*.gcda
  (cd $d && if [ $d = flat ]; then ./flat; else ./cls 1 -1; fi)
  "$UCOV" push $d --store "$c_url" --test t --revision "$r" -q || fail "chart push $r"
done
"$UCOV" report --store "$c_url" --html "$WORK/c.html" 2>/dev/null
headless --dump-dom "file://$WORK/c.html" >"$WORK/c.dom"
python3 - "$WORK/c.dom" <<'PY' && pass "the chart: a build without branches has no branch point, its axis names r1 r2 r3" || fail "the chart of a build without branches"
import re, sys
dom = open(sys.argv[1]).read()
groups = re.findall(r'<g class="build"[^>]*>(.*?)</g>', dom, re.S)
assert len(groups) == 3, len(groups)
kinds = [re.findall(r'data-kind="(\w+)"', g) for g in groups]
assert kinds[1] == ["lines", "functions"] and kinds[0] == kinds[2] == ["lines", "functions", "branches"], kinds
assert "branches -%" in groups[1], groups[1][:200]
assert len(re.findall(r'<polyline class="s2"', dom)) == 2, "branch line not broken"
assert len(re.findall(r'<polyline class="s0"', dom)) == 1
labels = re.findall(r'<text class="axis x"[^>]*>([^<]*)</text>', dom)
assert labels == ["r1", "r2", "r3"], labels
PY
# a campaign's curve: a report of one test draws its reach over time, a
# point per row of ucov history --test (lines, functions, branches so far)
cd "$WORK/b" || exit 1
k_url=$WORK/k.db
for args in "1" "1 0" "1 0 -1"; do
  rm -f ./*.gcda
  # shellcheck disable=SC2086 # (the arguments, split)
  ./cls $args
  "$UCOV" push . --store "$k_url" --test camp --revision r1 -q || fail "campaign push"
  sleep 1.1
done
"$UCOV" history --store "$k_url" --test camp >k.hist 2>/dev/null
"$UCOV" report --store "$k_url" --test camp --html "$WORK/k.html" --lcov k.info 2>/dev/null
headless --dump-dom "file://$WORK/k.html" >"$WORK/k.dom"
lf=$(awk -F: '/^LF:/ {print $2}' k.info)
python3 - "$WORK/k.dom" k.hist "$lf" <<'PY' && pass "a campaign's chart: a point per row of history --test, its lines, functions and branches so far" || fail "the campaign's chart: $(tr '\t\n' ' ;' <k.hist)"
import calendar, re, sys, time
dom = open(sys.argv[1]).read()
rows = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
lf = int(sys.argv[3])
pts = re.findall(r'<g class="reach" data-at="(\d+)" data-lines="(\d+)" data-functions="(\d+)" '
                 r'data-branches="(\d+)" data-percent="([\d.]+)">', dom)
assert '<svg id="campaign"' in dom and "reached by campaign <b>camp</b>" in dom
assert len(rows) == 3 and len(pts) == 3, (rows, pts)
for r, p in zip(rows, pts):
    at = calendar.timegm(time.strptime(r[0], "%Y-%m-%dT%H:%M:%SZ"))
    assert int(p[0]) == at and p[1] == r[1] and p[2] == r[3] and p[3] == r[4], (r, p)
    assert abs(float(p[4]) - 100.0 * int(r[1]) / lf) < 0.01, (p, lf)
assert int(pts[0][1]) < int(pts[1][1]) < int(pts[2][1])
PY
finish htmlstore
