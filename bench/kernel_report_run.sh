#!/usr/bin/env bash
# Report benchmark at a kernel's size: gcov trees shaped like a kernel's
# debugfs gcov output (bench/gen_kernel_tree.py: UNITS units, half and double
# that too) are read by `ucov report` into each format (lcov, JSON, one HTML
# page, --html-dir), and ten runs of the full-size build are merged by `ucov
# merge`; wall time and peak memory, sizes and formats alternating within each
# round. Then the peers on the full-size tree, once each, stopped at LIMIT
# seconds: lcov --capture then genhtml, and gcovr (--html-details, -j 2).
# Writes bench/RESULTS-kernel-report.md.
#   bash bench/kernel_report_run.sh [ROUNDS] [UNITS] [LIMIT]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work/kreport
rounds=${1:-3}
units=${2:-25000}
limit=${3:-1800}
mkdir -p "$work"
bash "$root/scripts/deps.sh"
cmake -S "$root" -B "$work/ucov" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$work/ucov" -j 2 >/dev/null
UCOV=$work/ucov/ucov
half=$((units / 2)) double=$((units * 2))
# The trees: half and double size once each, the full size ten times (runs).
declare -A lines
for n in "$half" "$units" "$double"; do
  t=1
  [ "$n" = "$units" ] && t=10
  if [ ! -f "$work/gen-$n-$t.done" ]; then
    python3 "$here/gen_kernel_tree.py" "$work/k$n" "$n" "$t" >"$work/gen-$n-$t.lines"
    touch "$work/gen-$n-$t.done"
  fi
  lines[$n]=$(cat "$work/gen-$n-$t.lines")
done
# Ten trees merged are one tree of the same units with the counts of ten runs:
# its lines found are one run's, and each line's hits the sum of the ten runs'
# (checked here against each run's own report, not assumed).
mkdir -p "$work/check"
"$UCOV" merge -q "$work/k$units"/trees/{0..9} -o "$work/check/m.info"
for k in {0..9}; do "$UCOV" report -q "$work/k$units/trees/$k" --lcov "$work/check/t$k.info"; done
python3 - "$work/check/m.info" "$work/check"/t{0..9}.info <<'PY'
import sys
def lines(p):  # (file, line, count) in file order: the reports are sorted alike
    sf = None
    for l in open(p):
        if l.startswith("SF:"):
            sf = l[3:].strip()
        elif l.startswith("DA:"):
            n, c = l[3:].split(",")[:2]
            yield sf, int(n), int(c)
    yield None, 0, 0
n = 0
for m, *runs in zip(*(lines(p) for p in sys.argv[1:])):
    assert all(r[:2] == m[:2] for r in runs), f"the merge's lines are not one run's: {m} {runs[0]}"
    assert m[2] == sum(r[2] for r in runs), f"{m}: not the sum of the runs' counts"
    n += 1
print(f"merge of ten runs checked: {n - 1} lines, each the sum of the ten runs' counts")
PY
rm -rf "$work/check"
raw=$work/raw.txt
: >"$raw"
: >"$work/load.txt"
# shellcheck source=bench/measure.sh
. "$here/measure.sh"
# limited NAME COMMAND...: measure, stopped after $limit seconds ("NAME stopped").
limited() {
  local name=$1 rc=0
  shift
  timeout -k 10 "$limit" /usr/bin/time -f "$name %e %M" -o "$work/t.txt" "$@" >/dev/null 2>"$work/$name.err" || rc=$?
  if [ $rc = 0 ]; then
    cat "$work/t.txt" >>"$raw"
  elif [ $rc = 124 ] || [ $rc = 137 ]; then
    echo "$name stopped $limit" >>"$raw"
  else
    echo "bench: $name failed ($rc): $(tail -3 "$work/$name.err")" >&2
    echo "$name failed $rc" >>"$raw"
  fi
  return 0
}
out=$work/out
for ((r = 0; r < rounds; r++)); do
  awk '{print $1}' /proc/loadavg >>"$work/load.txt"
  for n in "$half" "$units" "$double"; do
    tree=$work/k$n/trees/0
    rm -rf "$out" && mkdir -p "$out"
    measure "lcov-$n" "$UCOV" report -q "$tree" --lcov "$out/a.info"
    measure "json-$n" "$UCOV" report -q "$tree" --json "$out/a.json"
    measure "html-$n" "$UCOV" report -q "$tree" --html "$out/a.html"
    measure "htmldir-$n" "$UCOV" report -q "$tree" --html-dir "$out/dir"
    [ "$r" = 0 ] && du -sk "$out/a.info" "$out/a.json" "$out/a.html" "$out/dir" |
      awk -v n="$n" '{print "size-" n, $1, $2}' >>"$work/sizes.txt"
  done
  rm -rf "$out" && mkdir -p "$out"
  measure "merge10-$units" "$UCOV" merge -q "$work/k$units"/trees/{0..9} -o "$out/m.info"
  measure "merge1-$units" "$UCOV" merge -q "$work/k$units/trees/0" -o "$out/m1.info"
done
# The peers, once each on the full-size tree; each takes the tree as it is.
tree=$work/k$units/trees/0
awk '{print $1}' /proc/loadavg >>"$work/load.txt"
rm -rf "$out" && mkdir -p "$out/gcovr"
limited "lcov-capture-$units" lcov -q --capture --rc lcov_branch_coverage=1 -d "$tree" -o "$out/cap.info"
if [ -s "$out/cap.info" ]; then
  # (lcov writes as it goes: stopped, its tracefile holds the units it reached,
  # and genhtml is timed on those)
  echo "capunits-$units $(grep '^SF:' "$out/cap.info" | grep -vc '/include/linux/gen_') 0" >>"$raw"
  limited "genhtml-$units" genhtml -q --rc lcov_branch_coverage=1 -o "$out/genhtml" "$out/cap.info"
else
  echo "genhtml-$units notrun 0" >>"$raw"
fi
limited "gcovr-$units" gcovr -j 2 -r "$work/k$units/src" --html-details -o "$out/gcovr/index.html" "$tree"
awk '{print $1}' /proc/loadavg >>"$work/load.txt"
python3 - "$raw" "$rounds" "$work/load.txt" "$work/sizes.txt" "$half" "$units" "$double" \
  "${lines[$half]}" "${lines[$units]}" "${lines[$double]}" "$limit" \
  >"$here/RESULTS-kernel-report.md" <<'PY'
import datetime, statistics, subprocess, sys
raw, rounds, loadf, sizesf = sys.argv[1:5]
sizes = [int(x) for x in sys.argv[5:8]]
lines = dict(zip(sizes, (int(x) for x in sys.argv[8:11])))
limit = int(sys.argv[11])
loads = [float(x) for x in open(loadf)]
t, mem, stopped = {}, {}, {}
for l in open(raw):
    name, a, b = l.split()
    if a in ("stopped", "failed", "notrun"):
        stopped[name] = a
        continue
    t.setdefault(name, []).append(float(a))
    mem.setdefault(name, []).append(int(b))
disk = {}
for l in open(sizesf):
    name, kib, path = l.split()
    disk[(name, path.rsplit("/", 1)[-1])] = int(kib)
gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
full = sizes[1]
out = ["# Reports at a kernel's size", "",
       f"Generated by `bench/kernel_report_run.sh {rounds} {full} {limit}` on {datetime.date.today()}: "
       f"{gcc}; 2 cores; load average {min(loads):.2f} to {max(loads):.2f}. Wall time in seconds "
       "(minimum and median over the rounds), peak resident memory of the largest process "
       "(GNU time), sizes and formats alternating within each round.", "",
       "The trees (bench/gen_kernel_tree.py) are shaped like a kernel's debugfs gcov output: each "
       "`.gcda` beside a symbolic link to its `.gcno`, the sources in a tree of their own, units under "
       "kernel-like directories (about 30 a directory), four in five named relative to the source "
       "tree and one in five by an absolute path, every unit including the same four headers of "
       "static inline functions. The units are gcc 12 `--coverage` output of 48 generated "
       "kernel-style templates (4 to 10 functions each: error paths with goto, switches, loops, "
       "compound conditions, a quarter never called), each run with ten different inputs; a unit is "
       "a template under its own path and names, with one run's counts.", "",
       "| units | source lines |", "|---:|---:|"]
out += [f"| {n:,} | {lines[n]:,} |" for n in sizes]
out += ["", "## ucov report and ucov merge", "",
        "| what | units | min s | median s | peak MiB | output MiB | s per million lines |",
        "|---|---:|---:|---:|---:|---:|---:|"]
files = {"lcov": "a.info", "json": "a.json", "html": "a.html", "htmldir": "dir"}
label = {"lcov": "`report --lcov`", "json": "`report --json`", "html": "`report --html`",
         "htmldir": "`report --html-dir`"}
worst_t, worst_m = 0.0, 0
for k in ("lcov", "json", "html", "htmldir"):
    for n in sizes:
        a = t.get(f"{k}-{n}")
        if not a:
            out.append(f"| {label[k]} | {n:,} | failed | | | | |")
            continue
        m = max(mem[f"{k}-{n}"]) / 1024
        worst_t, worst_m = max(worst_t, max(a)), max(worst_m, m)
        sz = disk.get((f"size-{n}", files[k]), 0) / 1024
        out.append(f"| {label[k]} | {n:,} | {min(a):.2f} | {statistics.median(a):.2f} | {m:.0f} | "
                   f"{sz:.0f} | {statistics.median(a) / lines[n] * 1e6:.2f} |")
for k, what in (("merge1", "`merge` of one run"), ("merge10", "`merge` of ten runs")):
    a = t.get(f"{k}-{full}")
    if a:
        m = max(mem[f"{k}-{full}"]) / 1024
        worst_t, worst_m = max(worst_t, max(a)), max(worst_m, m)
        runs = 10 if k == "merge10" else 1
        out.append(f"| {what} | {full:,} | {min(a):.2f} | {statistics.median(a):.2f} | {m:.0f} | | "
                   f"{statistics.median(a) / lines[full] / runs * 1e6:.2f} |")
out += ["", f"Slowest ucov run: {worst_t:.1f} s; largest peak memory: {worst_m:.0f} MiB. From half to "
        "double size (four times the units), the median time of each output grows by "]
grow = []
for k in ("lcov", "json", "html", "htmldir"):
    a, b = t.get(f"{k}-{sizes[0]}"), t.get(f"{k}-{sizes[2]}")
    if a and b:
        grow.append(f"{label[k]} {statistics.median(b) / statistics.median(a):.1f}x")
out[-1] += ", ".join(grow) + " (linear: 4.0x)."
out += ["", f"## The peers on the {full:,}-unit tree", "",
        f"Once each, stopped after {limit} s. lcov 1.16 `--capture` (it runs gcov once for each "
        "`.gcda`) and genhtml on its tracefile; gcovr `--html-details -j 2` (it runs gcov too). "
        "Branch records on for lcov, as ucov writes them.", "",
        "| tool | s | peak MiB | vs ucov (`report --html-dir`) |", "|---|---:|---:|---:|"]
ref = statistics.median(t[f"htmldir-{full}"]) if t.get(f"htmldir-{full}") else None
cap = t.get(f"capunits-{full}")
for name, what in ((f"lcov-capture-{full}", "lcov --capture"), (f"genhtml-{full}", "genhtml"),
                   (f"gcovr-{full}", "gcovr --html-details")):
    if cap and cap[0] < full and name.startswith("lcov-capture"):
        what += f" (it reached {cap[0]:,.0f} of {full:,} units)"
    if cap and cap[0] < full and name.startswith("genhtml"):
        what += f" (on those {cap[0]:,.0f} units only)"
    if name in stopped:
        s = stopped[name]
        why = {"stopped": f"did not finish in {limit} s", "failed": "failed",
               "notrun": "not run (no tracefile)"}[s]
        out.append(f"| {what} | {why} | | |")
    elif name in t:
        ratio = f"{t[name][0] / ref:.0f}x" if ref else ""
        out.append(f"| {what} | {t[name][0]:.1f} | {mem[name][0] / 1024:.0f} | {ratio} |")
print("\n".join(out))
PY
cat "$here/RESULTS-kernel-report.md"
