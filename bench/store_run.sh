#!/usr/bin/env bash
# Store benchmark: Lua 5.4 and SQLite (Debian source packages) built with
# gcc --coverage and run once each; their .gcda trees are the pushes. For each
# engine (a SQLite file; a PostgreSQL server of the bench's own, tests/pg.sh)
# and 1, 4 and 8 concurrent collectors each pushing PUSHES times into a new
# store: every push's latency, and the ingest rate (count rows of all pushes
# over the round's wall time). Then, on the 8-collector store: a report from
# the store against `ucov merge` of the same files, and `ucov who`. Engines,
# inputs and concurrencies alternate within each round; minimums and medians.
# Writes bench/RESULTS-store.md.   bash bench/store_run.sh [ROUNDS] [PUSHES]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work/store
rounds=${1:-3}
pushes=${2:-2}
mkdir -p "$work"
bash "$root/scripts/deps.sh"
command -v tclsh >/dev/null || apt-get install -y -qq --no-install-recommends tcl >/dev/null
bash "$here/fetch_source.sh" lua5.4 "$here/work/lua"
bash "$here/fetch_source.sh" sqlite3 "$here/work/sqlite"
cmake -S "$root" -B "$work/ucov" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$work/ucov" -j 2 >/dev/null
UCOV=$work/ucov/ucov

# The inputs: one run's .gcda tree of each program.
in_lua=$work/in-lua
if [ ! -x "$in_lua/lua" ]; then
  mkdir -p "$in_lua"
  cp "$here"/work/lua/src/*.[ch] "$in_lua/"
  rm -f "$in_lua/luac.c"
  (cd "$in_lua" && gcc --coverage -O0 -DLUA_USE_POSIX ./*.c -lm -ldl -o lua)
fi
rm -f "$in_lua"/*.gcda
(cd "$in_lua" && ./lua -e 'SCALE=1' "$here/workload.lua" >/dev/null)
in_sqlite=$work/in-sqlite
if [ ! -x "$in_sqlite/sqlite3" ]; then
  mkdir -p "$in_sqlite/amal"
  (cd "$in_sqlite/amal" && "$here/work/sqlite/configure" --disable-tcl >/dev/null &&
    make sqlite3.c shell.c >/dev/null 2>&1)
  cp "$in_sqlite"/amal/{sqlite3.c,shell.c,sqlite3.h} "$in_sqlite/"
  rm -rf "$in_sqlite/amal"
  (cd "$in_sqlite" && gcc --coverage -O0 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I. \
    sqlite3.c shell.c -lm -o sqlite3)
fi
rm -f "$in_sqlite"/*.gcda
"$in_sqlite/sqlite3" :memory: >/dev/null <<'SQL'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000)
INSERT INTO t SELECT x, hex(randomblob(8)), x * 0.5 FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(c), max(b) FROM t WHERE a % 7 = 3;
UPDATE t SET c = c * 2 WHERE a < 5000;
DELETE FROM t WHERE a > 15000;
SELECT b, count(*) FROM t GROUP BY substr(b, 1, 2) ORDER BY 2 DESC LIMIT 5;
SQL
# Count rows of one push (DA, FNDA and BRDA records), and a line for `who`:
# the first executed line of the file with the most lines.
declare -A rows who
for p in lua sqlite; do
  d=$work/in-$p
  "$UCOV" report -q "$d" --lcov "$work/$p.info"
  rows[$p]=$(grep -c -E '^(DA|FNDA|BRDA):' "$work/$p.info")
  who[$p]=$(awk -F'[:,]' '/^SF:/ { f = $2; sub(".*/", "", f) } /^DA:/ && $3 > 0 && !done[f]++ { print f ":" $2 }' \
    "$work/$p.info" | tail -1)
done

# shellcheck source=tests/pg.sh
. "$root/tests/pg.sh"
pg_start || { echo "store bench: no PostgreSQL server" >&2; exit 1; }
trap pg_stop EXIT
raw=$work/raw.txt
: >"$raw"
: >"$work/load.txt"
n_db=0
new_store() { # new_store ENGINE: url= an empty store (not in a subshell: n_db counts)
  n_db=$((n_db + 1))
  if [ "$1" = sqlite ]; then
    rm -f "$work/s.db" "$work/s.db-wal" "$work/s.db-shm"
    url=$work/s.db
  else
    pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U ucov "b$n_db" >/dev/null
    url="postgresql:///b$n_db?host=$PG_DIR&user=ucov"
  fi
}
ns() { date +%s%N; }
for ((r = 0; r < rounds; r++)); do
  awk '{print $1}' /proc/loadavg >>"$work/load.txt"
  for p in lua sqlite; do
    for n in 1 4 8; do
      # alternate the engine that goes first
      engines=(sqlite postgresql)
      ((r % 2)) && engines=(postgresql sqlite)
      for e in "${engines[@]}"; do
        new_store "$e"
        "$UCOV" store init "$url" >/dev/null
        t0=$(ns)
        for ((c = 0; c < n; c++)); do
          (for ((k = 0; k < pushes; k++)); do
            a=$(ns)
            "$UCOV" push "$work/in-$p" --store "$url" --test "c$c" --shard "r$r-$k" -q
            echo "lat $e $p $n $(($(ns) - a))" >>"$raw"
          done) &
        done
        wait
        echo "ingest $e $p $n $(($(ns) - t0)) $((n * pushes * rows[$p]))" >>"$raw"
        if [ "$n" = 8 ]; then
          a=$(ns)
          "$UCOV" report -q --store "$url" --lcov "$work/from-store.info"
          echo "report $e $p 8 $(($(ns) - a))" >>"$raw"
          a=$(ns)
          "$UCOV" who "${who[$p]}" --store "$url" >"$work/who.txt"
          echo "who $e $p 8 $(($(ns) - a))" >>"$raw"
          grep -q c7 "$work/who.txt" || echo "store bench: who misses c7 ($e $p)" >&2
          if [ "$e" = sqlite ]; then
            bytes=$(($(stat -c %s "$work/s.db") + $(stat -c %s "$work/s.db-wal" 2>/dev/null || echo 0)))
          else
            bytes=$(pg_as "$PG_BIN/psql" -h "$PG_DIR" -U ucov -d "b$n_db" -Atc \
              "SELECT pg_database_size(current_database()) - pg_database_size('template1')")
            # the units' counter rows of one push (schema 3: every push its own context)
            echo "counters $p $(pg_as "$PG_BIN/psql" -h "$PG_DIR" -U ucov -d "b$n_db" -Atc \
              "SELECT count(*) / $((8 * pushes)) FROM unit_counts")" >>"$raw"
          fi
          echo "size $e $p 8 $bytes $((8 * pushes * rows[$p]))" >>"$raw"
        fi
      done
      if [ "$n" = 8 ]; then # the same sum by files (copies: one tree named twice counts once)
        ins=()
        for ((i = 0; i < 8 * pushes; i++)); do
          [ -d "$work/copy-$p-$i" ] || cp -r "$work/in-$p" "$work/copy-$p-$i"
          cp "$work/in-$p"/*.gcda "$work/copy-$p-$i/"
          ins+=("$work/copy-$p-$i")
        done
        a=$(ns)
        "$UCOV" merge -q "${ins[@]}" -o "$work/merged.info"
        echo "merge files $p 8 $(($(ns) - a))" >>"$raw"
        cmp -s <(grep -E '^(DA|FNDA|BRDA):' "$work/merged.info" | sort) \
          <(grep -E '^(DA|FNDA|BRDA):' "$work/from-store.info" | sort) ||
          echo "store bench: the store's sum differs from the merge ($p)" >&2
      fi
    done
  done
done
awk '{print $1}' /proc/loadavg >>"$work/load.txt"
python3 "$here/store_report.py" "$raw" "$rounds" "$pushes" "${rows[lua]}" "${rows[sqlite]}" \
  "$work/load.txt" "${who[lua]}" "${who[sqlite]}" >"$here/RESULTS-store.md"
cat "$here/RESULTS-store.md"
