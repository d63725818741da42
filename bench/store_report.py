#!/usr/bin/env python3
"""Turn bench/store_run.sh's raw lines into bench/RESULTS-store.md (stdout).

usage: store_report.py RAW ROUNDS PUSHES ROWS_LUA ROWS_SQLITE LOAD WHO_LUA WHO_SQLITE
"""
import statistics
import sys
from collections import defaultdict

raw, rounds, pushes, rows_lua, rows_sqlite, load, who_lua, who_sqlite = sys.argv[1:9]
rows = {"lua": int(rows_lua), "sqlite": int(rows_sqlite)}
lat = defaultdict(list)  # (engine, input, n) -> [ms]
ingest = defaultdict(list)  # (engine, input, n) -> [rows/s]
timed = defaultdict(list)  # (what, engine, input) -> [s]
size = defaultdict(list)  # (engine, input) -> [(bytes, rows)]
counters = {}  # input -> the units' counter rows of one push
for line in open(raw):
    f = line.split()
    if f[0] == "lat":
        lat[(f[1], f[2], int(f[3]))].append(int(f[4]) / 1e6)
    elif f[0] == "ingest":
        ingest[(f[1], f[2], int(f[3]))].append(int(f[5]) / (int(f[4]) / 1e9))
    elif f[0] in ("report", "who", "merge"):
        timed[(f[0], f[1], f[2])].append(int(f[4]) / 1e9)
    elif f[0] == "size":
        size[(f[1], f[2])].append((int(f[4]), int(f[5])))
    elif f[0] == "counters":
        counters[f[1]] = int(f[2])


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


loads = [float(x) for x in open(load).read().split()]
out = []
w = out.append
w("# Store benchmark")
w("")
w("`bash bench/store_run.sh %s %s` on this VM (2 cores; load average %.2f to %.2f during the"
  % (rounds, pushes, min(loads), max(loads)))
w("run). Inputs: one run's `.gcda` tree of Lua 5.4 (`lua` on bench/workload.lua) and of")
w("SQLite's shell (the amalgamation, a short SQL workload), both from Debian source packages")
w("built with `gcc --coverage -O0`. A push of Lua is %d count rows (DA, FNDA and BRDA" % rows["lua"])
w("records), of SQLite %d. Each collector pushes %s times, each push with its own" % (rows["sqlite"], pushes))
w("`--test`/`--shard` (so none is a duplicate), into a new store per measurement. SQLite: a")
w("file (WAL). PostgreSQL 15: a server of the bench's own on a Unix socket (tests/pg.sh,")
w("`fsync=off`: a managed server with fsync on adds its commit latency to each push).")
w("Engines alternate which goes first; %s rounds; figures are over all rounds." % rounds)
w("Since schema 3 a push also stores its gcov units' nonzero counters (the store derives")
w("lines from their sums) and each notes file once: %d counter rows a push of Lua, %d of"
  % (counters.get("lua", 0), counters.get("sqlite", 0)))
w("SQLite, beside the count rows above (rows/s and bytes/row count the count rows only).")
w("")
w("## Ingest and push latency")
w("")
w("Rows/s: all pushes' count rows over the round's wall time, best and median round.")
w("Latency: one `ucov push` process, start to exit (reading the `.gcda` tree and its")
w("`.gcno` included), p50 and p99 over every push of every round.")
w("")
w("| input | engine | collectors | rows/s best | rows/s median | p50 ms | p99 ms |")
w("|---|---|---:|---:|---:|---:|---:|")
for p in ("lua", "sqlite"):
    for e in ("sqlite", "postgresql"):
        for n in (1, 4, 8):
            k = (e, p, n)
            if not ingest[k]:
                continue
            w("| %s | %s | %d | %s | %s | %.0f | %.0f |" % (
                p, e, n, format(int(max(ingest[k])), ","), format(int(statistics.median(ingest[k])), ","),
                pct(lat[k], 0.5), pct(lat[k], 0.99)))
w("")
w("## Reading back")
w("")
w("On the store of 8 collectors (%d pushes of one input): a full lcov report from the" % (8 * int(pushes)))
w("store, against `ucov merge` of the same %d `.gcda` trees into one tracefile (the two" % (8 * int(pushes)))
w("results are compared record by record); and `ucov who` for one executed line (Lua `%s`," % who_lua)
w("SQLite `%s`). Seconds, minimum and median." % who_sqlite)
w("")
w("| input | what | min s | median s |")
w("|---|---|---:|---:|")
for p in ("lua", "sqlite"):
    for what, e, label in (("merge", "files", "`ucov merge` of the files"),
                           ("report", "sqlite", "report from SQLite"),
                           ("report", "postgresql", "report from PostgreSQL"),
                           ("who", "sqlite", "`who` on SQLite"),
                           ("who", "postgresql", "`who` on PostgreSQL")):
        v = timed[(what, e, p)]
        if v:
            w("| %s | %s | %.3f | %.3f |" % (p, label, min(v), statistics.median(v)))
w("")
w("## Size")
w("")
w("Bytes on disk per count row after the 8-collector round (SQLite: the file and its WAL;")
w("PostgreSQL: the database less an empty one; indexes included).")
w("")
w("| input | engine | bytes | rows pushed | bytes/row |")
w("|---|---|---:|---:|---:|")
for p in ("lua", "sqlite"):
    for e in ("sqlite", "postgresql"):
        v = size[(e, p)]
        if v:
            b, r = v[-1]
            w("| %s | %s | %s | %s | %.1f |" % (p, e, format(b, ","), format(r, ","), b / r))
w("")
w("## A fleet of 10,000 machines pushing hourly, extrapolated")
w("")
w("Each machine pushes one hour's delta of a program per hour, as its own context (host and")
w("hour), so nothing merges across machines: rows grow as machines x rows per push. Zero counts")
w("are stored (a line found and not hit), so a push is the whole model of the program. From")
w("the PostgreSQL figures above (8 collectors, median round):")
w("")
w("| program | rows/hour | sustained rows/s | bytes/day | cores of this VM's speed |")
w("|---|---:|---:|---:|---:|")
for p in ("lua", "sqlite"):
    k = ("postgresql", p, 8)
    v = size[("postgresql", p)]
    if not ingest[k] or not v:
        continue
    b, r = v[-1]
    per_hour = 10000 * rows[p]
    rate = statistics.median(ingest[k])
    w("| %s | %s | %s | %.0f GB | %.1f |" % (
        p, format(per_hour, ","), format(int(per_hour / 3600), ","),
        per_hour * 24 * b / r / 1e9, 2 * (per_hour / 3600) / rate))
w("")
w("(The last column: this VM's 2 cores ingest the median rate with client and server sharing")
w("them, so the server side needs at most that many such cores; the client's parsing of the")
w("`.gcda` runs on each machine in a fleet.)")
print("\n".join(out))
