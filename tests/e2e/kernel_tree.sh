#!/usr/bin/env bash
# A gcov tree shaped like a kernel's debugfs output (bench/gen_kernel_tree.py,
# 300 units of real gcc output: each .gcda beside a link to its .gcno, the
# sources in a tree of their own, names relative to it and absolute, shared
# headers of inline functions), read by ucov as lcov and gcovr read it: the
# same count for every line lcov --capture finds, the same totals as lcov's
# and gcovr's; and `ucov merge` of three runs gives each line the sum of the
# three runs' counts. The shape the kernel-sized report benchmark measures.
# Usage: kernel_tree.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$(cd "$2" && pwd) WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
python3 "$SRC/bench/gen_kernel_tree.py" "$WORK/k" 300 3 >lines.txt 2>gen.err &&
  [ "$(find k/trees/0 -name '*.gcda' | wc -l)" = 300 ] && [ "$(find k/trees/0 -name '*.gcno' -type l | wc -l)" = 300 ] &&
  pass "a kernel-shaped tree of 300 units, $(cat lines.txt) source lines" ||
  {
    fail "the kernel-shaped tree: $(tail -3 gen.err)"
    finish kernel_tree
    exit 1
  }
T=k/trees/0
"$UCOV" report -q "$T" --lcov u.info 2>u.err && pass "ucov reads the tree" || fail "ucov reads the tree: $(head -3 u.err)"
lcov -q --capture --rc lcov_branch_coverage=1 -d "$T" -o l.info >l.err 2>&1 || fail "lcov --capture: $(grep -v redefined l.err | head -3)"
# A tracefile's lines: (file, line) -> count, summed over its records of one
# file (lcov writes one a unit).
cat >lines.py <<'PY'
def lines(p):
    d, sf = {}, None
    for l in open(p):
        if l.startswith("SF:"):
            sf = l[3:].strip()
        elif l.startswith("DA:"):
            n, c = l[3:].split(",")[:2]
            d[(sf, int(n))] = d.get((sf, int(n)), 0) + int(c)
    return d
PY
# Every line lcov found, with lcov's count: the relative and the absolute names alike.
python3 - u.info l.info >cmp.txt <<'PY'
import sys
sys.path.insert(0, ".")
from lines import lines
u, l = lines(sys.argv[1]), lines(sys.argv[2])
bad = [k for k in l if u.get(k) != l[k]] + [k for k in u if k not in l]
files = {k[0] for k in l}
print(len(l), len(files), sum(1 for f in files if "/include/linux/" in f), len(bad), bad[:3])
PY
read -r n nfiles nheaders nbad _ <cmp.txt
[ "${nbad:-1}" = 0 ] && [ "${n:-0}" -gt 10000 ] && [ "${nheaders:-0}" = 4 ] && [ "${nfiles:-0}" = 304 ] &&
  pass "every line as lcov counts it: $n lines in $nfiles files, the 4 shared headers merged" ||
  fail "lines against lcov: $(cat cmp.txt)"
totals() { lcov --summary "$1" --rc lcov_branch_coverage=1 2>&1 | grep -E '^ +(lines|functions|branches)' | tr -s ' .' ' '; }
[ -n "$(totals l.info)" ] && [ "$(totals u.info)" = "$(totals l.info)" ] &&
  pass "lcov --summary: ucov's totals are lcov's" || fail "totals: ucov $(totals u.info | tr '\n' ' '); lcov $(totals l.info | tr '\n' ' ')"
gcovr -r k/src "$T" --print-summary -o gcovr.txt 2>/dev/null | grep -E '^(lines|functions|branches):' >g.txt
"$UCOV" report -q "$T" --text - | tail -1 >ut.txt
# TOTAL  34.73% 13276/38227  57.92% 940/1623  26.21% 6984/26642
read -r _ _ ul _ uf _ ub <ut.txt
g() { sed -n "s/^$1: .*(\([0-9]*\) out of \([0-9]*\))/\1\/\2/p" g.txt; }
[ -n "$(g lines)" ] && [ "$(g lines)" = "$ul" ] && [ "$(g functions)" = "$uf" ] && [ "$(g branches)" = "$ub" ] &&
  pass "gcovr's totals are ucov's: lines $ul, functions $uf, branches $ub" ||
  fail "gcovr's totals: $(tr '\n' ' ' <g.txt); ucov's: $(cat ut.txt)"
# Three runs merged: each line the sum of the runs'.
"$UCOV" merge -q k/trees/0 k/trees/1 k/trees/2 -o m.info 2>m.err || fail "merge: $(head -3 m.err)"
for k in 1 2; do "$UCOV" report -q "k/trees/$k" --lcov "u$k.info"; done
python3 - m.info u.info u1.info u2.info >merge.txt <<'PY'
import sys
sys.path.insert(0, ".")
from lines import lines
m, runs = lines(sys.argv[1]), [lines(p) for p in sys.argv[2:]]
differ = sum(1 for k in m if len({r[k] for r in runs}) > 1)
bad = [k for k in m if any(k not in r for r in runs) or m[k] != sum(r[k] for r in runs)]
print(len(m), differ, len(bad), bad[:3])
PY
read -r mn mdiffer mbad _ <merge.txt
[ "${mbad:-1}" = 0 ] && [ "${mn:-0}" = "${n:-x}" ] && [ "${mdiffer:-0}" -gt 1000 ] &&
  pass "merge of three runs: each of $mn lines the sum of the runs' ($mdiffer differ between runs)" ||
  fail "merge of three runs: $(cat merge.txt)"
finish kernel_tree
