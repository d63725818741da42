#!/usr/bin/env bash
# What CI services read: --root (relative paths, Cobertura's one <source>),
# relative --include/--exclude, Cobertura split per package, SonarQube
# (against its XSD and gcovr's output), JaCoCo (against its DTD), Coveralls
# (the documented job and source-file fields, the environment as the clients
# read it), gcovr's JSON summary (against gcovr), Markdown for a pull request.
# Usage: ciformats.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK/repo/src" "$WORK/repo/lib" "$WORK/build" && cd "$WORK" || exit 1
cat >repo/src/main.c <<'C'
int twice(int);
int clamp(int v, int lo, int hi);
int main(int argc, char **argv) {
  (void)argv;
  int r = twice(argc);
  if (r > 100)
    r = 0;
  return clamp(r, 0, 1) - 1;
}
C
cat >repo/lib/util.c <<'C'
int twice(int x) { return 2 * x; }

int clamp(int v, int lo, int hi) {
  if (v < lo)
    return lo;
  if (v > hi)
    return hi;
  return v;
}

int unused(int x) {
  return x + 1;
}
C
(cd build && gcc --coverage -O0 -c ../repo/src/main.c ../repo/lib/util.c &&
  gcc --coverage main.o util.o -o prog && ./prog)
D=$SRC/tests/data

# --root: relative paths in every output, Cobertura's <source> is the root.
"$UCOV" report build --root repo --cobertura c.xml --lcov r.info --json-summary s.json \
  --sonarqube sq.xml --jacoco j.xml --json u.json 2>err.txt && [ ! -s err.txt ] && pass "report --root" ||
  fail "report --root: $(head -3 err.txt)"
grep -q "<source>$WORK/repo</source>" c.xml && grep -q 'filename="src/main.c"' c.xml &&
  grep -q 'filename="lib/util.c"' c.xml && [ "$(grep -c '<source>' c.xml)" = 1 ] && pass "Cobertura: one <source>, relative filenames" ||
  fail "Cobertura: one <source>, relative filenames: $(grep -E 'source>|filename=' c.xml | head -4)"
grep -q '^SF:src/main.c$' r.info && grep -q '^SF:lib/util.c$' r.info &&
  grep -q '"path": "lib/util.c"' u.json && pass "lcov and JSON paths relative to --root" || fail "lcov and JSON paths relative to --root"
if command -v xmllint >/dev/null; then
  xmllint --noout --dtdvalid "$D/coverage-04.dtd" c.xml 2>x.err && pass "Cobertura valid" ||
    fail "Cobertura valid: $(head -3 x.err)"
  xmllint --noout --schema "$D/sonar-generic-coverage.xsd" sq.xml 2>x.err && pass "SonarQube valid against its XSD" ||
    fail "SonarQube valid against its XSD: $(head -3 x.err)"
  xmllint --noout --dtdvalid "$D/jacoco-report.dtd" j.xml 2>x.err && pass "JaCoCo valid against its DTD" ||
    fail "JaCoCo valid against its DTD: $(grep -v 'external entity\|DOCTYPE\|\^' x.err | head -3)"
else
  echo "skip xmllint: not installed"
fi
if command -v gcovr >/dev/null; then
  # gcovr with the same root: the same Cobertura files and lines, the same
  # SonarQube lines and branches, the same JSON summary.
  (cd build && gcovr -r ../repo -b . --xml ../gc.xml --sonarqube ../gsq.xml \
    --json-summary ../gs.json >/dev/null 2>&1)
  python3 - c.xml gc.xml sq.xml gsq.xml s.json gs.json <<'PY' && pass "ucov against gcovr" || fail "ucov against gcovr"
import json, sys
import xml.etree.ElementTree as ET
def cob(p):
    return {(c.get("filename"), l.get("number"), l.get("hits"), l.get("condition-coverage"))
            for c in ET.parse(p).iter("class") for l in c.find("lines")}
def sq(p):
    return {(f.get("path"),) + tuple(sorted(l.attrib.items()))
            for f in ET.parse(p).iter("file") for l in f}
assert cob(sys.argv[1]) == cob(sys.argv[2]), cob(sys.argv[1]) ^ cob(sys.argv[2])
assert sq(sys.argv[3]) == sq(sys.argv[4]), sq(sys.argv[3]) ^ sq(sys.argv[4])
u, g = json.load(open(sys.argv[5])), json.load(open(sys.argv[6]))
keys = [k for k in g if k.endswith(("_total", "_covered", "_percent"))]
assert [u[k] for k in keys] == [g[k] for k in keys], keys
uf = {f["filename"]: [f[k] for k in keys] for f in u["files"]}
gf = {f["filename"]: [f[k] for k in keys] for f in g["files"]}
assert uf == gf, (uf, gf)
PY
else
  echo "skip gcovr: not installed"
fi

# JaCoCo: each sourcefile's lines are the lcov lines, its package the directory.
python3 - j.xml r.info <<'PY' && pass "JaCoCo lines and counters" || fail "JaCoCo lines and counters"
import sys
import xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
got = {}
for p in r.iter("package"):
    for s in p.findall("sourcefile"):
        path = (p.get("name") + "/" if p.get("name") else "") + s.get("name")
        got[path] = {(int(l.get("nr")), int(l.get("ci")) > 0) for l in s.findall("line")}
        c = {x.get("type"): (int(x.get("missed")), int(x.get("covered"))) for x in s.findall("counter")}
        assert c["LINE"] == (sum(1 for l in got[path] if not l[1]), sum(1 for l in got[path] if l[1]))
want, cur = {}, None
for line in open(sys.argv[2]):
    if line.startswith("SF:"):
        cur = want.setdefault(line[3:].strip(), set())
    elif line.startswith("DA:"):
        n, h = line[3:].split(",")[:2]
        cur.add((int(n), int(h) > 0))
assert got == want, (got, want)
tot = {x.get("type"): x for x in r.findall("counter")}
assert int(tot["METHOD"].get("missed")) == 1 and int(tot["METHOD"].get("covered")) == 3
PY

# Cobertura split: a valid document per package, together the whole report.
"$UCOV" report build --root repo --cobertura-split split && ls split/coverage-*.xml >split.txt &&
  [ "$(wc -l <split.txt)" = 2 ] && pass "two packages, two documents" || fail "two packages, two documents: $(cat split.txt)"
if command -v xmllint >/dev/null; then
  for f in split/coverage-*.xml; do
    xmllint --noout --dtdvalid "$D/coverage-04.dtd" "$f" 2>/dev/null || fail "$f is not valid"
  done
  pass "the split files are checked against Cobertura's DTD"
fi
python3 - c.xml split/coverage-1.xml split/coverage-2.xml <<'PY' && pass "split = whole" || fail "split = whole"
import sys
import xml.etree.ElementTree as ET
lines = lambda p: {(c.get("filename"), l.get("number"), l.get("hits"))
                   for c in ET.parse(p).iter("class") for l in c.find("lines")}
assert lines(sys.argv[1]) == lines(sys.argv[2]) | lines(sys.argv[3])
assert not lines(sys.argv[2]) & lines(sys.argv[3])
PY

# Coveralls: the job from the environment, documented source-file fields.
env -i PATH="$PATH" COVERALLS_REPO_TOKEN=tok123 COVERALLS_SERVICE_NAME=my-ci \
  COVERALLS_SERVICE_JOB_ID=77 COVERALLS_FLAG_NAME=unit COVERALLS_PARALLEL=true \
  "$UCOV" report build --root repo --coveralls cv.json
python3 - cv.json r.info repo <<'PY' && pass "Coveralls JSON" || fail "Coveralls JSON"
import hashlib, json, os, sys
d = json.load(open(sys.argv[1]))
assert d["repo_token"] == "tok123" and d["service_name"] == "my-ci", d
assert d["service_job_id"] == "77" and d["flag_name"] == "unit" and d["parallel"] is True
assert "run_at" in d
da, br, cur = {}, {}, None
for line in open(sys.argv[2]):
    if line.startswith("SF:"):
        cur = line[3:].strip(); da[cur] = {}; br[cur] = []
    elif line.startswith("DA:"):
        n, h = line[3:].split(",")[:2]; da[cur][int(n)] = int(h)
    elif line.startswith("BRDA:"):
        l, b, k, t = line[5:].strip().split(","); br[cur] += [int(l), int(b), int(k), 0 if t == "-" else int(t)]
assert {f["name"] for f in d["source_files"]} == set(da)
for f in d["source_files"]:
    src = open(os.path.join(sys.argv[3], f["name"]), "rb").read()
    assert f["source_digest"] == hashlib.md5(src).hexdigest()
    assert len(f["coverage"]) == src.count(b"\n")
    assert {i + 1: c for i, c in enumerate(f["coverage"]) if c is not None} == da[f["name"]]
    assert f["branches"] == br[f["name"]]
PY
# GitHub Actions without COVERALLS_*: the service and job from GitHub's variables.
env -i PATH="$PATH" GITHUB_ACTIONS=true GITHUB_TOKEN=ghs_x GITHUB_RUN_ID=99 GITHUB_SHA=abc123 \
  GITHUB_REF=refs/pull/7/merge GITHUB_HEAD_REF=feature "$UCOV" report build --root repo \
  --coveralls gh.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["service_name"] == "github" and d["repo_token"] == "ghs_x", d
assert d["service_job_id"] == "99" and d["service_pull_request"] == "7", d
assert d["git"] == {"head": {"id": "abc123"}, "branch": "feature"}, d["git"]' gh.json && pass "Coveralls on GitHub Actions" ||
  fail "Coveralls on GitHub Actions: $(head -c 300 gh.json)"

# Outside CI, the git block from the checkout under --root, as gcovr fills it
# (head commit, author, committer, message, branch, fetch remotes).
if command -v git >/dev/null && command -v gcovr >/dev/null; then
  (cd repo && git init -q . && git checkout -q -b topic && git add -A &&
    git -c user.name='A. Author' -c user.email=a@example.invalid commit -qm 'the commit' &&
    git remote add origin https://example.invalid/x.git) || fail "the checkout"
  env -i PATH="$PATH" HOME="$WORK" "$UCOV" report build --root repo --coveralls co.json &&
    (cd build && env -i PATH="$PATH" HOME="$WORK" gcovr -r ../repo --coveralls ../gco.json . >/dev/null 2>&1)
  python3 -c 'import json,sys; a, b = (json.load(open(p)).get("git") for p in sys.argv[1:])
assert a and a == b and a["branch"] == "topic" and a["head"]["message"] == "the commit", (a, b)' co.json gco.json &&
    pass "Coveralls' git block outside CI" || fail "Coveralls' git block outside CI: $(head -c 400 co.json)"
  rm -rf repo/.git
fi
# A tracefile claiming a line far past its source's end: Coveralls gets the
# source's lines only (said), not four billion nulls.
printf 'int x;\nint y;\n' >short.c
printf 'SF:%s/short.c\nDA:1,1\nDA:4000000000,1\nBRDA:4000000000,0,0,1\nend_of_record\n' "$WORK" >huge.info
"$UCOV" report huge.info --coveralls huge.json 2>huge.err
[ "$(stat -c %s huge.json)" -lt 1000 ] && grep -q 'past its last line' huge.err &&
  python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["source_files"][0]
assert f["coverage"] == [1, None] and f["branches"] == [], f' huge.json && pass "Coveralls of a line past the source" ||
  fail "Coveralls of a line past the source: $(head -c 200 huge.json) $(cat huge.err)"

# Markdown: totals, the lowest-covered files; with a baseline, the changed files.
"$UCOV" report build --root repo --markdown md.txt && grep -q '^| Lines | ' md.txt &&
  grep -q '^| lib/util.c | ' md.txt && grep -q 'Lowest-covered files' md.txt && pass "Markdown" ||
  fail "Markdown: $(cat md.txt)"
# (the baseline: the same sources built, never run)
mkdir -p base && (cd base && gcc --coverage -O0 -c ../repo/src/main.c ../repo/lib/util.c)
"$UCOV" report build --baseline base --root repo --markdown md2.txt &&
  grep -q '^### Changed files' md2.txt && grep -q '^| lib/util.c | 0 | 0 | 5 | 0 | 0 | 4 | 0 | 0 |' md2.txt &&
  pass "Markdown with a baseline" || fail "Markdown with a baseline: $(cat md2.txt)"

# Relative --include/--exclude: relative to --root, or to the current directory.
"$UCOV" report build --root repo --include 'src/*' --lcov inc.info &&
  [ "$(grep -c '^SF:' inc.info)" = 1 ] && grep -q '^SF:src/main.c' inc.info && pass "--include relative to --root" ||
  fail "--include relative to --root: $(grep SF: inc.info)"
(cd repo && "$UCOV" report ../build --exclude 'lib/*' --lcov ../exc.info) &&
  [ "$(grep -c '^SF:' exc.info)" = 1 ] && grep -q "^SF:$WORK/repo/src/main.c" exc.info && pass "--exclude relative to the current directory" ||
  fail "--exclude relative to the current directory: $(grep SF: exc.info)"
# A file outside the root is left out (as gcovr -r does); a root that is
# not a directory is an error.
"$UCOV" report build --root repo/src --lcov out.info && [ "$(grep -c '^SF:' out.info)" = 1 ] &&
  grep -q '^SF:main.c$' out.info && pass "files outside --root left out" || fail "files outside --root left out: $(grep SF: out.info)"
for r in repo/nothing repo/src/main.c; do
  rm -f no.info
  "$UCOV" report build --root $r --lcov no.info 2>noroot.err
  [ $? = 2 ] && grep -q -- "--root $r: No such file\|--root $r: Not a directory" noroot.err &&
    [ ! -e no.info ] && pass "--root $r" || fail "--root $r: $(cat noroot.err)"
done
# Relative paths are made absolute (against --root, else the current
# directory) before anything is merged: a tracefile written with --root and
# one without hold the same two files, counted twice.
"$UCOV" report build --root repo --lcov rel.info && "$UCOV" report build --lcov abs.info &&
  grep -q '^SF:src/main.c$' rel.info && grep -q "^SF:$WORK/repo/src/main.c$" abs.info || fail "rel/abs"
"$UCOV" merge rel.info abs.info --root repo -o both.info &&
  [ "$(grep -c '^SF:' both.info)" = 2 ] && grep -q '^FNDA:2,main$' both.info && pass "--root: relative and absolute SF merged" ||
  fail "--root: relative and absolute SF merged: $(grep 'SF:\|FNDA:.*main' both.info)"
(cd repo && "$UCOV" merge ../rel.info ../abs.info -o ../both2.info) &&
  [ "$(grep -c '^SF:' both2.info)" = 2 ] && grep -q "^SF:$WORK/repo/src/main.c$" both2.info &&
  grep -q '^FNDA:2,main$' both2.info && pass "no --root: relative SF taken from here" ||
  fail "no --root: relative SF taken from here: $(grep 'SF:\|FNDA:.*main' both2.info)"
# --diff finds a relative SF's file: the diff that inserts util.c's lines.
printf 'diff --git a/lib/util.c b/lib/util.c\n--- /dev/null\n+++ b/lib/util.c\n@@ -0,0 +1,13 @@\n' >new.diff
sed 's/^/+/' repo/lib/util.c >>new.diff
"$UCOV" report rel.info --root repo --diff new.diff >rd.txt &&
  grep -q 'GNC 5 UNC 4 ' rd.txt && pass "--diff with relative SF paths" || fail "--diff with relative SF paths: $(tail -1 rd.txt)"
# Two outputs to standard output: refused, before any input is read.
"$UCOV" report build --lcov - --json - >/dev/null 2>two.err
[ $? = 2 ] && grep -q 'standard output' two.err && pass "two outputs to stdout" || fail "two outputs to stdout: $(cat two.err)"
finish ciformats
