#!/usr/bin/env bash
# Redis benchmark: a daemon measured while it runs. Redis 7.0.15 (Debian
# source package) built through its own Makefile with CC="ucov cc --gcov"
# and CC="ucov cc --trace -g -O2", the server driven by redis-benchmark.
#  - gcov: coverage pulled live (`ucov pull`), then the .gcda written at
#    shutdown read by ucov and by lcov: line counts compared file by file;
#    HTML from the .gcda: ucov against lcov --capture + genhtml.
#  - trace: the main thread traced from its start (a 4M-word KCOV buffer),
#    pulled live; every PC symbolized by ucov and by addr2line (wall time,
#    peak memory); the PCs no call site explains (tail jumps, before) and
#    the sites given a wrong line (a line table's end row, before).
# Variants alternate within each round; minimums and medians; the load.
# Writes bench/RESULTS-redis.md.   bash bench/redis_run.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work/redis-bench
rounds=${1:-5}
mkdir -p "$work"
bash "$root/scripts/deps.sh"
bash "$here/fetch_source.sh" redis "$here/work/redis"
cmake -S "$root" -B "$work/ucov" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/ucov" -j 2 >/dev/null
UCOV=$work/ucov/ucov
PRELOAD=$work/ucov/tests/libtrace_preload.so
export UCOV_RUNTIME_DIR=$work/rt
mkdir -p "$UCOV_RUNTIME_DIR" && chmod 700 "$UCOV_RUNTIME_DIR"
build() { # MODE FLAGS...
  local mode=$1 dir=$work/redis-$1
  shift
  [ -x "$dir/src/redis-server" ] && return 0
  rm -rf "$dir" && cp -rL "$here/work/redis" "$dir"
  make -C "$dir" -j2 MALLOC=libc BUILD_TLS=no USE_SYSTEMD=no CC="$UCOV cc --$mode" \
    OPTIMIZATION="$*" >"$dir.log" 2>&1
}
build gcov -O1
build trace -O2
port=7391
# serve MODE: start the server (traced from its start when MODE is trace),
# drive it, pull it live into $work/MODE.pull; leave it running ($pid).
serve() {
  local mode=$1 dir=$work/redis-$1 env=()
  [ "$mode" = trace ] && env=(LD_PRELOAD="$PRELOAD")
  env "${env[@]}" "$dir/src/redis-server" --port $port --save '' --appendonly no \
    >"$work/$mode.server.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do "$dir/src/redis-cli" -p $port ping >/dev/null 2>&1 && break; sleep 0.1; done
  "$dir/src/redis-benchmark" -p $port -n 20000 -q -t set,get,incr,lpush,lpop,sadd,hset,zadd,lrange_100 \
    >"$work/$mode.bench.txt" 2>&1
  rm -rf "$work/$mode.pull"
  "$UCOV" pull --pid $pid -o "$work/$mode.pull" >/dev/null
}
stop() {
  "$work/redis-$1/src/redis-cli" -p $port shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
}
rm -f "$work"/redis-gcov/src/*.gcda "$work"/redis-gcov/deps/*/*.gcda "$work"/redis-gcov/deps/*/*/*.gcda
serve gcov
live=$(find "$work/gcov.pull" -name '*.gcda' | wc -l)
stop gcov
serve trace
stop trace

raw=$work/raw.txt
: >"$raw"
# shellcheck source=bench/measure.sh
. "$here/measure.sh"
G=$work/redis-gcov
B=$work/redis-trace/src/redis-server
kcov=$(find "$work/trace.pull/kcov" -name '*.kcov' | sort | head -1)
# The traced PCs as ELF addresses of redis-server (minus its load bias), one a line.
python3 - "$kcov" "$work/trace.pull/modules" "$B" >"$work/pcs.txt" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<Q", data)[0]
pcs = struct.unpack_from(f"<{n}Q", data, 8)
bias = None
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 7 and f[4] == "r-x" and f[-1] == sys.argv[3]:
        bias = int(f[3], 16)
out = sys.stdout
for pc in pcs:
    out.write("0x%x\n" % ((pc & ((1 << 62) - 1)) - bias - 1))
PY
pcs=$(wc -l <"$work/pcs.txt")
load() { awk '{print $1}' /proc/loadavg >>"$work/load.txt"; }
: >"$work/load.txt"
for ((r = 0; r < rounds; r++)); do
  load
  rm -rf "$work/html-"*
  measure html-ucov "$UCOV" report -q "$G" --html "$work/html-ucov.html"
  measure lcov-capture lcov -q --capture --directory "$G" -o "$work/cap.info"
  measure html-genhtml genhtml -q -o "$work/html-genhtml" "$work/cap.info"
  measure trace-ucov "$UCOV" report -q "$work/trace.pull" --lcov "$work/trace.info"
  measure sym-ucov "$UCOV" symbolize --addr2line --binary "$B" "$work/pcs.txt"
  [ "$r" -lt 2 ] && measure sym-addr2line sh -c "addr2line -afi -e '$B' <'$work/pcs.txt'"
done
load
"$UCOV" report -q "$G" --lcov "$work/ucov.info"
"$UCOV" report "$work/trace.pull" --lcov "$work/trace.info" 2>"$work/trace.err" >/dev/null || true
"$UCOV" symbolize --call-sites --binary "$B" >"$work/sites.txt"
"$UCOV" symbolize --addr2line --binary "$B" "$work/sites.txt" >"$work/sites.sym"
python3 - "$raw" "$rounds" "$work" "$live" "$pcs" <<'PY' >"$here/RESULTS-redis.md"
import datetime, re, statistics, subprocess, sys
raw, rounds, work, live, pcs = sys.argv[1:]
t, mem = {}, {}
for line in open(raw):
    name, secs, kib = line.split()
    t.setdefault(name, []).append(float(secs))
    mem.setdefault(name, []).append(int(kib))
def load(p):
    d, f = {}, None
    for l in open(p):
        l = l.strip()
        if l.startswith("SF:"):
            f = l[3:]
            d.setdefault(f, {})
        elif l.startswith("DA:"):
            a, b = l[3:].split(",")[:2]
            d[f][int(a)] = d[f].get(int(a), 0) + int(b)
    return d
lc, uc = load(f"{work}/cap.info"), load(f"{work}/ucov.info")
same = [f for f in lc if f in uc and lc[f] == uc[f]]
only_u = sorted(set(uc) - set(lc))
def row(name, label, base):
    a = t.get(name)
    if not a:
        return f"| {label} | failed | | | |"
    ratio = min(t[base]) / min(a) if base in t and min(a) > 0 else float("nan")
    return f"| {label} | {min(a):.2f} | {statistics.median(a):.2f} | {max(mem[name]) / 1024:.0f} | {ratio:.1f}x |"
loads = [float(x) for x in open(f"{work}/load.txt")]
err = open(f"{work}/trace.err").read()
m = re.search(r"(\d+) of (\d+) PCs are no trace-pc call site", err)
unmatched = f"{m.group(1)} of {m.group(2)}" if m else "none"
sites = sum(1 for _ in open(f"{work}/sites.txt"))
syms = open(f"{work}/sites.sym").read().split("\n")
readc = sum(1 for l in syms if l.endswith("hiredis/read.c:411"))
gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
out = ["# Redis benchmark results\n",
       f"Generated by `bench/redis_run.sh` on {datetime.date.today()}: {gcc}; Redis 7.0.15 (Debian "
       "source package) built through its own Makefile (`MALLOC=libc`), the server driven by "
       f"redis-benchmark (9 tests, 20,000 requests each); {rounds} rounds, variants alternating; wall "
       "time in seconds (minimum, median), peak resident memory; load average "
       f"{min(loads):.2f} to {max(loads):.2f} during the rounds.\n",
       "## gcov: a running daemon\n",
       f"`ucov cc --gcov -O1`. Pulled live: {live} .gcda. After shutdown, the .gcda read by ucov and "
       f"by `lcov --capture`: line counts equal in {len(same)} of {len(lc)} files lcov reports; "
       f"ucov also reports {len(only_u)} files compiled and never linked into a program that ran "
       f"(at 0%: {', '.join(x.split('/')[-1] for x in only_u[:8])}).\n",
       "| tool | min s | median s | peak MiB | speed vs genhtml |", "|---|---|---|---|---|",
       row("html-ucov", "ucov report --html (from .gcda)", "html-genhtml"),
       row("lcov-capture", "lcov --capture", "html-genhtml"),
       row("html-genhtml", "genhtml (ready tracefile)", "html-genhtml")]
if all(k in t for k in ("html-ucov", "lcov-capture", "html-genhtml")):
    both = min(t["lcov-capture"]) + min(t["html-genhtml"])
    out.append(f"\nlcov --capture + genhtml: {both:.2f} s, {both / min(t['html-ucov']):.1f}x ucov's time.")
out += ["\n## trace: every PC of the main thread\n",
        f"`ucov cc --trace -g -O2`, traced from its start by an LD_PRELOAD KCOV client (a 4M-word "
        f"buffer), pulled live: {int(pcs):,} PCs. {sites:,} trace-pc sites (calls and tail jumps); "
        f"PCs no site explains: {unmatched}; sites symbolized to hiredis/read.c:411 (the line "
        f"table end row): {readc}.\n",
        "| tool | min s | median s | peak MiB | speed vs addr2line |", "|---|---|---|---|---|",
        row("sym-ucov", "ucov symbolize --addr2line (every PC)", "sym-addr2line"),
        row("sym-addr2line", "addr2line -afi (every PC)", "sym-addr2line"),
        row("trace-ucov", "ucov report of the pulled trace", "sym-addr2line")]
print("\n".join(out))
PY
cat "$here/RESULTS-redis.md"
