#!/usr/bin/env bash
# Redis 7 (Debian `redis` source package) through its own Makefile, -O2, three
# ways: plain gcc, CC="ucov cc --trace" (today's trace build) and CC="ucov cc
# --trace --dormant"; each server driven by the plain build's redis-benchmark
# (GET and SET, pipelined), nobody tracing, the variants alternating. Also:
# the dormant build's site table against objdump's sites of the trace build,
# and the dormant server traced from its start (LD_PRELOAD client) serves and
# records. Appends to bench/RESULTS-dormant.md.   bash bench/dormant_redis.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work/dormant-redis
rounds=${1:-7}
mkdir -p "$work"
bash "$root/scripts/deps.sh"
bash "$here/fetch_source.sh" redis "$here/work/redis"
cmake -S "$root" -B "$work/ucov" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/ucov" -j 2 >/dev/null
UCOV=$work/ucov/ucov
build() { # NAME CC
  local dir=$work/redis-$1
  [ -x "$dir/src/redis-server" ] && return 0
  rm -rf "$dir" && cp -rL "$here/work/redis" "$dir"
  make -C "$dir" -j2 MALLOC=libc BUILD_TLS=no USE_SYSTEMD=no CC="$2" OPTIMIZATION=-O2 \
    >"$dir.log" 2>&1
}
build plain gcc
build trace "$UCOV cc --trace"
build dormant "$UCOV cc --trace --dormant"
python3 "$root/tests/e2e/dormant_sites.py" "$work/redis-trace/src/redis-server" \
  "$work/redis-dormant/src/redis-server" >"$work/sites.txt"
port=7393
BENCH=$work/redis-plain/src/redis-benchmark
CLI=$work/redis-plain/src/redis-cli
serve() { # NAME [ENV...]: start the server, wait for it
  local name=$1
  shift
  env "$@" "$work/redis-$name/src/redis-server" --port $port --save '' --appendonly no \
    >"$work/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do "$CLI" -p $port ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}
stop() {
  "$CLI" -p $port shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
}
raw=$work/raw.txt
: >"$raw"
awk '{print $1}' /proc/loadavg >"$work/load.txt"
variants=(plain trace dormant)
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < 3; k++)); do
    v=${variants[$(((k + r) % 3))]}
    serve "$v"
    "$BENCH" -p $port -n 200000 -P 16 -q -t get,set --csv >"$work/b.csv"
    stop
    awk -F, -v v="$v" '/"(GET|SET)"/ { gsub(/"/, ""); print v, $1, $2 }' "$work/b.csv" >>"$raw"
  done
done
awk '{print $1}' /proc/loadavg >>"$work/load.txt"
# the dormant server traced from its start: it serves, and the trace has records
rt=$work/rt # (the runtime directory must be private)
mkdir -p "$rt" && chmod 700 "$rt"
serve dormant LD_PRELOAD="$work/ucov/tests/libtrace_preload.so" UCOV_RUNTIME_DIR="$rt"
"$BENCH" -p $port -n 20000 -q -t get >"$work/traced.txt"
rm -rf "$work/traced.pull"
UCOV_RUNTIME_DIR=$rt "$UCOV" pull --pid "$pid" -o "$work/traced.pull" >/dev/null
stop
python3 - "$raw" "$rounds" "$work" >>"$here/RESULTS-dormant.md" <<'PY'
import glob, statistics, struct, sys
raw, rounds, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rps = {}
for line in open(raw):
    v, test, x = line.split()
    rps.setdefault((v, test), []).append(float(x))
loads = [float(x) for x in open(f"{work}/load.txt").read().split()]
sites = open(f"{work}/sites.txt").read().split()
kc = sorted(glob.glob(f"{work}/traced.pull/kcov/*.kcov"))
recs = struct.unpack_from("<Q", open(kc[0], "rb").read(8))[0] if kc else 0
out = ["\n## Redis\n",
       f"`bash bench/dormant_redis.sh {rounds}`: Redis (Debian `redis` source package) built by its "
       "own Makefile at -O2 (MALLOC=libc) plain, with `ucov cc --trace` and with `ucov cc --trace "
       "--dormant`; each server driven by the plain build's `redis-benchmark -n 200000 -P 16 -t "
       f"get,set`, nobody tracing, {rounds} rounds, the variants alternating (load average "
       f"{min(loads):.2f} to {max(loads):.2f}). Requests per second, best and median round.\n",
       "| variant | GET best | GET median | SET best | SET median | x plain (GET median) |",
       "|---|---:|---:|---:|---:|---:|"]
base = statistics.median(rps[("plain", "GET")])
for v, label in (("plain", "plain gcc -O2"), ("dormant", "ucov cc --trace --dormant"),
                 ("trace", "ucov cc --trace (today)")):
    g, s = rps[(v, "GET")], rps[(v, "SET")]
    out.append(f"| {label} | {max(g):,.0f} | {statistics.median(g):,.0f} | {max(s):,.0f} | "
               f"{statistics.median(s):,.0f} | {statistics.median(g) / base:.3f} |")
out.append(f"\nThe dormant server's site table against objdump's sites of the trace build: "
           f"`{' '.join(sites)}` (tests/e2e/dormant_sites.py). Traced from its start by the "
           f"LD_PRELOAD client, it served `redis-benchmark -t get` and its main thread's buffer "
           f"held {recs:,} PCs when pulled.\n")
print("\n".join(out))
PY
tail -20 "$here/RESULTS-dormant.md"
