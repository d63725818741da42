#!/usr/bin/env python3
"""The fleet load test's driver (bench/fleet_run.sh runs it).

  fleet_load.py UCOV URL WORK COLLECTORS PER_COLLECTOR TOTAL KILL SNAP... -- PSQL...

COLLECTORS threads each push snapshots (the SNAP trees, pulled from a live
target, in turn) into the store at URL: job j is a fresh copy of snapshot
j % len(SNAP) (a copy is a new run: its own push), pushed by `ucov push`
under the collector's shard. A KILL fraction of the jobs have their first
attempt killed (SIGKILL) at a random moment within the pushes' usual latency;
every job is retried until a push succeeds, from the same copy, so a killed
push that had committed makes its retry "counted once". The first
COLLECTORS * PER_COLLECTOR jobs are the load test proper; the run goes on to
TOTAL jobs. After every 1,000 pushes the store's size is taken (PSQL: the
psql command line of the store's database, unaligned, tab-separated).

Prints one JSON object: every job (collector, snapshot, start, end, attempt
latencies, killed, counted once), and the size marks.
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

SIZE_SQL = ("SELECT pg_database_size(current_database()) - pg_database_size('template1'), "
            "(SELECT count(*) FROM line_counts) + (SELECT count(*) FROM func_counts) + "
            "(SELECT count(*) FROM branch_counts), (SELECT count(*) FROM unit_counts), "
            "(SELECT count(*) FROM pushes), pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")


def main():
    sep = sys.argv.index("--")
    ucov, url, work, ncoll, per, total, kill = sys.argv[1:8]
    snaps = sys.argv[8:sep]
    psql = sys.argv[sep + 1:]
    ncoll, per, total, kill = int(ncoll), int(per), int(total), float(kill)
    rnd = random.Random(46)
    doomed = {j for j in range(total) if rnd.random() < kill}
    lock = threading.Lock()
    state = {"done": 0, "lat": [], "marks": [], "failed": 0}
    jobs = [None] * total
    t0 = time.monotonic()

    def size_mark(done):
        r = subprocess.run(psql + ["-c", SIZE_SQL], capture_output=True, text=True)
        f = r.stdout.strip().split("\t")
        if r.returncode or len(f) != 5:
            print(f"fleet: size query failed: {r.stderr.strip()}", file=sys.stderr)
            return
        state["marks"].append({"pushes": done, "t": time.monotonic() - t0, "bytes": int(f[0]),
                               "rows": int(f[1]), "counter_rows": int(f[2]),
                               "stored_pushes": int(f[3]), "wal": int(float(f[4]))})

    def push(copy, c, victim):
        p = subprocess.Popen([ucov, "push", copy, "--store", url, "--test", "fleet", "--shard",
                              f"c{c}"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if victim:
            with lock:
                lat = sorted(state["lat"][-200:])
            usual = lat[len(lat) // 2] if lat else 0.5
            try:
                p.wait(timeout=rnd.uniform(0, 1.5 * usual))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
        out = p.communicate()[0]
        return p.returncode, out

    def collector(c):
        for j in range(c, total, ncoll):
            snap = j % len(snaps)
            copy = os.path.join(work, f"c{c}")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(snaps[snap], copy, symlinks=True)
            start = time.monotonic()
            attempts, once, killed = [], False, False
            victim = j in doomed
            while True:
                a = time.monotonic()
                rc, out = push(copy, c, victim)
                attempts.append(time.monotonic() - a)
                if victim and rc < 0:
                    killed = True
                victim = False
                if rc == 0:
                    once = "counted once" in out
                    break
                if rc > 0:
                    with lock:
                        state["failed"] += 1
                    print(f"fleet: job {j} attempt failed ({rc}): {out.strip()[-300:]}",
                          file=sys.stderr)
                    time.sleep(0.2)
                    if len(attempts) > 20:
                        sys.exit(f"fleet: job {j} keeps failing")
            end = time.monotonic()
            with lock:
                jobs[j] = {"c": c, "snap": snap, "start": start - t0, "end": end - t0,
                           "attempts": attempts, "killed": killed, "once": once}
                if not killed:
                    state["lat"].append(attempts[-1])
                state["done"] += 1
                done = state["done"]
                if done % 1000 == 0 or done == total:
                    size_mark(done)
        shutil.rmtree(os.path.join(work, f"c{c}"), ignore_errors=True)

    size_mark(0)
    threads = [threading.Thread(target=collector, args=(c,)) for c in range(ncoll)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if any(j is None for j in jobs):
        sys.exit("fleet: some jobs never finished")
    json.dump({"collectors": ncoll, "per": per, "total": total, "jobs": jobs,
               "marks": state["marks"], "failed_attempts": state["failed"]}, sys.stdout)


if __name__ == "__main__":
    main()
