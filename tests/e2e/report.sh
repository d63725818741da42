#!/usr/bin/env bash
# ucov report and ucov merge against the tools people use: lcov output read by
# lcov and genhtml, Cobertura validated against coverage-04.dtd, line counts
# equal to gcovr's on the same .gcda and to llvm-cov's on the same .profraw,
# a pulled tree of a running daemon, merges in any order, path rules, lcov
# 2.x tracefiles read and written back byte for byte, the HTML page in
# headless Chromium, differential categories against a
# baseline, and corrupt inputs (a message, the rest of the report, status 1).
# Usage: report.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK/b" && cd "$WORK/b" || exit 1
R1='GET / HTTP/1.1\r\nHost: a\r\n\r\n'
R2='POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n'
D=$SRC/examples/demo
gcc --coverage -O0 -I"$D" -c "$D/httpreq.c" -o httpreq.o
gcc --coverage -O0 -c "$SRC/tests/integration/gcov_main.c" -o gcov_main.o
gcc --coverage httpreq.o gcov_main.o -o prog
./prog "$R1" "$R2" >/dev/null
cd "$WORK" || exit 1

# lcov, Cobertura, JSON from a build tree of .gcda files. Its other JSON
# (a compilation database, a spec) is not coverage: not an input, no error.
echo '[{"directory": "/b", "file": "a.c", "command": "cc -c a.c"}]' >b/compile_commands.json
echo '{"name": "spec", "args": [1, 2]}' >b/spec.json
"$UCOV" report b --lcov r.info --cobertura r.xml --json r.json 2>r.err && [ ! -s r.err ] && pass "report exits 0, stray JSON left alone" ||
  fail "report exits 0, stray JSON left alone ($(head -3 r.err))"
grep -q "^SF:$SRC/examples/demo/httpreq.c$" r.info && grep -q '^FNDA:2,http_parse$' r.info &&
  grep -q '^BRDA:' r.info && pass "lcov tracefile: files, functions, branches" || fail "lcov tracefile: files, functions, branches"
# A directory yields raw data only: the reports left in it (ucov's own, an
# lcov capture's) are not summed in again; the same data reached twice (the
# directory again, through a link, a file inside it named too, a tracefile
# named twice) counts once.
cp r.info b/r.info && cp r.json b/r.json && cp r.info b/lcov-capture.info && ln -sfn b blink
for args in "b" "b b" "b blink" "blink b/httpreq.gcda b/gcov_main.gcda" "b/ ./b"; do
  # shellcheck disable=SC2086 # $args: several inputs
  "$UCOV" report $args --lcov again.info 2>again.err && cmp -s r.info again.info && pass "report $args" ||
    fail "report $args: $(diff r.info again.info | head -4) $(head -2 again.err)"
done
"$UCOV" report r.info r.info --lcov again.info && cmp -s r.info again.info && pass "a tracefile named twice counts once" ||
  fail "a tracefile named twice counts once: $(diff r.info again.info | head -4)"
mkdir -p onlyreports && cp r.info r.json onlyreports/
"$UCOV" report onlyreports >/dev/null 2>only.err
[ $? = 1 ] && grep -q 'onlyreports: no .gcda.*only when named as files' only.err && pass "a directory of reports only" ||
  fail "a directory of reports only: $(cat only.err)"
rm -f b/r.info b/r.json b/lcov-capture.info blink
# --exclude-function: the function named (a whole-name match, or gcovr's /RE/)
# goes with its lines, from its first to its last (lcov 2's FNL), and branches.
"$UCOV" report b --lcov-format 2 --lcov f2.info --exclude-function parse_version --exclude-function '/lo.er/' &&
  "$UCOV" report b --lcov-format 2 --lcov f0.info && python3 - f0.info f2.info <<'PY' &&
import sys
def recs(p):
    fnl, da, br, names, cur = {}, set(), set(), set(), None
    for l in open(p):
        l = l.strip()
        if l.startswith("SF:"):
            cur = l[3:]
        elif l.startswith("FNL:"):
            i, a, *b = l[4:].split(",")
            fnl[(cur, i)] = (int(a), int(b[0]) if b else int(a))
        elif l.startswith("FNA:"):
            i, _, n = l[4:].split(",", 2)
            names.add((cur, n, fnl[(cur, i)]))
        elif l.startswith("DA:"):
            da.add((cur, int(l[3:].split(",")[0])))
        elif l.startswith("BRDA:"):
            br.add((cur, l[5:]))
    return names, da, br
n0, d0, b0 = recs(sys.argv[1])
n2, d2, b2 = recs(sys.argv[2])
gone = {(f, r) for f, n, r in n0 if n in ("parse_version", "lower")}
assert len(gone) == 2 and all(r[1] > r[0] for _, r in gone), gone
inside = lambda f, l: any(f == g and r[0] <= l <= r[1] for g, r in gone)
assert {n for _, n, _ in n2} == {n for _, n, _ in n0} - {"parse_version", "lower"}
assert d2 == {(f, l) for f, l in d0 if not inside(f, l)}, sorted(d0 - d2)
assert b2 == {(f, b) for f, b in b0 if not inside(f, int(b.split(",")[0]))}
PY
  pass "--exclude-function" || fail "--exclude-function"
# --lcov-format 2's FNL carries each function's last line, as gcov's JSON gives it.
(cd b && gcov --json-format --stdout httpreq.gcda 2>/dev/null) >gj.json &&
  python3 - gj.json f0.info <<'PY' && pass "FNL end lines = gcov's" || fail "FNL end lines = gcov's"
import json, sys
want = {f["name"]: (f["start_line"], f["end_line"]) for d in map(json.loads, open(sys.argv[1]))
        for u in d["files"] if u["file"].endswith("httpreq.c") for f in u["functions"]}
fnl, got, cur = {}, {}, None
for l in open(sys.argv[2]):
    l = l.strip()
    if l.startswith("SF:"):
        cur = l[3:]
    elif l.startswith("FNL:") and cur.endswith("httpreq.c"):
        i, a, b = l[4:].split(",")
        fnl[i] = (int(a), int(b))
    elif l.startswith("FNA:") and cur.endswith("httpreq.c"):
        i, _, n = l[4:].split(",", 2)
        got[n] = fnl[i]
assert want and got == want, (sorted(set(got.items()) ^ set(want.items())))
PY
if command -v lcov >/dev/null; then
  lcov --rc lcov_branch_coverage=1 --summary r.info >sum.txt 2>&1 &&
    grep -q 'lines\.\.\.\.\.\.: [0-9.]*% ([0-9]* of [0-9]* lines)' sum.txt && pass "lcov --summary reads the tracefile" ||
    fail "lcov --summary reads the tracefile: $(cat sum.txt)"
  genhtml -q --branch-coverage -o html r.info >gen.txt 2>&1 && [ -s html/index.html ] && pass "genhtml reads the tracefile" ||
    fail "genhtml reads the tracefile: $(head -3 gen.txt)"
else
  echo "skip lcov/genhtml: not installed"
fi
xmllint --nonet --noout --dtdvalid "$SRC/tests/data/coverage-04.dtd" r.xml 2>xml.txt && pass "Cobertura validates against coverage-04.dtd" ||
  fail "Cobertura validates against coverage-04.dtd: $(grep -v 'network\|external entity\|DOCTYPE\|\^' xml.txt | head -3)"
if command -v gcovr >/dev/null; then
  # gcovr's and ucov's line counts, file by file, line by line.
  (cd b && gcovr -r "$SRC" --json -o ../gcovr.json . >/dev/null 2>&1)
  python3 - "$SRC" gcovr.json r.json >cmp.txt <<'PY'
import json, os, sys
src, g, u = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
gl = {(os.path.join(src, f["file"]), l["line_number"], l["count"]) for f in g["files"]
      for l in f["lines"] if not l.get("gcovr/noncode")}
ul = {(f["path"], l[0], l[1]) for f in u["files"] for l in f["lines"]}
print("same" if gl == ul and gl else f"gcovr-only {sorted(gl - ul)[:5]} ucov-only {sorted(ul - gl)[:5]}")
PY
  grep -q '^same$' cmp.txt && pass "gcovr and ucov line counts" || fail "gcovr and ucov line counts: $(cat cmp.txt)"
  # The gates decide as gcovr's: just above its line percentage both fail
  # (gcovr exits 2, ucov 4), just below both pass; ucov's kinds OR their bits.
  (cd b && gcovr -r "$SRC" --json-summary ../gs.json . >/dev/null 2>&1)
  lp=$(python3 -c "import json; print(json.load(open('gs.json'))['line_percent'])")
  above=$(python3 -c "print(round($lp + 0.1, 2))") below=$(python3 -c "print(round($lp - 0.1, 2))")
  "$UCOV" report -q b --fail-under-line "$above" 2>gate.err
  st=$?
  (cd b && gcovr -r "$SRC" --fail-under-line "$above" . >/dev/null 2>&1)
  gst=$?
  "$UCOV" report -q b --fail-under-line "$below" && (cd b && gcovr -r "$SRC" --fail-under-line "$below" . \
    >/dev/null 2>&1) && [ $st = 4 ] && [ $gst = 2 ] && grep -q 'below --fail-under-line' gate.err && pass "line gate at gcovr's $lp%: ucov $st, gcovr $gst" ||
    fail "line gate at gcovr's $lp%: ucov $st, gcovr $gst"
  "$UCOV" report -q b --fail-under-line 100 --fail-under-function 100 --fail-under-branch 100 2>/dev/null
  [ $? = 28 ] && pass "three gates missed: not 4|8|16" || fail "three gates missed: not 4|8|16"
else
  echo "skip gcovr: not installed"
fi
# --summary: lcov's own summary of the same tracefile, on stderr.
if command -v lcov >/dev/null; then
  "$UCOV" report -q b --lcov sum.info
  cmp -s <("$UCOV" report -q b --summary 2>&1) \
    <(lcov --summary sum.info --rc lcov_branch_coverage=1 2>&1 | sed -n '/Summary coverage rate/,$p') &&
    pass "--summary is not lcov's" || fail "--summary is not lcov's: $("$UCOV" report -q b --summary 2>&1 | head -3)"
fi
"$UCOV" report -q b --fail-under-line 101 2>/dev/null
[ $? = 2 ] && pass "--fail-under-line 101: usage" || fail "--fail-under-line 101: usage"

# The HTML report: self-contained; in headless Chromium the summary lists the
# files and a file's page shows the lcov count of a known line.
"$UCOV" report b --html r.html --title 'demo <report>' && pass "--html" || fail "--html"
! grep -qE '(src|href)="(https?:)?//' r.html && grep -q '<title>demo &lt;report></title>' r.html &&
  pass "the HTML page loads nothing from elsewhere; the title is escaped" || fail "the HTML page loads nothing from elsewhere; the title is escaped"
BROWSER=$(command -v chromium || command -v chromium-browser || true)
# (headless, tests/lib.sh: a profile of its own in the test's directory each
# time, nothing in the background; the browser runs as root and writes
# nowhere but there)
if [ -n "$BROWSER" ]; then
  headless --dump-dom "file://$WORK/r.html" >dom.html
  [ "$(grep -o '<tr data-path="/[^"]*"' dom.html | wc -l)" = 3 ] &&
    grep -q "<tr data-path=\"$SRC/examples/demo/httpreq.c\"" dom.html && pass "the summary renders in Chromium" ||
    fail "the summary renders in Chromium"
  idx=$(grep -o '<tr data-path="[^"]*"' dom.html | grep -n 'httpreq.c' | cut -d: -f1)
  line=$(awk -F'[:,]' -v f="SF:$SRC/examples/demo/httpreq.c" '$0==f{p=1} p&&/^FN:.*,http_parse$/{print $2; exit}' r.info)
  want=$(awk -F'[:,]' -v f="SF:$SRC/examples/demo/httpreq.c" -v l="$line" '$0==f{p=1} p&&$1=="DA"&&$2==l{print $3; exit}' r.info)
  headless --dump-dom "file://$WORK/r.html#f=$((idx - 1))" >file.html
  grep -q "<tr id=\"L$line\" class=\"hit\"><td class=\"ln\">$line</td><td class=\"cnt\">$want</td>" file.html &&
    [ -n "$want" ] && pass "a file page shows line $line's count ($want) in the DOM" || fail "a file page shows line $line's count ($want) in the DOM"
  headless --screenshot="$WORK/report-summary.png" "file://$WORK/r.html"
  headless --screenshot="$WORK/report-file.png" "file://$WORK/r.html#f=$((idx - 1))"
  [ -s report-summary.png ] && [ -s report-file.png ] && pass "screenshots saved" || fail "screenshots saved"
  # 10,000 files: one report; the summary says them all and renders the rows
  # on screen (and a margin), sorts by a column, finds files by words of
  # their paths, and scrolls to the last.
  python3 - >big.info <<'PY'
for i in range(10000):
    print(f"TN:\nSF:/big/dir{i % 100}/file{i}.c\nFN:1,f{i}\nFNDA:{i % 3},f{i}")
    print(f"DA:1,{i % 3}\nDA:2,{i % 2}\nDA:3,0\nend_of_record")
PY
  "$UCOV" report -q big.info --html big.html || fail "an HTML report of 10,000 files"
  cat >bigrun.html <<'H'
<!DOCTYPE html><html><body><iframe id="f" src="big.html" width="1000" height="700"></iframe>
<script>
document.getElementById('f').onload = () => {
  const w = document.getElementById('f').contentWindow, d = w.document, out = [];
  const paths = () => [...d.querySelectorAll('tr[data-path]')].map(r => r.dataset.path);
  const see = what => { const p = paths(); out.push(what + ' ' + d.getElementById('count').textContent + ' ' + p.length + ' ' + p[0] + ' ' + p[p.length - 1]); };
  see('load');
  d.querySelector('th[data-k="l"]').click(); see('lines-up');
  d.querySelector('th[data-k="l"]').click(); see('lines-down');
  w.scrollTo(0, d.body.scrollHeight); w.dispatchEvent(new w.Event('scroll')); see('bottom');
  const i = d.getElementById('filter'); i.value = 'DIR7 file777'; i.dispatchEvent(new w.Event('input'));
  out.push('found ' + paths().sort().join(','));
  const p = document.createElement('pre'); p.id = 'res'; p.textContent = out.join('\n'); document.body.appendChild(p);
};
</script></body></html>
H
  headless --allow-file-access-from-files --dump-dom "file://$WORK/bigrun.html" | sed -n '/<pre id="res">/,/<\/pre>/p' >bigrun.txt
  want=$(python3 -c 'print(",".join(sorted(f"/big/dir{i % 100}/file{i}.c" for i in range(10000) if f"dir{i % 100}".find("dir7") >= 0 and f"file{i}".find("file777") >= 0)))')
  python3 - bigrun.txt "$want" <<'PY' && pass "10,000 files: the summary says them all, renders a screen, sorts, scrolls, finds" ||
import re, sys
t = open(sys.argv[1]).read().replace('<pre id="res">', "").split("</pre>")[0].strip().split("\n")
r = {l.split(" ", 1)[0]: l.split(" ") for l in t}
n = lambda k: int(r[k][3])
assert r["load"][1:3] == ["10000", "files"] and 0 < n("load") < 2000, r["load"]
# by line coverage: 0 of 3 first (file0, the first path of them), 2 of 3 first
assert r["lines-up"][4] == "/big/dir0/file0.c" and r["lines-down"][4] == "/big/dir1/file1.c", (r["lines-up"], r["lines-down"])
# the last of the order rendered at the bottom: of the files with 0 of 3
# lines (ties in path order), the last path
last = sorted(f"/big/dir{i % 100}/file{i}.c" for i in range(0, 10000, 6))[-1]
assert r["bottom"][5] == last, (r["bottom"], last)
assert r["found"][1] == sys.argv[2], (r["found"][1][:200], sys.argv[2][:200])
PY
    fail "10,000 files: $(cat bigrun.txt)"
else
  echo "skip Chromium checks: chromium not installed"
fi

# Text summary; path rules.
"$UCOV" report b >summary.txt && grep -qP '^lines: +\d+\.\d+% \(\d+ of \d+\)' summary.txt &&
  grep -q '^3 files' summary.txt && pass "summary" || fail "summary: $(cat summary.txt)"
"$UCOV" report b --exclude '*.h' --prefix-map "$SRC=/src" --lcov p.info &&
  grep -q '^SF:/src/examples/demo/httpreq.c$' p.info && ! grep -q '^SF:.*\.h$' p.info && pass "--prefix-map and --exclude" ||
  fail "--prefix-map and --exclude"
"$UCOV" report b --include '*/gcov_main.c' --lcov i.info && [ "$(grep -c '^SF:' i.info)" = 1 ] &&
  pass "--include" || fail "--include"

# Merging: lcov and JSON shards of three runs add up in any order.
for r in 1 2 3; do
  rm -f b/*.gcda
  args=("$R1")
  [ $r = 2 ] && args+=("$R2")
  (cd b && ./prog "${args[@]}" >/dev/null)
  "$UCOV" report -q b --lcov s$r.info --json s$r.json
done
"$UCOV" merge -q s1.info s2.info -o s12.info && "$UCOV" merge -q s12.info s3.info -o a.info &&
  "$UCOV" merge -q s2.info s3.info -o s23.info && "$UCOV" merge -q s1.info s23.info -o b.info &&
  "$UCOV" merge -q s3.info s1.info s2.info -o c.info && cmp -s a.info b.info && cmp -s a.info c.info &&
  grep -q '^FNDA:4,http_parse$' a.info && pass "lcov merges are associative and commutative" || fail "lcov merges are associative and commutative"
"$UCOV" merge -q s1.json s2.json -o j12.json && "$UCOV" merge -q j12.json s3.json -o ja.json &&
  "$UCOV" merge -q s3.json s2.json s1.json -o jb.json && cmp -s ja.json jb.json &&
  "$UCOV" merge -q ja.json -o ja.info && cmp -s ja.info a.info && pass "JSON merges: associative, commutative, the same counts as lcov" ||
  fail "JSON merges: associative, commutative, the same counts as lcov"
"$UCOV" merge -q s1.info s2.json b -o mixed.info && grep -q '^FNDA:4,http_parse$' mixed.info && pass "inputs of different kinds mix" ||
  fail "inputs of different kinds mix"

# Differential coverage: a baseline of more runs than the current one loses
# lines (LBC); the other way round they are gained (GBC).
"$UCOV" report s2.json --baseline s1.json --json d.json >d.txt &&
  "$UCOV" report s2.json --baseline s1.json >dsum.txt && grep -qP 'GBC [1-9]' dsum.txt &&
  grep -qP 'LBC 0 ' dsum.txt && grep -q '"GBC": \[' d.json && pass "--baseline: lines newly covered are GBC" ||
  fail "--baseline: lines newly covered are GBC: $(cat dsum.txt)"
"$UCOV" report s1.json --baseline s2.json >dsum2.txt && grep -qP 'LBC [1-9]' dsum2.txt &&
  grep -qP 'GBC 0 ' dsum2.txt && pass "--baseline: lines no longer covered are LBC" || fail "--baseline: lines no longer covered are LBC"
"$UCOV" report s1.json --baseline s2.json --html d.html && grep -q '"diff": true' d.html &&
  grep -q '"LBC"' d.html && pass "--baseline: categories in the HTML page" || fail "--baseline: categories in the HTML page"

# A pulled tree of a running daemon (.gcda with .gcno links).
CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" -O0 "$SRC/examples/daemon/kvd.c" -o kvd
gcc -O1 "$SRC/examples/daemon/kvd.c" -o client
export UCOV_RUNTIME_DIR=$WORK/rt
./kvd kvd.sock &
pid=$!
for _ in $(seq 200); do [ -S kvd.sock ] && [ -S "rt/$pid.sock" ] && break; sleep 0.02; done
./client --client kvd.sock "SET a 1" "GET a" "DEL a" >/dev/null
"$UCOV" pull -q --pid $pid -o pulled 2>/dev/null || "$UCOV" pull --pid $pid -o pulled >/dev/null 2>&1
kill $pid
wait $pid 2>/dev/null
"$UCOV" report pulled --lcov k.info 2>k.err && grep -q "^SF:$SRC/examples/daemon/kvd.c$" k.info &&
  grep -q '^FNDA:1,cmd_del$' k.info && pass "a pulled tree" || fail "a pulled tree: $(head -3 k.err)"

# LLVM profiles: llvm-cov's own figures for the same raw profile.
if command -v clang >/dev/null && command -v llvm-cov >/dev/null; then
  mkdir -p l && cd l || exit 1
  clang -fprofile-instr-generate -fcoverage-mapping -O0 -I"$D" "$D/httpreq.c" \
    "$SRC/tests/integration/gcov_main.c" -o lprog
  LLVM_PROFILE_FILE=l.profraw ./lprog "$R1" >/dev/null
  "$UCOV" report l.profraw --binary ./lprog --json l.json && pass "report of a .profraw" || fail "report of a .profraw"
  llvm-profdata merge -o l.profdata l.profraw
  # Line by line as `llvm-cov show` prints them (its `report` totals leave out
  # lines that only a macro expansion covers, which show and export list).
  llvm-cov show ./lprog -instr-profile=l.profdata -show-expansions=false >show.txt
  python3 - show.txt l.json >lcmp.txt <<'PY'
import json, re, sys
show, cur = set(), None
for line in open(sys.argv[1]):
    m = re.match(r"^(/\S+):$", line.rstrip())
    if m:
        cur = m.group(1)
        continue
    m = re.match(r"^\s*(\d+)\|\s*([0-9.]+[kMGTPE]?)\|", line)
    if m and cur:
        c = m.group(2)
        show.add((cur, int(m.group(1)), int(c) if c.isdigit() else c))
u = json.load(open(sys.argv[2]))
mine = {(f["path"], l[0], l[1]) for f in u["files"] for l in f["lines"]}
# counts llvm-cov abbreviates (1.2k) are compared by line only
exact = {x for x in show if isinstance(x[2], int)}
approx = {(x[0], x[1]) for x in show if not isinstance(x[2], int)}
mine_exact = {x for x in mine if (x[0], x[1]) not in approx}
ok = exact == mine_exact and approx <= {(x[0], x[1]) for x in mine} and exact
print("same" if ok else f"show-only {sorted(exact - mine_exact)[:4]} ucov-only {sorted(mine_exact - exact)[:4]}")
PY
  grep -q '^same$' lcmp.txt && pass "llvm-cov show and ucov lines" || fail "llvm-cov show and ucov lines: $(cat lcmp.txt)"
  "$UCOV" report l.profraw >/dev/null 2>nobin.txt
  [ $? = 1 ] && grep -q 'needs --binary' nobin.txt && pass "a .profraw without --binary" || fail "a .profraw without --binary"
  cd .. || exit 1
else
  echo "skip LLVM profiles: clang or llvm-cov missing"
fi

# Traces: the PCs of one parse (trace_one prints them, with its module map)
# hit the parser functions gcov sees called for the same request; the lines hit
# are the lines (addr2line's) of the call sites hit, and every call site's
# line is a line with code, hit or not. (A function's count is its first
# block's hits: exact unless that block is a loop head, as parse_headers' is,
# so hit-or-not is what is compared with gcov. Lines follow DWARF, not gcov's
# notes: a shared return block takes the line of the code before it.)
mkdir -p t && cd t || exit 1
CC=gcc "$UCOV" cc --trace -g -O0 -I"$D" "${SANFLAGS[@]}" "$D/trace_one.c" "$D/httpreq.c" -o trace_one
./trace_one --modules mods.txt "$R1" >pcs.txt 2>/dev/null
"$UCOV" report pcs.txt --modules mods.txt --lcov trace.info 2>terr.txt && pass "report of a PC dump" ||
  fail "report of a PC dump: $(head -3 terr.txt)"
mkdir -p g && (cd g && gcc --coverage -O0 -I"$D" "$D/httpreq.c" "$SRC/tests/integration/gcov_main.c" \
  -o g && ./g "$R1" >/dev/null)
"$UCOV" report g --lcov gcov.info
fnda() { awk -F'[:,]' -v f="SF:$D/httpreq.c" '$0==f{p=1} /^end_of_record/{p=0}
  p&&/^FNDA:/&&$3!="http_strerror"{print $3, ($2>0)}' "$1"; }
[ -n "$(fnda trace.info)" ] && cmp -s <(fnda trace.info) <(fnda gcov.info) &&
  grep -q '^FNDA:19,at_end$' trace.info && grep -q '^FNDA:19,at_end$' gcov.info && pass "trace functions hit are gcov's" ||
  fail "trace functions hit are gcov's: $(diff <(fnda trace.info) <(fnda gcov.info) | head -4)"
# Lines hit: addr2line's lines of the call sites the PCs return to (pc - bias - 5).
bias=$(awk '$5 == "r-x" && $7 ~ /trace_one$/ {print $4; exit}' mods.txt)
while read -r pc; do printf '0x%x\n' $((pc - bias - 5)); done <pcs.txt | sort -u >hit-sites.txt
xargs addr2line -e trace_one <hit-sites.txt | sed 's/ (discriminator [0-9]*)//' | sort -u >hit-a2l.txt
awk -F'[:,]' '/^SF:/{f=$2} /^DA:/&&$3>0{print f ":" $2}' trace.info | sort -u >hit-da.txt
[ -s hit-da.txt ] && cmp -s hit-a2l.txt hit-da.txt && pass "trace lines hit are addr2line's lines of the sites hit" ||
  fail "trace lines hit are addr2line's lines of the sites hit: $(diff hit-a2l.txt hit-da.txt | head -3)"
"$UCOV" symbolize --call-sites --binary trace_one >sites.txt
"$UCOV" symbolize --addr2line --binary trace_one sites.txt | awk 'NR%2==0' | grep -v ':?$' |
  sort -u >site-lines.txt
awk -F'[:,]' '/^SF:/{f=$2} /^DA:/{print f ":" $2}' trace.info | sort -u >da-lines.txt
cmp -s site-lines.txt da-lines.txt && pass "every call site line is a DA line" ||
  fail "every call site line is a DA line: $(diff site-lines.txt da-lines.txt | head -4)"
# Without the module map, a PIE's PCs fit nowhere: said so, status 1.
"$UCOV" report pcs.txt --binary trace_one >/dev/null 2>nomap.txt
[ $? = 1 ] && grep -q 'need --modules\|PIE or shared objects need --modules' nomap.txt && pass "PIE PCs without a module map" ||
  fail "PIE PCs without a module map: $(cat nomap.txt)"
# A KCOV buffer dump (count word, PCs, stale words after them) reads the same.
python3 - pcs.txt buf.kcov <<'PY'
import struct, sys
pcs = [int(l, 16) for l in open(sys.argv[1]) if l.strip()]
open(sys.argv[2], "wb").write(struct.pack(f"<{len(pcs) + 4}Q", len(pcs), *pcs, 1, 2, 3))
PY
"$UCOV" report buf.kcov --modules mods.txt --lcov kcov.info && cmp -s kcov.info trace.info && pass "a .kcov buffer dump reads as the same PCs as text" ||
  fail "a .kcov buffer dump reads as the same PCs as text"
# A running process's trace buffers are objects too (kcov/<id>.kcov): pulled
# with the module map, they make a report; a reset empties one.
CC=gcc "$UCOV" cc --trace -g -O0 -I"$D" "${SANFLAGS[@]}" "$SRC/tests/integration/trace_hold.c" \
  "$D/httpreq.c" -o hold
coproc H { UCOV_RUNTIME_DIR=$WORK/rt exec ./hold $'GET / HTTP/1.1\r\nHost: a\r\n\r\n'; }
hpid=$H_PID
read -r -t 20 ready <&"${H[0]}"
for _ in $(seq 100); do [ -S "$WORK/rt/$hpid.sock" ] && break; sleep 0.02; done
UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" ls --pid "$hpid" >hls.txt
UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" pull --pid "$hpid" -o P1 >/dev/null 2>&1
UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" reset --pid "$hpid" kcov/1.kcov
UCOV_RUNTIME_DIR=$WORK/rt "$UCOV" pull --pid "$hpid" -o P2 >/dev/null 2>&1
echo q >&"${H[1]}"
wait "$hpid"
n=$(echo "$ready" | awk '{print $3}')
grep -qP "^$((8 * (n + 1)))\tkcov/1.kcov$" hls.txt && [ "$n" -gt 10 ] && pass "ucov ls shows the trace buffer kcov/1.kcov ($ready)" ||
  fail "ucov ls shows the trace buffer kcov/1.kcov ($ready): $(cat hls.txt)"
"$UCOV" report P1 --lcov p1.info 2>p1.err && grep -q '^FNDA:1,http_parse$' p1.info &&
  grep -q '^FNDA:0,http_strerror$' p1.info && pass "report of a pulled trace" || fail "report of a pulled trace: $(head -2 p1.err)"
[ "$(stat -c %s P2/kcov/1.kcov)" = 8 ] && "$UCOV" report P2 --lcov p2.info 2>/dev/null &&
  grep -q '^FNDA:0,http_parse$' p2.info && pass "a reset trace buffer reads empty" || fail "a reset trace buffer reads empty"

# Garbage lines among the PCs: named, the rest read; a binary without debug info: said so.
{ echo 'zzz not a pc'; cat pcs.txt; } >mixed.pcs
"$UCOV" report mixed.pcs --modules mods.txt --lcov mixed.info 2>mixed.txt
[ $? = 1 ] && grep -q 'mixed.pcs:1: not a hexadecimal PC' mixed.txt && cmp -s mixed.info trace.info &&
  pass "garbage PCs" || fail "garbage PCs: $(head -2 mixed.txt)"
CC=gcc "$UCOV" cc --trace -O0 -I"$D" "${SANFLAGS[@]}" "$D/trace_one.c" "$D/httpreq.c" -o nodebug
./nodebug --modules nd-mods.txt "$R1" >nd.pcs 2>/dev/null
"$UCOV" report nd.pcs --modules nd-mods.txt >/dev/null 2>nd.txt
grep -q 'have no line information (build with -g)\|no DWARF debug info (build with -g)' nd.txt && pass "no debug info is said" ||
  fail "no debug info: $(head -2 nd.txt)"
cd .. || exit 1

# lcov 2.x tracefiles (tests/data/lcov2.info: TN, VER, FNL/FNA with aliases,
# an exception branch, MCDC; functions and a line's blocks in lcov 2's order,
# their numbers compared as text): read whole, and written back byte for
# byte by `ucov merge --lcov-format 2 --no-demangle` (the compiler's names,
# each constructor variant an alias), directly and through ucov JSON.
L2=$SRC/tests/data/lcov2.info
"$UCOV" merge --no-demangle "$L2" -o l2.info --lcov-format 2 2>l2.err && cmp -s "$L2" l2.info && [ ! -s l2.err ] &&
  pass "lcov 2 round trip" || fail "lcov 2 round trip: $(diff "$L2" l2.info | head -5; head -2 l2.err)"
"$UCOV" merge --no-demangle "$L2" -o l2.json && "$UCOV" merge --no-demangle l2.json -o l2j.info --lcov-format 2 &&
  cmp -s "$L2" l2j.info && pass "lcov 2 through ucov JSON" || fail "lcov 2 through ucov JSON: $(diff "$L2" l2j.info | head -5)"
# Demangled (the default), A's two constructor variants are one function.
"$UCOV" report --no-demangle "$L2" >l2raw.sum && grep -q '^functions: *75.00% (3 of 4)' l2raw.sum &&
  "$UCOV" merge "$L2" -o - --lcov-format 2 | grep -q '^FNA:0,2,A::A()$' &&
  pass "lcov 2: --no-demangle keeps the variants, the default merges them" ||
  fail "lcov 2 variants: $(cat l2raw.sum)"
"$UCOV" report "$L2" >l2.sum && grep -q '^functions: *100.00% (3 of 3)' l2.sum &&
  grep -q '^MC/DC: *75.00% (3 of 4)' l2.sum && pass "lcov 2 summary" || fail "lcov 2 summary: $(cat l2.sum)"
"$UCOV" merge "$L2" -o l2v1.info && grep -q '^TN:unit_tests$' l2v1.info &&
  grep -q '^FNDA:2,A::A()$' l2v1.info && grep -q '^BRDA:5,0,2,0$' l2v1.info &&
  ! grep -q '^MCDC\|^FNL' l2v1.info && pass "lcov 2 into lcov 1 records" || fail "lcov 2 into lcov 1 records"
# Summed twice: every count doubles, MC/DC's too.
cp "$L2" l2copy.info && "$UCOV" merge "$L2" l2copy.info -o l2x2.info --lcov-format 2 && grep -q '^MCDC:7,2,t,2,1,b, c$' l2x2.info &&
  grep -q '^FNA:1,1002,add$' l2x2.info && pass "lcov 2 records summed" || fail "lcov 2 records summed"
# Records of one file under two test names: summed, and said.
sed 's/^TN:unit_tests$/TN:other/' "$L2" >l2b.info
"$UCOV" merge "$L2" l2b.info -o l2m.info 2>l2m.err && grep -q 'several test names' l2m.err &&
  pass "two test names" || fail "two test names: $(cat l2m.err)"
"$UCOV" merge "$L2" -o bad.info --lcov-format 3 2>/dev/null
[ $? = 2 ] && pass "--lcov-format 3: usage" || fail "--lcov-format 3: usage"

# Corrupt inputs: a message, the rest of the report, exit status 1.
cp -r b bad
head -c 20 bad/httpreq.gcda >cut.tmp && mv cut.tmp bad/httpreq.gcda
printf 'SF:/x.c\nDA:1,1\nDA:oops\nend_of_record\n' >bad.info
"$UCOV" report bad bad.info --lcov part.info 2>bad.txt
st=$?
[ $st = 1 ] && grep -q 'bad.info:3: not an lcov record' bad.txt &&
  grep -q "^SF:$SRC/tests/integration/gcov_main.c$" part.info && grep -q '^SF:/x.c$' part.info &&
  pass "corrupt inputs: status $st" || fail "corrupt inputs: status $st, $(head -4 bad.txt)"
printf 'garbage' >junk.bin
"$UCOV" report junk.bin >/dev/null 2>junk.txt
[ $? = 1 ] && grep -q 'not a .gcda, LLVM profile' junk.txt && pass "an unknown input" || fail "an unknown input"
printf '{"format": "ucov-coverage", "version": 1, "files": [{"path": "/a.c", "lines": [[1]]}]}' >bad.json
"$UCOV" report bad.json >/dev/null 2>bj.txt
[ $? = 1 ] && grep -q 'not \[line, count\]' bj.txt && pass "bad ucov JSON" || fail "bad ucov JSON: $(cat bj.txt)"
"$UCOV" report 2>/dev/null
[ $? = 2 ] && pass "no input: usage, status 2" || fail "no input: usage, status 2"
# gate_digits: a gate compares the exact value and says it with the digits
# that show why: 3 of 7 lines is 42.857%, below 42.86 (not "42.86% is below
# 42.86"); 42.85 passes.
printf 'TN:\nSF:/g/x.c\nDA:1,1\nDA:2,1\nDA:3,1\nDA:4,0\nDA:5,0\nDA:6,0\nDA:7,0\nend_of_record\n' >g.info
"$UCOV" report -q g.info --fail-under-line 42.86 2>g.err
st=$?
[ $st = 4 ] && grep -q 'lines coverage 42.857% (3 of 7) is below --fail-under-line 42.86' g.err &&
  "$UCOV" report -q g.info --fail-under-line 42.85 && pass "gate_digits: (status $st" ||
  fail "gate_digits: (status $st: $(cat g.err))"
finish report
