#!/usr/bin/env bash
# Report benchmark on SQLite (Debian source package, the 243k-line amalgamation
# built from it): symbolize every trace-pc call site of the shell built
# `ucov cc --trace -O2 -g` with ucov, addr2line -afi, llvm-symbolizer -i and
# eu-addr2line -fi (wall time and peak memory); and write a full HTML report of
# one run's .gcda with ucov, genhtml (after lcov --capture) and gcovr
# --html-details. Variants alternate within each round; minimums and medians.
# Then the biggest file's view (sqlite3.c, at a line deep inside) opened in
# headless Chromium from ucov's page and from genhtml's, and a generated
# 500,000-line file from ucov's: the time to the first render of that line's
# screen and the renderer's peak memory (bench/browser_open.py), beside an
# empty page's. Writes bench/RESULTS-report.md.   bash bench/report_run.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work/report
rounds=${1:-3}
mkdir -p "$work"
bash "$root/scripts/deps.sh"
command -v tclsh >/dev/null || apt-get install -y -qq --no-install-recommends tcl >/dev/null
bash "$here/fetch_source.sh" sqlite3 "$here/work/sqlite"
cmake -S "$root" -B "$work/ucov" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$work/ucov" -j 2 >/dev/null
UCOV=$work/ucov/ucov
amal=$work/amal
if [ ! -f "$amal/sqlite3.c" ]; then
  mkdir -p "$amal"
  (cd "$amal" && "$here/work/sqlite/configure" --disable-tcl >/dev/null &&
    make sqlite3.c shell.c >/dev/null 2>&1)
fi
DEFS=(-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION)
# The traced shell: every basic block calls the trace-pc hook.
if [ ! -x "$work/sqlite3-trace" ]; then
  CC=gcc "$UCOV" cc --trace -O2 -g "${DEFS[@]}" -c "$amal/sqlite3.c" -o "$work/sqlite3-trace.o"
  CC=gcc "$UCOV" cc --trace -O2 -g "${DEFS[@]}" -I"$amal" -c "$amal/shell.c" -o "$work/shell-trace.o"
  CC=gcc "$UCOV" cc --trace "$work/sqlite3-trace.o" "$work/shell-trace.o" -lm -o "$work/sqlite3-trace"
fi
"$UCOV" symbolize --call-sites --binary "$work/sqlite3-trace" >"$work/sites.txt"
# The gcov shell, run once on a workload.
gc=$work/gcov
if [ ! -x "$gc/sqlite3" ]; then
  mkdir -p "$gc"
  cp "$amal/sqlite3.c" "$amal/shell.c" "$amal/sqlite3.h" "$gc/"
  (cd "$gc" && gcc --coverage -O0 "${DEFS[@]}" -I. sqlite3.c shell.c -lm -o sqlite3)
fi
rm -f "$gc"/*.gcda
cat >"$work/workload.sql" <<'SQL'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000)
INSERT INTO t SELECT x, hex(randomblob(8)), x * 0.5 FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(c), max(b) FROM t WHERE a % 7 = 3;
UPDATE t SET c = c * 2 WHERE a < 5000;
DELETE FROM t WHERE a > 15000;
SELECT b, count(*) FROM t GROUP BY substr(b, 1, 2) ORDER BY 2 DESC LIMIT 5;
CREATE VIEW v AS SELECT a, upper(b) AS ub FROM t;
SELECT ub FROM v WHERE a BETWEEN 100 AND 110;
SQL
"$gc/sqlite3" :memory: <"$work/workload.sql" >/dev/null
sites=$(wc -l <"$work/sites.txt")
SYM=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14)
raw=$work/raw.txt
: >"$raw"
# shellcheck source=bench/measure.sh
. "$here/measure.sh"
B=$work/sqlite3-trace
: >"$work/load.txt"
for ((r = 0; r < rounds; r++)); do
  awk '{print $1}' /proc/loadavg >>"$work/load.txt"
  measure sym-ucov "$UCOV" symbolize --addr2line --binary "$B" "$work/sites.txt"
  measure sym-addr2line sh -c "addr2line -afi -e '$B' <'$work/sites.txt'"
  measure sym-llvm sh -c "'$SYM' --obj='$B' -i <'$work/sites.txt'"
  # (eu-addr2line takes minutes here: once.)
  [ $r = 0 ] && measure sym-eu sh -c "eu-addr2line -afi -e '$B' <'$work/sites.txt'"
  rm -rf "$work/html-"*
  measure html-ucov "$UCOV" report -q "$gc" --html "$work/html-ucov.html"
  measure html-ucov-gcov "$UCOV" report -q "$gc" --gcov-tool gcov --html "$work/html-ucov-gcov.html"
  measure lcov-capture lcov -q --capture --directory "$gc" -o "$work/cap.info"
  measure html-genhtml genhtml -q -o "$work/html-genhtml" "$work/cap.info"
  mkdir -p "$work/html-gcovr"
  measure html-gcovr gcovr -r "$gc" --html-details -o "$work/html-gcovr/index.html" "$gc"
done
# The views in the browser: the pages of the last round, and a generated file.
line=200000
gpage=$(find "$work/html-genhtml" -name 'sqlite3.c.gcov.html' | head -1)
python3 "$root/tests/e2e/gen_lines.py" "$work" 500000
"$UCOV" report -q "$work/huge.info" --html "$work/html-huge.html"
echo '<!DOCTYPE html><html><body>empty</body></html>' >"$work/empty.html"
# a tree of 100,000 files, for the file list
python3 - "$work/list.info" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(100000):
        f.write(f"SF:/big/dir{i % 1000}/sub{i % 7}/file{i}.c\nFN:1,f{i}\nFNDA:{i % 3},f{i}\n"
                f"DA:1,{i % 3}\nDA:2,{i % 2}\nDA:3,0\nend_of_record\n")
PY
"$UCOV" report -q "$work/list.info" --html "$work/html-list.html"
# open NAME PAGE#FRAGMENT ELEMENT: one opening, as "NAME SECONDS PEAK_KIB".
open_view() {
  local r
  r=$(python3 "$here/browser_open.py" "$2" "$3" "$work/chromium-$1") || { echo "bench: $1 failed" >&2; return 0; }
  rm -rf "$work/chromium-$1"
  local ms kib
  read -r ms kib <<<"$r"
  [ "$ms" -ge 0 ] && echo "$1 $(awk -v m="$ms" 'BEGIN{printf "%.3f", m / 1000}') $kib" >>"$raw" ||
    echo "bench: $1: the line was not rendered" >&2
}
# open_list: the file list of 100,000 files, as "list-load|list-sort|list-search SECONDS PEAK_KIB".
open_list() {
  local r load sort search kib
  r=$(python3 "$here/browser_open.py" "$work/html-list.html" list "$work/chromium-list") || { echo "bench: list failed" >&2; return 0; }
  rm -rf "$work/chromium-list"
  read -r load sort search kib <<<"$r"
  awk -v l="$load" -v s="$sort" -v f="$search" -v k="$kib" 'BEGIN {
    printf "list-load %.3f %s\nlist-sort %.3f %s\nlist-search %.3f %s\n", l / 1000, k, s / 1000, k, f / 1000, k
  }' >>"$raw"
}
for ((r = 0; r < rounds; r++)); do
  awk '{print $1}' /proc/loadavg >>"$work/load.txt"
  open_list
  open_view view-ucov "$work/html-ucov.html#file=sqlite3.c&line=$line" "L$line"
  open_view view-genhtml "$gpage#$line" "name=$line"
  open_view view-huge "$work/html-huge.html#file=huge.c&line=400002" L400002
  open_view view-empty "$work/empty.html" -
done
awk '{print $1}' /proc/loadavg >>"$work/load.txt"
python3 - "$raw" "$rounds" "$sites" "$(wc -l <"$amal/sqlite3.c")" "$work/load.txt" \
  >"$here/RESULTS-report.md" <<'PY'
import datetime, statistics, subprocess, sys
raw, rounds, sites, lines, loadf = sys.argv[1:]
loads = [float(x) for x in open(loadf)]
t, mem = {}, {}
for line in open(raw):
    name, secs, kib = line.split()
    t.setdefault(name, []).append(float(secs))
    mem.setdefault(name, []).append(int(kib))
def row(name, label, base):
    a = t.get(name)
    if not a:
        return f"| {label} | failed | | | | |"
    ratio = min(t[base]) / min(a) if base in t and min(a) > 0 else float("nan")
    return (f"| {label} | {min(a):.2f} | {statistics.median(a):.2f} | {max(mem[name]) / 1024:.0f} | "
            f"{ratio:.1f}x |")
gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
out = ["# Report benchmark results\n",
       f"Generated by `bench/report_run.sh` on {datetime.date.today()}: {gcc}; SQLite 3.40.1 (Debian "
       f"source package), the amalgamation ({int(lines):,} lines of C) and its shell; {rounds} rounds, "
       "variants alternating; wall time in seconds (minimum, median), peak resident memory; load "
       f"average {min(loads):.2f} to {max(loads):.2f} during the rounds (2 cores).\n",
       f"## Symbolizing every trace-pc call site ({int(sites):,} sites)\n",
       "Built `ucov cc --trace -O2 -g` (gcc). Each tool gets all the addresses at once and prints "
       "the inline chain of each.\n",
       "| tool | min s | median s | peak MiB | speed vs addr2line |", "|---|---|---|---|---|",
       row("sym-ucov", "ucov symbolize --addr2line", "sym-addr2line"),
       row("sym-addr2line", "addr2line -afi", "sym-addr2line"),
       row("sym-llvm", "llvm-symbolizer -i", "sym-addr2line"),
       row("sym-eu", "eu-addr2line -afi", "sym-addr2line"),
       "\n## A full HTML report from one run's .gcda\n",
       "Built `gcc --coverage -O0`, run once on a 20,000-row SQL workload. genhtml needs a tracefile "
       "first (`lcov --capture`, timed apart); ucov and gcovr start from the .gcda. ucov reads the "
       ".gcno/.gcda itself; `--gcov-tool gcov` is its former path, through gcov's JSON.\n",
       "| tool | min s | median s | peak MiB | speed vs genhtml |", "|---|---|---|---|---|",
       row("html-ucov", "ucov report --html", "html-genhtml"),
       row("html-ucov-gcov", "ucov report --html --gcov-tool gcov", "html-genhtml"),
       row("lcov-capture", "lcov --capture", "html-genhtml"),
       row("html-genhtml", "genhtml", "html-genhtml"),
       row("html-gcovr", "gcovr --html-details", "html-genhtml")]
if "html-ucov" in t and "lcov-capture" in t and "html-genhtml" in t:
    both = min(t["lcov-capture"]) + min(t["html-genhtml"])
    g, u = t["html-genhtml"], t["html-ucov"]
    out.append(f"\nlcov --capture + genhtml: {both:.2f} s, {both / min(u):.1f}x ucov's time. genhtml "
               f"alone on the ready tracefile: {min(g) / min(u):.1f}x ucov's time (medians: "
               f"{statistics.median(g) / statistics.median(u):.1f}x); peak memory "
               f"{max(mem['html-ucov']) / 1024:.0f} MiB against genhtml's "
               f"{max(mem['html-genhtml']) / 1024:.0f} MiB.")
out += ["\n## The biggest file's view in Chromium\n",
        "sqlite3.c's view opened at line 200,000 in headless Chromium (a 1200x900 frame), from "
        "ucov's page (`#file=sqlite3.c&line=200000`) and from genhtml's page of that file "
        "(`#200000`), and a generated 500,000-line file's view from ucov's page; one browser per "
        "opening. Time: from the frame's navigation to its load event with the line laid out "
        "(bench/browser_open.py). Memory: the renderer process's peak resident set (VmHWM), "
        "beside an empty page's.\n",
        "| view | min s | median s | renderer peak MiB | speed vs genhtml |", "|---|---|---|---|---|",
        row("view-ucov", "ucov, sqlite3.c", "view-genhtml"),
        row("view-genhtml", "genhtml, sqlite3.c", "view-genhtml"),
        row("view-huge", "ucov, 500,000 generated lines", "view-genhtml")]
out += ["\n## The file list of 100,000 files in Chromium\n",
        "ucov's page of a generated tree of 100,000 files (three lines and a function each), in "
        "the same frame: the summary's load (to its load event, laid out), a click on the Lines "
        "heading (sorted, laid out) and a word typed in the search box (kept rows laid out); in "
        "milliseconds.\n",
        "| step | min ms | median ms | renderer peak MiB |", "|---|---|---|---|"]
for name, label in (("list-load", "open"), ("list-sort", "sort by line coverage"),
                    ("list-search", "search \"file777\"")):
    a = t.get(name)
    out.append(f"| {label} | {min(a) * 1000:.0f} | {statistics.median(a) * 1000:.0f} | "
               f"{max(mem[name]) / 1024:.0f} |" if a else f"| {label} | failed | | |")
if "view-empty" in mem:
    out.append(f"\nAn empty page's renderer peaks at {max(mem['view-empty']) / 1024:.0f} MiB in the "
               "same browser: the floor under every row above.")
print("\n".join(out))
PY
cat "$here/RESULTS-report.md"
