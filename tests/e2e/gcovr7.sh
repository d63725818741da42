#!/usr/bin/env bash
# Which of ucov's totals equal which gcovr, under which line rule: the
# README's and docs/cli.md's claims, each checked, on the --line-rule CMake
# project (tests/e2e/linerule: braces, else and comment lines, functions
# never run) with gcovr 5.2 (Debian 12's) and gcovr 7.2 (Debian 13's,
# unpacked by tests/fetch_tool.sh):
# - --line-rule gcovr: gcovr 5.2's lines, line by line with their counts,
#   and its line totals (gcovr 5 leaves out never-run lines of only a brace);
# - the default rule (lcov's): gcovr 7.2's lines, line by line, and its
#   line totals (gcovr 7 counts those lines, as lcov and gcov do);
# - under either rule: the function and branch totals of both gcovrs
#   (each function here has one instance).
# Usage: gcovr7.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cp -r "$SRC/tests/e2e/linerule" "$WORK/proj" && cd "$WORK" || exit 1
root=$(bash "$SRC/tests/fetch_tool.sh" trixie "${UCOV_TOOL_CACHE:-$HOME/.cache/ucov/tools}" gcovr 2>fetch.err) || {
  fail "gcovr 7.x from Debian 13: $(cat fetch.err)"
  finish gcovr7
  exit 1
}
# (Debian's python3, whose dist-packages hold gcovr's dependencies)
gcovr7() { PYTHONPATH=$root/usr/lib/python3/dist-packages /usr/bin/python3 -m gcovr "$@"; }
[ "$(gcovr --version | head -1)" = "gcovr 5.2" ] && [ "$(gcovr7 --version | head -1)" = "gcovr 7.2" ] ||
  fail "gcovr 5.2 and 7.2: $(gcovr --version | head -1), $(gcovr7 --version 2>&1 | head -1)"
CC=gcc CFLAGS=--coverage cmake -S proj -B proj/build >cmake.log 2>&1 && cmake --build proj/build >>cmake.log 2>&1 &&
  proj/build/prog || fail "the project builds and runs: $(tail -3 cmake.log)"
(cd proj/build && gcovr -r .. --json "$WORK/g5.json" --json-summary "$WORK/g5s.json" . &&
  gcovr7 -r .. --json "$WORK/g7.json" --json-summary "$WORK/g7s.json" .) >gcovr.log 2>&1 ||
  fail "gcovr: $(tail -3 gcovr.log)"
"$UCOV" report proj/build --root proj --line-rule gcovr --json ug.json --json-summary ugs.json &&
  "$UCOV" report proj/build --root proj --json ul.json --json-summary uls.json || fail "ucov report"
# same GCOVR_JSON GCOVR_SUMMARY UCOV_JSON UCOV_SUMMARY KEYS...: the lines
# (gcovr's code lines: not noncode, not excluded) with their counts, and the
# summaries' KEYS
same() {
  python3 - "$@" <<'PY'
import json, sys
g, gs, u, us = (json.load(open(p)) for p in sys.argv[1:5])
gl = {f["file"]: {l["line_number"]: l["count"] for l in f["lines"]
                  if not l.get("gcovr/noncode") and not l.get("gcovr/excluded")} for f in g["files"]}
ul = {f["path"]: {l[0]: l[1] for l in f["lines"]} for f in u["files"]}
assert gl == ul, {k: sorted(set(gl.get(k, {}).items()) ^ set(ul.get(k, {}).items())) for k in set(gl) | set(ul)}
for k in sys.argv[5:]:
    assert gs[k] == us[k], (k, gs[k], us[k])
print(" ".join("%s %s" % (k, us[k]) for k in sys.argv[5:]))
PY
}
keys=(line_total line_covered function_total function_covered branch_total branch_covered)
got=$(same g5.json g5s.json ug.json ugs.json "${keys[@]}" 2>&1) &&
  pass "--line-rule gcovr: gcovr 5.2's lines, one by one; its line, function and branch totals ($got)" ||
  fail "--line-rule gcovr against gcovr 5.2: $got"
got=$(same g7.json g7s.json ul.json uls.json "${keys[@]}" 2>&1) &&
  pass "the lcov rule: gcovr 7.2's lines, one by one; its line, function and branch totals ($got)" ||
  fail "the default rule against gcovr 7.2: $got"
# The two gcovrs count lines differently here (so the checks tell the rules
# apart), and agree on functions and branches.
python3 - g5s.json g7s.json "${keys[@]}" <<'PY' && pass "gcovr 5.2 and 7.2: other line totals, the same function and branch totals" ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["line_total"] != b["line_total"], "the same line totals"
assert all(a[k] == b[k] for k in sys.argv[5:]), [(k, a[k], b[k]) for k in sys.argv[5:]]
PY
  fail "gcovr 5.2 and 7.2 on this project: not what the checks above need"
finish gcovr7
