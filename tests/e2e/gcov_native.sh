#!/usr/bin/env bash
# ucov reads gcc's .gcno/.gcda itself. Oracle: gcov. The same inputs read
# natively and through `--gcov-tool gcov` (gcov --json-format) give the same
# JSON, lcov and Cobertura byte for byte: every line count, function count
# and branch count of every file, at -O0, -O1, -O2 and -Os, for a program of
# awkward control flow (tests/e2e/gcov/shapes.c) and the demo parser. The
# same for clang's notes against `llvm-cov gcov` (clang 14, 16, 19). No gcov
# process runs on the native path. A .gcno without a .gcda is a unit at
# 0% (lines, functions, branches: as lcov --initial counts them) in every
# output form, and corrupt notes or counts get a message, not a crash.
# Usage: gcov_native.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK/out" && cd "$WORK" || exit 1
G=$SRC/tests/e2e/gcov
D=$SRC/examples/demo

# same DIR NAME [TOOL]: native and TOOL's (gcov) reports of DIR, in JSON,
# lcov and Cobertura.
same() {
  local dir=$1 name=$2 tool=${3:-gcov} form
  "$UCOV" report "$dir" --json "out/$name.n.json" --lcov "out/$name.n.info" \
    --cobertura "out/$name.n.xml" 2>"out/$name.n.err" || fail "$name: native report failed: $(head -3 "out/$name.n.err")"
  "$UCOV" report "$dir" --gcov-tool "$tool" --json "out/$name.g.json" --lcov "out/$name.g.info" \
    --cobertura "out/$name.g.xml" 2>"out/$name.g.err" || fail "$name: gcov report failed: $(head -3 "out/$name.g.err")"
  for form in json info; do
    cmp -s "out/$name.n.$form" "out/$name.g.$form" && pass "$name: native and gcov $form agree" ||
      fail "$name: native and gcov $form differ: $(diff "out/$name.n.$form" "out/$name.g.$form" | head -6)"
  done
  # Cobertura carries a timestamp: compare without it.
  cmp -s <(sed 's/timestamp="[0-9]*"//' "out/$name.n.xml") <(sed 's/timestamp="[0-9]*"//' "out/$name.g.xml") &&
    pass "$name: native and gcov Cobertura agree" || fail "$name: native and gcov Cobertura differ"
  grep -q '^BRDA:' "out/$name.n.info" && grep -q '^FNDA:[1-9]' "out/$name.n.info" && pass "$name: no branch or no function counted" ||
    fail "$name: no branch or no function counted"
}

for opt in -O0 -O1 -O2 -Os; do
  d=shapes$opt
  mkdir -p "$d" && (cd "$d" && gcc --coverage "$opt" "$G/shapes.c" -o shapes &&
    ./shapes >/dev/null && ./shapes a b >/dev/null && ./shapes a b c d e f >/dev/null)
  same "$d" "shapes$opt"
done
# The same loop line, group functions and longjmp counts gcov prints.
grep -q '^FNDA:15,one$' out/shapes-O0.n.info && grep -q '^FNDA:5,three$' out/shapes-O0.n.info &&
  grep -q '^FNDA:12,jumper$' out/shapes-O0.n.info && grep -q '^FNDA:1,loop_line$' out/shapes-O0.n.info &&
  pass "shapes: function counts" ||
  fail "shapes: function counts: $(grep FNDA out/shapes-O0.n.info | tr '\n' ' ')"

mkdir -p demo && (cd demo && gcc --coverage -O2 -I"$D" -c "$D/httpreq.c" -o httpreq.o &&
  gcc --coverage -O2 -c "$SRC/tests/integration/gcov_main.c" -o gcov_main.o &&
  gcc --coverage httpreq.o gcov_main.o -o prog &&
  ./prog 'GET / HTTP/1.1\r\nHost: a\r\n\r\n' 'POST /x HTTP/1.1\r\nContent-Length: 1\r\n\r\nz' >/dev/null)
same demo demo

# clang's notes (LLVM's gcov format, "408*"): native reading equals
# `llvm-cov gcov` of the same clang, line for line, function for function.
for v in "" -16 -19; do
  command -v "clang$v" >/dev/null && command -v "llvm-cov$v" >/dev/null || continue
  for opt in -O0 -O2; do
    d=clang$v$opt
    mkdir -p "$d" && (cd "$d" && "clang$v" --coverage "$opt" "$G/shapes.c" -o shapes &&
      "clang$v" --coverage "$opt" -I"$D" -c "$D/httpreq.c" -o httpreq.o &&
      "clang$v" --coverage "$opt" -c "$SRC/tests/integration/gcov_main.c" -o gcov_main.o &&
      "clang$v" --coverage httpreq.o gcov_main.o -o prog &&
      ./shapes >/dev/null && ./shapes a b >/dev/null && ./prog 'GET / HTTP/1.1\r\n\r\n' >/dev/null)
    same "$d" "$d" "llvm-cov$v"
  done
done
grep -q '^FNDA:10,one$' out/clang-O0.n.info && grep -q '^FNDA:0,three$' out/clang-O0.n.info && pass "clang: functions on one line" ||
  fail "clang: functions on one line: $(grep FNDA out/clang-O0.n.info | tr '\n' ' ')"
# clang's notes of a unit that never ran: at 0% too.
mkdir -p clang-never && (cd clang-never && clang --coverage -O0 -c "$G/never_run.c" -o never_run.o)
"$UCOV" report clang-never --lcov out/clang-never.info 2>out/clang-never.err &&
  grep -q '^FNDA:0,never_called$' out/clang-never.info && grep -q '^DA:5,0$' out/clang-never.info &&
  grep -q '^LH:0$' out/clang-never.info && pass "clang never-run unit" ||
  fail "clang never-run unit: $(head -2 out/clang-never.err; tr '\n' ' ' <out/clang-never.info)"

# No gcov process on the native path: a gcov first in PATH that leaves a
# mark. With --gcov-tool it is run (so the check can fail).
mkdir -p fakebin && printf '#!/bin/sh\ntouch "%s/gcov-ran"\nexit 1\n' "$WORK" >fakebin/gcov &&
  chmod +x fakebin/gcov
PATH=$WORK/fakebin:$PATH "$UCOV" report shapes-O0 --lcov out/nogcov.info 2>out/nogcov.err &&
  [ ! -e gcov-ran ] && cmp -s out/nogcov.info out/shapes-O0.n.info && pass "the native report runs no gcov and agrees" ||
  fail "native report ran gcov or differs: $(head -2 out/nogcov.err)"
PATH=$WORK/fakebin:$PATH "$UCOV" report shapes-O0 --gcov-tool gcov --lcov out/fake.info 2>/dev/null
[ -e gcov-ran ] && pass "--gcov-tool gcov did not run the gcov in PATH" || fail "--gcov-tool gcov did not run the gcov in PATH"

# Compiled but never run: a .gcno alone is a unit at 0%, beside one that ran.
mkdir -p mixed && (cd mixed && gcc --coverage -O0 -c "$G/never_run.c" -o never_run.o &&
  gcc --coverage -O0 "$G/shapes.c" -o shapes && ./shapes >/dev/null)
[ -e mixed/never_run.gcno ] && [ ! -e mixed/never_run.gcda ] && pass "never_run: setup" || fail "never_run: setup"
same mixed mixed
n=out/mixed.n
awk '/^SF:.*never_run.c$/,/end_of_record/' "$n.info" >nr.info
grep -q '^FNDA:0,never_called$' nr.info && grep -q '^FNDA:0,never_either$' nr.info &&
  grep -q '^DA:5,0$' nr.info && grep -q '^LH:0$' nr.info && grep -q '^FNH:0$' nr.info &&
  grep -q '^BRDA:5,0,0,-$' nr.info && grep -q '^BRH:0$' nr.info &&
  [ "$(grep -c '^DA:' nr.info)" = "$(sed -n 's/^LF://p' nr.info)" ] && pass "never_run.c at 0% in lcov" ||
  fail "never_run.c at 0% in lcov: $(tr '\n' ' ' <nr.info | head -c 300)"
grep -q 'never_run.c' "$n.json" && python3 - "$n.json" <<'PY' && pass "never_run.c in JSON" || fail "never_run.c in JSON"
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["files"] if f["path"].endswith("never_run.c")][0]
assert f["lines"] and all(c == 0 for _, c in f["lines"]), f["lines"]
PY
grep -q 'filename="[^"]*never_run.c" line-rate="0.0000" branch-rate="0.0000"' "$n.xml" && pass "never_run.c in Cobertura" ||
  fail "never_run.c in Cobertura: $(grep never_run "$n.xml" | head -2)"
"$UCOV" report mixed --html out/mixed.html 2>/dev/null && grep -q 'never_run.c' out/mixed.html && pass "never_run.c in HTML" ||
  fail "never_run.c in HTML"
# lcov --initial counts the same lines, functions and branches (its own .gcno reader).
if command -v lcov >/dev/null; then
  mkdir -p init && cp mixed/never_run.gcno init/ && (cd init && lcov -q --initial --capture -d . \
    --rc lcov_branch_coverage=1 -o ../out/init.info 2>/dev/null)
  cmp -s <(grep -E '^(DA|FN|BRDA):' out/init.info | sort -u) <(grep -E '^(DA|FN|BRDA):' nr.info | sort -u) &&
    pass "never_run.c: as lcov --initial" || fail "never_run.c: lcov --initial differs: $(diff <(grep -E '^(DA|FN|BRDA):' out/init.info | sort -u) \
      <(grep -E '^(DA|FN|BRDA):' nr.info | sort -u) | head -4)"
else
  echo "skip lcov --initial: lcov not installed"
fi
# Corrupt notes and counts: a message naming the file, exit 1, the rest reported.
mkdir -p bad && cp mixed/*.gcno mixed/*.gcda bad/
sh=bad/shapes.gcno
head -c 100 "$sh" >cut.tmp && mv cut.tmp "$sh"
"$UCOV" report bad --lcov out/bad.info 2>out/bad.err
[ $? = 1 ] && grep -q "$sh" out/bad.err && grep -q 'never_run.c' out/bad.info && pass "truncated .gcno" ||
  fail "truncated .gcno: $(head -2 out/bad.err)"
cp mixed/*.gcno bad/ && printf '\x00\x00\x00\x00' | dd of=bad/shapes.gcda bs=1 seek=8 conv=notrunc 2>/dev/null
"$UCOV" report bad --lcov out/bad.info 2>out/bad.err
[ $? = 1 ] && grep -q 'stamp mismatch' out/bad.err && pass "a stale .gcda" || fail "a stale .gcda: $(head -2 out/bad.err)"
# Random damage: never a crash (a sanitizer build aborts on any memory error).
cp mixed/*.gcno mixed/*.gcda bad/
[ -d clang-O0 ] && mkdir -p bad/clang && cp clang-O0/*.gcno clang-O0/*.gcda bad/clang/
crashed=0
for seed in $(seq 1 60); do
  rm -rf fz && cp -r bad fz
  mapfile -d '' files < <(find fz -name '*.gc*' -print0)
  python3 - "$seed" "${files[@]}" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
for path in sys.argv[2:]:
    b = bytearray(open(path, "rb").read())
    for _ in range(r.randint(1, 6)):
        i = r.randrange(len(b))
        b[i] = r.choice([0, 0xff, r.randrange(256)])
    if r.random() < 0.3:
        b = b[: r.randrange(len(b))]
    open(path, "wb").write(b)
PY
  UCOV_TOOL_TIMEOUT=10 "$UCOV" report fz --lcov out/fz.info >/dev/null 2>&1
  st=$?
  [ $st -le 1 ] || crashed=$((crashed + 1))
done
[ $crashed = 0 ] && pass "damaged notes or counts: $crashed of 60 runs crashed" || fail "damaged notes or counts: $crashed of 60 runs crashed"
finish gcov_native
