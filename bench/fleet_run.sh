#!/usr/bin/env bash
# Fleet load test: COLLECTORS concurrent collectors (default 64) push real
# snapshots of a live program, PER pushes each (default 100), into one
# PostgreSQL store (a server of the bench's own, fsync on), a fraction of the
# pushes killed at a random moment and retried; then on to TOTAL pushes (default
# 10,000) to see how the figures move as the store grows. The program is Lua 5.4
# (Debian source package) built with `ucov cc --gcov`, running bench/workload.lua
# at four sizes; after each, `ucov pull --reset` takes a snapshot. Checks exact
# totals: every line, function, branch and counter in the store is the sum of
# the pushes made, each pushed once whatever was killed. Writes
# bench/RESULTS-fleet.md.
#   bash bench/fleet_run.sh [COLLECTORS] [PER] [TOTAL] [KILL_FRACTION]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work/fleet
ncoll=${1:-64}
per=${2:-100}
total=${3:-10000}
kill=${4:-0.05}
mkdir -p "$work"
bash "$root/scripts/deps.sh"
bash "$here/fetch_source.sh" lua5.4 "$here/work/lua"
cmake -S "$root" -B "$work/ucov" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$work/ucov" -j 2 >/dev/null
UCOV=$work/ucov/ucov
# The live program and its four snapshots.
lua=$work/lua
if [ ! -x "$lua/lua" ]; then
  rm -rf "$lua" && mkdir -p "$lua"
  cp "$here"/work/lua/src/*.[ch] "$lua/"
  rm -f "$lua/luac.c"
  (cd "$lua" && "$UCOV" cc --gcov -O0 -DLUA_USE_POSIX ./*.c -lm -ldl -o lua)
fi
src_lines=$(cat "$lua"/*.[ch] | wc -l)
rm -rf "$work/snaps" "$work/phase" && mkdir -p "$work/snaps" "$work/phase"
cat >"$work/phases.lua" <<EOF
for s = 1, 4 do
  SCALE = s
  dofile("$here/workload.lua")
  io.open("$work/phase/done" .. s, "w"):close()
  while not io.open("$work/phase/go" .. s) do os.execute("sleep 0.05") end
end
EOF
(cd "$lua" && exec ./lua "$work/phases.lua" >/dev/null) &
target=$!
for s in 1 2 3 4; do
  while [ ! -e "$work/phase/done$s" ]; do sleep 0.05; done
  "$UCOV" pull --pid "$target" --reset -o "$work/snaps/s$s" >/dev/null
  touch "$work/phase/go$s"
done
wait "$target"
rows=()
for s in 1 2 3 4; do
  "$UCOV" report -q "$work/snaps/s$s" --lcov "$work/s$s.info"
  rows+=("$(grep -c -E '^(DA|FNDA|BRDA):' "$work/s$s.info")")
  # the expected totals: each snapshot alone in a store of its own
  rm -f "$work/exp$s.db"*
  "$UCOV" push -q "$work/snaps/s$s" --store "$work/exp$s.db" --test fleet --shard x
done

# shellcheck source=tests/pg.sh
. "$root/tests/pg.sh"
PG_FSYNC=on PG_MAX_CONNECTIONS=$((ncoll + 36)) pg_start || { echo "fleet bench: no PostgreSQL server" >&2; exit 1; }
trap pg_stop EXIT
pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U ucov fleet >/dev/null
url="postgresql:///fleet?host=$PG_DIR&user=ucov"
"$UCOV" store init "$url" >/dev/null
psql=("$PG_BIN/psql" -h "$PG_DIR" -U ucov -d fleet -q -A -t -F $'\t')
[ "$(id -u)" = 0 ] && psql=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- "${psql[@]}")
loads=$(awk '{print $1}' /proc/loadavg)
# The server's CPU time: the postmaster's own and its reaped backends' (ticks).
pm=$(head -1 "$PG_DIR/data/postmaster.pid")
pm_cpu() { awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat"; }
cpu0=$(pm_cpu)
python3 "$here/fleet_load.py" "$UCOV" "$url" "$work" "$ncoll" "$per" "$total" "$kill" \
  "$work"/snaps/s{1,2,3,4} -- "${psql[@]}" >"$work/fleet.json"
loads="$loads $(awk '{print $1}' /proc/loadavg)"
server_cpu=$(awk -v a="$cpu0" -v b="$(pm_cpu)" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) / hz }')
# The store's sums, beside the expected ones.
sums_sql="SELECT 'L', s.path, l.line, '', '', SUM(l.count) FROM line_counts l JOIN sources s ON s.id = l.source_id GROUP BY s.path, l.line
UNION ALL SELECT 'F', s.path, 0, f.name, '', SUM(f.count) FROM func_counts f JOIN sources s ON s.id = f.source_id GROUP BY s.path, f.name
UNION ALL SELECT 'B', s.path, b.line, CAST(b.block AS TEXT), CAST(b.branch AS TEXT), SUM(b.taken) FROM branch_counts b JOIN sources s ON s.id = b.source_id GROUP BY s.path, b.line, b.block, b.branch
UNION ALL SELECT 'C', u.gcno, c.ident, CAST(c.idx AS TEXT), '', SUM(c.count) FROM unit_counts c JOIN gcov_units u ON u.id = c.unit_id GROUP BY u.gcno, c.ident, c.idx"
"${psql[@]}" -c "$sums_sql" >"$work/store-sums.tsv"
for s in 1 2 3 4; do
  python3 - "$work/exp$s.db" "$sums_sql" >"$work/exp$s.tsv" <<'PY'
import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("\t".join(str(x) for x in r))
PY
done
bytes_cfg=$("${psql[@]}" -c "SHOW fsync")
python3 - "$work/fleet.json" "$work/store-sums.tsv" "$work"/exp{1,2,3,4}.tsv "${rows[*]}" \
  "$src_lines" "$loads" "$bytes_cfg" "$server_cpu" "$("${psql[@]}" -c 'SHOW server_version')" \
  >"$here/RESULTS-fleet.md" <<'PY'
import datetime, json, statistics, sys
fleet = json.load(open(sys.argv[1]))
def sums(p):
    d = {}
    for l in open(p):
        *k, v = l.rstrip("\n").split("\t")
        d[tuple(k)] = int(v)
    return d
store = sums(sys.argv[2])
exp1 = [sums(p) for p in sys.argv[3:7]]
rows = [int(x) for x in sys.argv[7].split()]
src_lines, loads, fsync = int(sys.argv[8]), sys.argv[9].split(), sys.argv[10]
server_cpu, version = float(sys.argv[11]), sys.argv[12]
jobs, n, per, total = fleet["jobs"], fleet["collectors"], fleet["per"], fleet["total"]
mult = [sum(1 for j in jobs if j["snap"] == s) for s in range(4)]
want = {}
for s, e in enumerate(exp1):
    for k, v in e.items():
        want[k] = want.get(k, 0) + mult[s] * v
bad = [k for k in set(want) | set(store) if want.get(k, 0) != store.get(k, 0)]
marks = {m["pushes"]: m for m in fleet["marks"]}
stored = marks[total]["stored_pushes"] if total in marks else -1
if bad or stored != total:
    sys.exit(f"fleet bench: the store's totals are wrong: {len(bad)} keys differ "
             f"(e.g. {sorted(bad)[:3]}), {stored} pushes stored of {total}")

def pct(a, q):
    a = sorted(a)
    return a[min(len(a) - 1, int(q * len(a)))]

def stats(js):
    wall = max(j["end"] for j in js) - min(j["start"] for j in js)
    lat = [j["attempts"][-1] for j in js if not j["killed"]]
    r = sum(rows[j["snap"]] for j in js)
    return len(js) / wall, r / wall, pct(lat, 0.5), pct(lat, 0.99), wall

main = [j for j in jobs[:n * per]]
ps, rs, p50, p99, wall = stats(main)
killed = [j for j in jobs if j["killed"]]
once = [j for j in killed if j["once"]]
m1 = marks.get(1000)
mt = marks.get(total)
out = ["# A fleet of collectors into one PostgreSQL store", "",
       f"Generated by `bench/fleet_run.sh {n} {per} {total}` on {datetime.date.today()}; 2 cores "
       f"(the collectors and the server share them); load average {loads[0]} at the start, "
       f"{loads[-1]} at the end. PostgreSQL {version}, a server of the bench's own on a Unix "
       f"socket, fsync {fsync}, default settings otherwise (autovacuum on).", "",
       f"The program: Lua 5.4 (Debian source package, {src_lines:,} lines of C) built with "
       "`ucov cc --gcov`, running bench/workload.lua at four sizes; after each, `ucov pull --reset` "
       "took a snapshot of the live process. A push is one such snapshot (a fresh copy: a new run) "
       f"by `ucov push`, {min(rows):,} to {max(rows):,} count rows (DA, FNDA and BRDA records) and its "
       "units' counters. Each collector is its own shard, so the store holds one context per "
       "collector (and hour) and later pushes add onto the same rows.", "",
       f"## {n} collectors, {per} pushes each", "",
       "| pushes | wall s | pushes/s | rows/s | p50 push ms | p99 push ms | killed | of which committed |",
       "|---:|---:|---:|---:|---:|---:|---:|---:|",
       f"| {len(main):,} | {wall:.0f} | {ps:.1f} | {rs:,.0f} | {p50 * 1000:.0f} | {p99 * 1000:.0f} | "
       f"{sum(1 for j in main if j['killed'])} | {sum(1 for j in main if j['killed'] and j['once'])} |",
       "",
       f"Exact totals, checked after all {total:,} pushes: the store holds {stored:,} pushes, and each "
       f"of its {len(store):,} sums (every line, function, branch and unit counter, over all contexts) "
       "equals the sum of the pushes made (each snapshot pushed alone into a SQLite store of its own, "
       f"times the jobs that pushed it). {len(killed)} pushes were killed (SIGKILL, at a random moment "
       f"within 1.5 times the median latency) and retried from the same files; {len(once)} of the kills "
       "came after the push's commit (its retry then says \"counted once\"): a kill rarely lands between "
       "the commit and the process's exit, which tests/e2e/collect_recovery.sh covers by killing at "
       f"every system call. Failed attempts other than the kills: {fleet['failed_attempts']}.", "",
       f"The server's CPU time (the postmaster and its backends, autovacuum included): {server_cpu:,.0f} s "
       f"over the {max(j['end'] for j in jobs):,.0f} s of the run, {server_cpu / max(j['end'] for j in jobs):.2f} "
       f"cores on average, {server_cpu / total * 1000:.0f} ms per push, "
       f"{server_cpu / sum(rows[j['snap']] for j in jobs) * 1e6:.1f} us per pushed count row.", "",
       "Latency: one `ucov push` process, start to exit (reading the snapshot and the notes included), "
       "of pushes not killed.", "",
       "## As the store grows", "",
       "Each window is the 1,000 pushes that completed before its mark; the size is taken at the mark "
       "(`pg_database_size` less an empty database's). Bytes per stored row: the size over the rows of "
       "the line, function and branch tables (the unit counter rows, which the size also holds, "
       "are counted apart).", "",
       "| after pushes | pushes/s | rows/s | p50 ms | p99 ms | store MiB | stored rows | counter rows | bytes per stored row | WAL bytes per pushed row |",
       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
order = sorted(jobs, key=lambda j: j["end"])
prev = marks[0]
for k in sorted(marks):
    if not k:
        continue
    w = order[max(0, k - 1000):k]
    a, b, c, d, _ = stats(w)
    m = marks[k]
    pushed = sum(rows[j["snap"]] for j in w)
    out.append(f"| {k:,} | {a:.1f} | {b:,.0f} | {c * 1000:.0f} | {d * 1000:.0f} | "
               f"{m['bytes'] / 2**20:.0f} | {m['rows']:,} | {m['counter_rows']:,} | "
               f"{m['bytes'] / max(1, m['rows']):.0f} | {(m['wal'] - prev['wal']) / pushed:.0f} |")
    prev = m
wal = (marks[total]["wal"] - marks[0]["wal"]) / sum(rows[j["snap"]] for j in jobs)
out += ["", f"Over the whole run: {wal:.0f} bytes of WAL per pushed row (each pushed row is an "
        "insert or an update of a stored one: PostgreSQL writes a new version of the row)."]
print("\n".join(out))
PY
cat "$here/RESULTS-fleet.md"
