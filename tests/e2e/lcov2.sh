#!/usr/bin/env bash
# lcov 2.x (Debian 13's lcov 2.3, unpacked by tests/fetch_tool.sh) as the
# oracle of --lcov-format 2, on a CMake project whose C test is compiled
# again as C++ (each function an instance per language, the C++ ones with
# exception edges) beside a template's two instances:
# - ucov report --lcov-format 2 gives lcov 2's branch records: per file and
#   line the same blocks (lcov numbers them in the order it found the
#   .gcda files: compared as a multiset), and the same line, function and
#   branch totals as `lcov --summary` of lcov's capture; by-index summing
#   (the lcov 1.x form's) gives other totals, so the check can fail;
# - ucov merge --lcov-format 2 of the same inputs gives the same records;
# - lcov 2's genhtml accepts every tracefile ucov writes in that form
#   wherever it accepts lcov's own capture (and ucov's of clang's profiles,
#   MC/DC included).
# Usage: lcov2.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
sanflags "${4:-}"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
root=$(bash "$SRC/tests/fetch_tool.sh" trixie "${UCOV_TOOL_CACHE:-$HOME/.cache/ucov/tools}" lcov 2>fetch.err) || {
  fail "lcov 2.x from Debian 13: $(cat fetch.err)"
  finish lcov2
  exit 1
}
L=$root/usr/bin
"$L/lcov" --version | grep -q 'LCOV version 2' || fail "lcov 2.x: $("$L/lcov" --version 2>&1 | head -1)"
P=$SRC/tests/e2e/lcov2
cmake -S "$P" -B b -G Ninja -DCMAKE_C_FLAGS="--coverage ${SANFLAGS[*]}" \
  -DCMAKE_CXX_FLAGS="--coverage ${SANFLAGS[*]}" >cmake.log 2>&1 && ninja -C b >>cmake.log 2>&1 &&
  (cd b && ctest >>../cmake.log 2>&1) || fail "the CMake project: $(tail -3 cmake.log)"

# blocks INFO: "FILE LINE (branch,taken,e)..." per block, sorted: lcov 2's
# records without the blocks' numbers.
blocks() {
  python3 - "$1" "$P" <<'PY'
import collections, os, sys
info, root = sys.argv[1], sys.argv[2]
out, f, cur = [], None, collections.defaultdict(list)
def flush():
    for (line, blk), brs in cur.items():
        out.append("%s %d %s" % (f, line, " ".join("(%s,%s,%s)" % b for b in sorted(brs))))
    cur.clear()
for l in open(info):
    l = l.rstrip("\n")
    if l.startswith("SF:"):
        f = os.path.relpath(os.path.join(root, l[3:]), root)
    elif l.startswith("BRDA:"):
        line, blk, br, taken = l[5:].split(",", 3)
        cur[(int(line), blk.lstrip("e"))].append((int(br), taken, "e" if blk.startswith("e") else ""))
    elif l == "end_of_record":
        flush()
print("\n".join(sorted(out)))
PY
}
totals() { "$L/lcov" --summary "$1" --branch-coverage 2>/dev/null | grep -E '^ +(lines|functions|branches)' | tr -s ' .' ' '; }

"$L/lcov" --capture -d b -o lcov.info --branch-coverage >capture.log 2>&1 ||
  fail "lcov 2's capture: $(grep ERROR capture.log | head -2)"
"$UCOV" report b --root "$P" --lcov-format 2 --lcov u2.info 2>err.txt || fail "report --lcov-format 2: $(head -2 err.txt)"
"$UCOV" report b --root "$P" --lcov u1.info 2>>err.txt || fail "report: $(head -2 err.txt)"
blocks lcov.info >want.txt
blocks u2.info >got.txt
[ "$(wc -l <want.txt)" -ge 10 ] && cmp -s want.txt got.txt &&
  pass "--lcov-format 2: every line's branch blocks are lcov 2's ($(wc -l <got.txt) blocks)" ||
  fail "--lcov-format 2: branch blocks differ from lcov 2's: $(diff want.txt got.txt | head -6 | tr '\n' ' ')"
[ -n "$(totals lcov.info)" ] && [ "$(totals u2.info)" = "$(totals lcov.info)" ] &&
  pass "--lcov-format 2: totals are lcov 2's: $(totals u2.info | tr '\n' ' ')" ||
  fail "--lcov-format 2 totals: $(totals u2.info | tr '\n' ' ') vs lcov 2 $(totals lcov.info | tr '\n' ' ')"
[ "$(totals u1.info | grep branches)" != "$(totals lcov.info | grep branches)" ] &&
  pass "the instances' blocks matter here: summed by index, other branch totals ($(totals u1.info | grep branches))" ||
  fail "the fixture has no instances of different shapes"
"$UCOV" merge b --root "$P" --lcov-format 2 -o m2.info 2>>err.txt && [ "$(blocks m2.info)" = "$(cat want.txt)" ] &&
  pass "merge --lcov-format 2: the same blocks" || fail "merge --lcov-format 2: $(blocks m2.info | diff want.txt - | head -4 | tr '\n' ' ')"

# genhtml 2.x accepts what ucov writes in lcov 2's form wherever it accepts
# lcov's own capture.
# (run in the project: the relative paths of --root's tracefiles are its)
accepts() { (cd "$P" && "$L/genhtml" --branch-coverage "$@" -o "$WORK/html$RANDOM") >>genhtml.log 2>&1; }
if accepts "$WORK/lcov.info"; then
  accepts "$WORK/u2.info" && accepts "$WORK/m2.info" && pass "lcov 2's genhtml accepts ucov's tracefiles as it accepts its own" ||
    fail "lcov 2's genhtml rejects ucov's tracefile: $(grep ERROR genhtml.log | tail -2)"
else
  fail "lcov 2's genhtml rejects its own capture: $(grep ERROR genhtml.log | tail -2)"
fi
if command -v clang-19 >/dev/null && command -v llvm-cov-19 >/dev/null; then
  clang-19 -fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc -O0 "$SRC/tests/e2e/llvm/mcdc.c" -o m &&
    LLVM_PROFILE_FILE=a.profraw ./m 1 1 >/dev/null && LLVM_PROFILE_FILE=b.profraw ./m 0 1 >/dev/null
  "$UCOV" report a.profraw b.profraw --binary ./m --lcov-format 2 --lcov mc.info 2>>err.txt &&
    grep -q '^MCDC:' mc.info && accepts --mcdc-coverage "$WORK/mc.info" &&
    pass "lcov 2's genhtml accepts ucov's tracefile of clang's profiles, MC/DC included" ||
    fail "lcov 2's genhtml and clang's profiles: $(grep ERROR genhtml.log | tail -2)"
fi
finish lcov2
