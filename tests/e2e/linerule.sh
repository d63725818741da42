#!/usr/bin/env bash
# --line-rule: which lines have code. A CMake project built through its own
# build system (braces, else and comment lines, functions never run), run
# once; then ucov's lines, line by line, against the tools as oracles:
# --line-rule gcovr equals gcovr's lines (its noncode lines left out) and
# gcovr's totals; the default (lcov) equals lcov --capture's DA records;
# gcovr's JSON read back equals the build tree under gcovr's rule.
# Usage: linerule.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
if ! command -v cmake >/dev/null || ! command -v gcovr >/dev/null; then
  echo "skip: cmake or gcovr not installed (scripts/deps.sh installs them)"
  exit 0
fi
rm -rf "$WORK" && mkdir -p "$WORK" && cp -r "$SRC/tests/e2e/linerule" "$WORK/proj" && cd "$WORK" || exit 1
CC=gcc CFLAGS=--coverage cmake -S proj -B proj/build >cmake.log 2>&1 && cmake --build proj/build >>cmake.log 2>&1 &&
  proj/build/prog || { fail "the project builds and runs: $(tail -3 cmake.log)"; finish linerule; exit 1; }
(cd proj/build && gcovr -r .. --json -o "$WORK/g.json" . && gcovr -r .. --json-summary -o "$WORK/gs.json" .) \
  >gcovr.log 2>&1 || fail "gcovr: $(tail -3 gcovr.log)"
"$UCOV" report proj/build --root proj --line-rule gcovr --json u.json --json-summary us.json &&
  "$UCOV" report proj/build --root proj --json l.json || fail "ucov report"
# lines: FILE -> {line: count}, from gcovr's JSON or ucov's
python3 - g.json u.json gs.json us.json <<'PY' && pass "--line-rule gcovr equals gcovr" || fail "--line-rule gcovr equals gcovr"
import json, sys
g, u, gs, us = (json.load(open(p)) for p in sys.argv[1:])
gl = {f["file"]: {l["line_number"]: l["count"] for l in f["lines"] if not l.get("gcovr/noncode")}
      for f in g["files"]}
ul = {f["path"]: {l[0]: l[1] for l in f["lines"]} for f in u["files"]}
assert gl == ul, {k: (sorted(set(gl.get(k, {}).items()) ^ set(ul.get(k, {}).items()))) for k in set(gl) | set(ul)}
for k in ("line_total", "line_covered"):
    assert gs[k] == us[k], (k, gs[k], us[k])
PY
python3 - l.json u.json <<'PY' && pass "the rules differ only where gcovr's noncode lines are" || fail "the rules differ where gcovr's noncode lines are"
import json, sys
l, u = ({f["path"]: {x[0] for x in f["lines"]} for f in json.load(open(p))["files"]} for p in sys.argv[1:])
gone = {k: sorted(l[k] - u[k]) for k in l if l[k] - u[k]}
# never-run closing braces of untouched() and never() in lib.c at least
assert len(gone.get("src/lib.c", [])) >= 1 and all(u[k] <= l[k] for k in l), gone
PY
# gcovr's JSON read as an input (relative to --root) is the same coverage
# as the build tree under gcovr's rule, record for record.
recs() { grep -E '^(SF|DA|FNDA|FN|BRDA):' "$1" | sort; }
"$UCOV" merge g.json --root proj -o gj.info && "$UCOV" merge proj/build --root proj --line-rule gcovr -o gr.info &&
  cmp -s <(recs gj.info) <(recs gr.info) && pass "gcovr JSON as input" ||
  fail "gcovr JSON as input: $(diff <(recs gj.info) <(recs gr.info) | head -5)"
if command -v lcov >/dev/null; then
  lcov -q --capture -d proj/build -o cap.info >lcov.log 2>&1 || fail "lcov --capture: $(tail -3 lcov.log)"
  "$UCOV" merge proj/build -o ul.info
  # DA records of the files lcov captured (it leaves out units never run)
  das() { awk -v want="$2" '/^SF:/{f=substr($0,4)} /^DA:/{if (want == "" || index(want, " " f " ")) print f, $0}' "$1" | sort; }
  files=" $(grep '^SF:' cap.info | cut -c4- | tr '\n' ' ') "
  cmp -s <(das cap.info "") <(das ul.info "$files") && pass "the lcov rule equals lcov --capture" ||
    fail "the lcov rule equals lcov --capture: $(diff <(das cap.info "") <(das ul.info "$files") | head -5)"
fi
"$UCOV" report proj/build --line-rule nonsense >/dev/null 2>bad.err
[ $? = 2 ] && grep -q -- '--line-rule is lcov or gcovr' bad.err && pass "a bad --line-rule" || fail "a bad --line-rule: $(cat bad.err)"
finish linerule
