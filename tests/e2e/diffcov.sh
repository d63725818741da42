#!/usr/bin/env bash
# Differential coverage through a unified diff (git diff -U0 BASE): lcov 2's
# documented categories for code the diff inserts (GNC, UNC), deletes (DCB,
# DUB), leaves (CBC, UBC, GBC, LBC) and moves (a block deleted in one place
# and inserted in another keeps its baseline lines: CBC, GBC, LBC, not GNC
# and DCB), a renamed file, patch coverage without a baseline, a malformed
# diff; the categories in JSON, Markdown and HTML.
# Usage: diffcov.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
if ! command -v git >/dev/null; then
  echo "skip: git not installed (scripts/deps.sh installs it)"
  exit 0
fi
rm -rf "$WORK" && mkdir -p "$WORK/repo" && cd "$WORK/repo" || exit 1
V=$SRC/tests/e2e/diffcov
git() { command git -c user.name=ucov -c user.email=ucov@example.invalid -c init.defaultBranch=main "$@"; }
git init -q . && cp "$V/v1.c" prog.c && printf 'int lib_twice(int x) {\n  return 2 * x;\n}\n' >lib.c &&
  git add prog.c lib.c && git commit -qm v1 || exit 1
build() { # build DIR ARGS...: compile prog.c and lib.c (or util.c) in DIR, run with ARGS
  local d=$1 f
  shift
  mkdir -p "../$d" && (cd "../$d" && for f in ../repo/prog.c ../repo/lib.c ../repo/util.c; do
    if [ -f "$f" ]; then gcc --coverage -O0 -c "$f" || return 1; fi
  done && gcc --coverage ./*.o -o p && ./p "$@" >/dev/null)
}
build base
# v2: helper moved below main, gone deleted, fresh inserted; lib.c renamed.
cp "$V/v2.c" prog.c && git mv lib.c util.c && git diff -U0 HEAD >../d.diff
build cur 1 2 3 4 5 6
cd .. || exit 1
grep -q '^rename from lib.c' d.diff && pass "the diff has a rename" || fail "the diff has a rename: $(head -20 d.diff)"

"$UCOV" report cur --baseline base --diff d.diff --json j.json --markdown md.txt >/dev/null 2>err.txt &&
  [ ! -s err.txt ] && pass "report --diff" || fail "report --diff: $(cat err.txt)"
"$UCOV" report cur --baseline base --diff d.diff >sum.txt
grep -q 'GNC 4 UNC 1 GBC 1 LBC 1 CBC 5 UBC 2 DCB 2 DUB 3' sum.txt && pass "category totals" ||
  fail "category totals: $(tail -1 sum.txt)"
# ucov JSON lists as many lines per category as the totals count (DCB and DUB:
# the baseline's lines that are gone; they were [] with counts of 2 and 3)
python3 - j.json <<'PY' && pass "JSON diff: a line per counted category entry" || fail "JSON diff lines vs totals"
import json, sys
n = {}
for f in json.load(open(sys.argv[1]))["files"]:
    for c, ls in f.get("diff", {}).items():
        n[c] = n.get(c, 0) + len(ls)
want = {"GNC": 4, "UNC": 1, "GBC": 1, "LBC": 1, "CBC": 5, "UBC": 2, "DCB": 2, "DUB": 3}
sys.exit(0 if all(n.get(c, 0) == k for c, k in want.items()) else print(n) or 1)
PY
# line NUMBER of a text in the current prog.c
line_of() { grep -nF -- "$1" repo/prog.c | tail -1 | cut -d: -f1; }
python3 - j.json "$(line_of 'static int helper(int x) {')" "$(line_of 'if (x > 5)')" "$(line_of 'return x - 5;')" \
  "$(line_of 'return x + 1;')" "$(line_of 'static int fresh')" "$(line_of 'return 0;  ')" "$(line_of 'if (x > 100)')" \
  "$(line_of 'int v = helper(argc) + fresh(argc);')" "$(line_of 'printf(')" <<'PY' &&
import json, sys
files = {f["path"].rsplit("/", 1)[-1]: f for f in json.load(open(sys.argv[1]))["files"]}
cat = {l: c for c, ls in files["prog.c"]["diff"].items() if c not in ("DCB", "DUB") for l in ls}
helper, ifx, ret5, ret1, fresh, _, if100, v, printf = (int(a) if a else 0 for a in sys.argv[2:])
want = {helper: "CBC", ifx: "CBC", ret5: "GBC", ret1: "LBC",  # moved: its old lines
        fresh: "GNC", if100: "GNC", if100 + 1: "UNC", v: "GNC", printf: "CBC"}
got = {l: cat.get(l) for l in want}
assert got == want, (got, want)
# the renamed file is matched with its old self: unchanged, never run (not new, not deleted)
u = files["util.c"]["diff"]
assert u == {"UBC": [1, 2]}, u
PY
  pass "per-line categories (moved, inserted, unchanged, renamed)" ||
  fail "per-line categories (moved, inserted, unchanged, renamed)"
# Context lines are never changed lines: git's default diff (three lines of
# context) and a wide one give exactly the categories of -U0, line by line.
for u in 3 10; do
  (cd repo && git diff -U$u HEAD) >d$u.diff
  "$UCOV" report cur --baseline base --diff d$u.diff --json j$u.json >/dev/null &&
    "$UCOV" report cur --baseline base --diff d$u.diff >sum$u.txt && cmp -s <(tail -1 sum.txt) <(tail -1 sum$u.txt) && pass "-U$u totals" ||
    fail "-U$u totals: $(tail -1 sum$u.txt), -U0: $(tail -1 sum.txt)"
  python3 - j.json j$u.json <<'PY' && pass "-U$u categories equal -U0 line by line" || fail "-U$u categories differ from -U0 line by line"
import json, sys
a, b = ({f["path"]: f.get("diff") for f in json.load(open(p))["files"]} for p in sys.argv[1:])
assert a == b, (a, b)
PY
done
# Patch coverage: the diff's changed lines with code (moved ones too), as
# diff-cover counts them from a Cobertura report of the same build; the
# gate --fail-under-patch (exit 32) decides on it.
"$UCOV" report cur --diff d3.diff --json-summary ps.json --text pt.txt >/dev/null &&
  read -r ph pf < <(python3 -c "import json; d = json.load(open('ps.json')); print(d['patch_covered'], d['patch_total'])") &&
  [ "$pf" -gt 0 ] && grep -q "^patch: .* ($ph of $pf changed lines" pt.txt && pass "patch coverage" || fail "patch coverage: $(cat ps.json)"
if command -v diff-cover >/dev/null; then
  "$UCOV" report cur --root repo --cobertura pc.xml &&
    (cd repo && diff-cover ../pc.xml --compare-branch=HEAD --json-report ../dc.json >/dev/null 2>&1)
  python3 - dc.json "$ph" "$pf" <<'PY' && pass "patch coverage = diff-cover's" || fail "patch coverage = diff-cover's: $(cat dc.json)"
import json, sys
d, hit, found = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
assert (d["total_num_lines"], d["total_num_violations"]) == (found, found - hit), (d, hit, found)
PY
fi
# --diff-base REF: the same patch from git itself (the work tree against its
# merge base with HEAD: the uncommitted change), with no diff file; a tree
# that is no git work tree is an error.
"$UCOV" report cur --root repo --diff-base HEAD --json-summary pb.json >/dev/null 2>pb.err &&
  read -r bh bf < <(python3 -c "import json; d = json.load(open('pb.json')); print(d['patch_covered'], d['patch_total'])") &&
  [ "$bh $bf" = "$ph $pf" ] && pass "--diff-base HEAD: the patch of the diff file ($ph of $pf)" ||
  fail "--diff-base HEAD: $(cat pb.err) ${bh:-} ${bf:-}"
nogit=$(mktemp -d)
"$UCOV" report cur --root "$nogit" --diff-base HEAD >/dev/null 2>nb.err
[ $? = 1 ] && grep -q 'is not in a git work tree' nb.err && pass "--diff-base outside a git work tree: an error" ||
  fail "--diff-base outside a git work tree: $(cat nb.err)"
rmdir "$nogit"
pct=$(python3 -c "print($ph * 100 / $pf)")
"$UCOV" report -q cur --diff d3.diff --fail-under-patch "$(python3 -c "print(round($pct + 1, 2))")" 2>gp.err
[ $? = 32 ] && grep -q "patch coverage .* ($ph of $pf) is below --fail-under-patch" gp.err && pass "--fail-under-patch above" ||
  fail "--fail-under-patch above: $(cat gp.err)"
"$UCOV" report -q cur --diff d3.diff --fail-under-patch "$(python3 -c "print(round($pct - 1, 2))")" &&
  pass "--fail-under-patch below" || fail "--fail-under-patch below"
"$UCOV" report -q cur --fail-under-patch 50 2>gp2.err
[ $? = 2 ] && grep -q 'needs --diff' gp2.err && pass "--fail-under-patch without --diff" || fail "--fail-under-patch without --diff"
# A change that only adds comments (default context, two hunks) has no new
# line; one that only deletes has deleted lines and no new one.
(cd repo && git add -A && git commit -qm v2 &&
  sed -i -e 's|^int main(|/* the entry */\n/* of the program */\nint main(|' \
    -e 's|^static int helper(int x) {|// moved here\nstatic int helper(int x) {|' prog.c &&
  git diff >../c.diff) || fail "the comment-only change"
[ "$(grep -c '^@@' c.diff)" = 2 ] && [ "$(grep -c '^ ' c.diff)" -ge 6 ] && pass "the comment diff has two hunks with context" ||
  fail "the comment diff has two hunks with context: $(cat c.diff)"
(cd repo && build cur3 1 2 3 4 5 6)
for b in "" "--baseline cur"; do
  # shellcheck disable=SC2086 # $b: no argument, or two
  "$UCOV" report cur3 $b --diff c.diff >c.txt && grep -q 'GNC 0 UNC 0 ' c.txt && pass "comments only ($b)" ||
    fail "comments only ($b): $(tail -1 c.txt)"
done
# no changed line with code: the patch gate passes (as diff-cover's)
"$UCOV" report -q cur3 --diff c.diff --fail-under-patch 100 && pass "a patch of comments fails the gate" || fail "a patch of comments fails the gate"
grep -q 'GNC 0 UNC 0 GBC 0 LBC 0 CBC 1[0-9] UBC [0-9]* DCB 0 DUB 0' c.txt && pass "comments only against v2: every line kept, none deleted" ||
  fail "comments only against v2: every line kept, none deleted: $(tail -1 c.txt)"
(cd repo && git checkout -q prog.c && sed -i '/if (x > 100)/,/return 0;/d' prog.c && git diff >../del.diff) ||
  fail "the deletion"
(cd repo && build cur4 1 2 3 4 5 6)
"$UCOV" report cur4 --baseline cur --diff del.diff >del.txt &&
  grep -q 'GNC 0 UNC 0 GBC 0 LBC 0 CBC [0-9]* UBC [0-9]* DCB 1 DUB 1' del.txt && pass "deletions only" ||
  fail "deletions only: $(tail -1 del.txt)"
"$UCOV" report cur4 --diff del.diff >del0.txt && grep -q 'GNC 0 UNC 0 ' del0.txt && pass "deletions only, no baseline" ||
  fail "deletions only, no baseline: $(tail -1 del0.txt)"
# Each revision's exclusion markers apply to its own lines: the baseline's
# are read from the current source with the diff undone. Here a function
# inserted above moves an excluded line down by three; unchanged lines stay
# unchanged (no new code but the insertion, nothing deleted).
mkdir -p mk && (cd mk && git init -q . && cat >m.c <<'C' && git add m.c && git commit -qm base &&
int f(int x) {
  if (x > 3)
    return 1;
  return 0;
}
int g(int x) { return x * 7; } // LCOV_EXCL_LINE
int main(int argc, char **argv) {
  (void)argv;
  return f(argc);
}
C
  mkdir -p ../mkbase && (cd ../mkbase && gcc --coverage -O0 ../mk/m.c -o p && ./p) &&
  sed -i '1i int h(int x) {\n  return x + 1;\n}' m.c && sed -i "s/f(argc);/f(argc) + h(0) - 1;/" m.c &&
  git diff >../mk.diff && mkdir -p ../mkcur && (cd ../mkcur && gcc --coverage -O0 ../mk/m.c -o p && ./p)) ||
  fail "the marker repository"
"$UCOV" report mkcur --baseline mkbase --diff mk.diff >mk.txt &&
  grep -q 'GNC 3 UNC 0 GBC 0 LBC 0 CBC 4 UBC 1 DCB 1 DUB 0' mk.txt && pass "markers per revision" ||
  fail "markers per revision: $(tail -1 mk.txt)"
"$UCOV" report mkcur --baseline mkbase --diff mk.diff --json mk.json >/dev/null &&
  python3 - mk.json <<'PY' && pass "markers per revision: line categories" || fail "markers per revision: line categories"
import json, sys
f = json.load(open(sys.argv[1]))["files"][0]
cat = {l: c for c, ls in f["diff"].items() if c not in ("DCB", "DUB") for l in ls}  # (those: baseline lines)
# h (lines 1-2) and main's return (12) are new; f (4-7) unchanged; g (9) excluded in both
assert {l for l, c in cat.items() if c in ("GNC", "UNC")} == {1, 2, 12}, cat
assert 9 not in cat and 4 in cat and cat[4] == "CBC", cat
PY
# Without the diff, lines are matched by number: the moved block is misread.
"$UCOV" report cur --baseline base >sum0.txt
! grep -q 'GNC 4 UNC 1 GBC 1 LBC 1' sum0.txt && pass "the diff changes the categories" || fail "the diff changes the categories"
grep -q '^### Changed files' md.txt && grep -q '^| prog.c\|^| .*/prog.c' md.txt && pass "Markdown lists the changed file" ||
  fail "Markdown lists the changed file: $(cat md.txt)"
# Without a baseline: the patch's coverage, the inserted lines only (moved ones are not new).
"$UCOV" report cur --diff d.diff >p.txt && grep -q 'GNC 4 UNC 1 GBC 0 LBC 0 CBC 0 UBC 0 DCB 0 DUB 0' p.txt &&
  pass "patch coverage" || fail "patch coverage: $(tail -1 p.txt)"
# The HTML page carries the categories of the changed lines.
"$UCOV" report cur --baseline base --diff d.diff --html d.html && grep -q '"diff": true' d.html &&
  grep -q '"GNC"' d.html && grep -q '"LBC"' d.html && pass "HTML categories" || fail "HTML categories"
# In Chromium: a legend of the file's categories with their counts (the
# report's own), each a filter: &cat=UNC renders that category's lines alone.
if command -v chromium >/dev/null; then
  need_chromium
  headless --dump-dom "file://$WORK/d.html#file=prog.c" >legend.dom
  headless --dump-dom "file://$WORK/d.html#file=prog.c&cat=UNC" >unc.dom
  legend=$(grep -o '<div id="legend">.*</div>' legend.dom | grep -o 'data-cat="[A-Z]*"[^>]*>[A-Z]* [0-9]*' | sed 's/.*>//' | tr '\n' ' ')
  want=$(grep -o 'GNC [0-9]* UNC [0-9]* GBC [0-9]* LBC [0-9]* CBC [0-9]*' sum.txt)
  unc=$(grep -o '<td class="cat c-[A-Z]*">' unc.dom | sort -u | tr '\n' ' ')
  all=$(grep -c '<td class="cat c-' legend.dom)
  [ "${legend% DCB*}" = "$want" ] && [ "$unc" = '<td class="cat c-UNC"> ' ] && [ "$all" -gt 1 ] &&
    pass "HTML legend of categories ($legend), and its filter" || fail "HTML legend: '$legend' (want '$want'), filtered: '$unc'"
  # The Markdown summary links each uncovered new line to its view in the
  # page written beside it (a path from the Markdown file's directory), and
  # the link lands on that line, marked.
  mkdir -p out
  "$UCOV" report cur --baseline base --diff d.diff --markdown out/md.txt --html d2.html >/dev/null
  read -r mdline link < <(grep -o '\[[0-9]*\](\.\./d2\.html#file=[^)]*&line=[0-9]*)' out/md.txt | head -1 | sed 's/^\[\([0-9]*\)\](\(.*\))$/\1 \2/')
  uncs=$(python3 -c 'import json,sys; print(" ".join(str(l) for f in json.load(open("j.json"))["files"] for l in (f.get("diff") or {}).get("UNC", [])))')
  headless --dump-dom "file://$WORK/out/$link" >md.dom
  [ -n "$mdline" ] && [[ " $uncs " == *" $mdline "* ]] && grep -q "<tr id=\"L$mdline\" class=\"[a-z]* cur\"" md.dom &&
    grep -q "^| \[[^]]*prog.c\](\.\./d2\.html#file=[^)]*prog\.c) |" out/md.txt &&
    pass "Markdown links an uncovered line to its view ($link)" || fail "Markdown's links: '$link' (UNC lines $uncs): $(grep -o '<tr id="L[0-9]*" class="[^"]*cur"' md.dom)"
  "$UCOV" report cur --baseline base --diff d.diff --markdown md3.txt --html-url 'https://ci.example/run 7/cov(1).html' >/dev/null
  grep -q '](https://ci.example/run%207/cov%281%29.html#file=[^)]*prog\.c&line=[0-9]*)' md3.txt &&
    pass "--html-url: the links' address, encoded" || fail "--html-url: $(grep -o '\[[0-9]*\]([^)]*)' md3.txt | head -1)"
fi
# A malformed diff: said with its line, the report still written, status 1.
printf 'diff --git a/prog.c b/prog.c\n--- a/prog.c\n+++ b/prog.c\n@@ -1,3 +1,2 @@\n-a\n' >bad.diff
"$UCOV" report cur --diff bad.diff --lcov bad.info 2>bad.err
[ $? = 1 ] && grep -q 'bad.diff.*cut short\|bad.diff.*ends early' bad.err && [ -s bad.info ] && pass "a malformed diff" ||
  fail "a malformed diff: $(cat bad.err)"
printf '@@ -x +1 @@\n' >bad2.diff
"$UCOV" report cur --diff bad2.diff >/dev/null 2>bad2.err
[ $? = 1 ] && grep -q 'bad2.diff:1: not a hunk header' bad2.err && pass "a bad hunk is refused" || fail "bad hunk: $(cat bad2.err)"
# A file that is no diff at all is an error; an empty diff (no change) is not.
cp repo/prog.c notdiff.c && : >empty.diff
"$UCOV" report cur --diff notdiff.c >/dev/null 2>nd.err
[ $? = 1 ] && grep -q 'notdiff.c: not a unified diff' nd.err && pass "a file that is not a diff is refused" || fail "not a diff: $(cat nd.err)"
"$UCOV" report cur --diff empty.diff >ed.txt 2>ed.err && grep -q 'GNC 0 UNC 0' ed.txt && [ ! -s ed.err ] &&
  pass "an empty diff" || fail "an empty diff: $(cat ed.err)"
# md_control_escaped: a CR or another control character in a path does not
# break the Markdown table's row: shown escaped, the row whole.
printf 'TN:\nSF:/src/a\rb\x01|c.c\nDA:1,1\nDA:2,0\nLF:2\nLH:1\nend_of_record\n' >cr.info
"$UCOV" report cr.info --markdown cr.md >/dev/null 2>cr.err && ! grep -q $'[\r\x01]' cr.md &&
  grep -qF '| /src/a\\rb\\x01\|c.c | 50.0% (1/2) | - | - |' cr.md &&
  pass "Markdown: control characters in a path are escaped, the row whole" ||
  fail "Markdown: control characters in a path: $(cat cr.err; grep -a 'src/a' cr.md | od -c | head -3)"
finish diffcov
