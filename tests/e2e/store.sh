#!/usr/bin/env bash
# The coverage store on both engines: SQLite (a file) and a real PostgreSQL
# server of the test's own (tests/pg.sh). Pushes of separate runs sum to what
# ucov merge makes of the same files; a push again counts once; eight
# pushers at once lose and double nothing, nor does a push killed midway and
# retried; --test, --build and --revision select; a build is a revision (and
# --config) whatever programs are pushed for it, with the build tree's
# unreached notes at zero; who names exactly the runs
# that reached each function; history lists the builds; a .gcda that does
# not match its notes, or a --binary that is not the program that ran, refuses
# the whole push.
# Usage: store.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
# shellcheck source=tests/pg.sh
. "$SRC/tests/pg.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
trap pg_stop EXIT
D=$SRC/examples/demo
R=('GET / HTTP/1.1\r\nHost: a\r\n\r\n' 'POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n'
  'BAD\r\n\r\n')
mkdir b && (cd b && gcc --coverage -O0 -I"$D" -c "$D/httpreq.c" "$SRC/tests/integration/gcov_main.c" &&
  gcc --coverage httpreq.o gcov_main.o -o prog) || exit 1
# run K: one request's .gcda files, in r<K>/ (a tree of its own)
for k in 0 1 2; do
  rm -f b/*.gcda && (cd b && ./prog "${R[$k]}" >/dev/null || true) && mkdir -p "r$k" &&
    cp b/*.gcda b/*.gcno "r$k"/
done
"$UCOV" merge r0 r1 r2 -o all.info && "$UCOV" merge r1 -o r1.info || fail "merge"
# a trace: the PCs of one request, with the process's module map
mkdir t && (cd t && CC=gcc "$UCOV" cc --trace -g -O0 -I"$D" "${SANFLAGS[@]}" "$D/trace_one.c" \
  "$D/httpreq.c" -o trace_one && ./trace_one --modules mods.txt "${R[1]}" >pcs.txt 2>/dev/null) &&
  "$UCOV" report t/pcs.txt --modules t/mods.txt --lcov trace.info || fail "trace build"
# lines NAME.info: the DA/FNDA/BRDA records, sorted (what a store must give back)
recs() { grep -E '^(SF|DA|FNDA|BRDA):' "$1" | sort; }

engine() { # engine NAME URL
  local name=$1 url=$2 st
  "$UCOV" store init "$url" 2>init.err && pass "$name: store init" || fail "$name: store init: $(cat init.err)"
  for k in 0 1 2; do
    "$UCOV" push "r$k" --store "$url" --test "t$k" --revision rev1 -q || fail "$name: push r$k"
  done
  "$UCOV" report --store "$url" --lcov "$name.info" 2>/dev/null
  cmp -s <(recs "$name.info") <(recs all.info) && pass "$name: the store's sum is merge's" ||
    fail "$name: the store's sum is merge's: $(diff <(recs "$name.info") <(recs all.info) | head -5)"
  # the same push again: counted once
  "$UCOV" push r1 --store "$url" --test t1 --revision rev1 2>again.err
  grep -q 'counted once' again.err && "$UCOV" report --store "$url" --lcov again.info &&
    cmp -s <(recs again.info) <(recs all.info) && pass "$name: a push again counts once" || fail "$name: a push again counts once"
  # --test: one test's counts
  "$UCOV" report --store "$url" --test t1 --lcov t1.info && cmp -s <(recs t1.info) <(recs r1.info) &&
    pass "$name: --test t1 is run 1" || fail "$name: --test t1 is run 1: $(diff <(recs t1.info) <(recs r1.info) | head -3)"
  # who: the tests that reached each function's line are the runs that called it
  local bad=0 fn line want got
  while IFS=, read -r line fn; do
    want=$(for k in 0 1 2; do "$UCOV" merge "r$k" -o - 2>/dev/null | grep -q "^FNDA:[1-9][0-9]*,$fn$" &&
      echo "t$k"; done | sort | tr '\n' ' ')
    got=$("$UCOV" who "httpreq.c:$line" --store "$url" | cut -f1 | sort | tr '\n' ' ')
    [ "$want" = "$got" ] || { bad=1; echo "who httpreq.c:$line ($fn): want '$want', got '$got'" >&2; }
  done < <(awk -F'[:,]' -v f="SF:$D/httpreq.c" '$0==f{p=1} /^end_of_record/{p=0} p&&/^FN:/{print $2","$3}' all.info)
  [ $bad = 0 ] && pass "$name: who" || fail "$name: who"
  # who of a file the store does not know: an error naming the nearest known
  # paths; a known line no test ran: nothing, status 0
  "$UCOV" who "elsewhere/httpreq.c:3" --store "$url" >who.out 2>who.err
  [ $? = 1 ] && [ ! -s who.out ] && grep -q 'no source of that path' who.err &&
    grep -q "^  $D/httpreq.c$" who.err && pass "$name: who of an unknown file: status 1, nearest paths" ||
    fail "$name: who of an unknown file: $(cat who.err)"
  "$UCOV" who "httpreq.c:999999" --store "$url" >who.out 2>who.err &&
    [ ! -s who.out ] && pass "$name: who of a line no test ran: nothing, status 0" ||
    fail "$name: who of a line no test ran: $(cat who.err)"
  # a tree holding a folder named modules (a source tree's): no module map,
  # and no failure (it was "./modules: Is a directory")
  # (a store of its own: the checks below count this store's pushes)
  rm -rf withdir withdir.db && cp -r r0 withdir && rm -f withdir/modules && mkdir -p withdir/modules
  "$UCOV" push withdir --store withdir.db --test tdir -q 2>push.err && "$UCOV" report withdir -q --lcov wd.info &&
    pass "$name: push of a tree with a folder named modules" ||
    fail "$name: push of a tree with a folder named modules: $(cat push.err)"
  # a second build (revision): --build selects it, history lists both
  "$UCOV" push r0 --store "$url" --test t0 --revision rev2 -q
  "$UCOV" report --store "$url" --build rev2 --lcov rev2.info && "$UCOV" merge r0 -o r0.info &&
    cmp -s <(recs rev2.info) <(recs r0.info) && pass "$name: --build rev2" || fail "$name: --build rev2"
  "$UCOV" history --store "$url" >hist.txt && [ "$(wc -l <hist.txt)" = 2 ] &&
    [ "$(cut -f2 hist.txt | tr '\n' ' ')" = "rev1 rev2 " ] && pass "$name: history" || fail "$name: history: $(cat hist.txt)"
  if [ "$name" = postgresql ]; then
    # partitioned by build: one partition of each count table per build, and
    # retention as docs/store.md gives it drops a build whole, its partitions
    # with it, leaving the other build's counts as they were
    local q=("$PG_BIN/psql" -h "$PG_DIR" -U ucov -d postgres -Atq -v ON_ERROR_STOP=1)
    [ "$(pg_as "${q[@]}" -c "SELECT count(*) FROM pg_inherits WHERE inhparent = 'line_counts'::regclass")" = 2 ] &&
      [ "$(pg_as "${q[@]}" -c "SELECT count(*) FROM pg_inherits WHERE inhparent = 'branch_counts'::regclass")" = 2 ] &&
      pass "$name: a partition per build" || fail "$name: a partition per build"
    local b2
    b2=$(pg_as "${q[@]}" -c "SELECT id FROM builds WHERE revision = 'rev2'")
    pg_as "${q[@]}" -c "BEGIN; DROP TABLE line_counts_b$b2, func_counts_b$b2, branch_counts_b$b2,
      unit_runs_b$b2, unit_counts_b$b2;
      DELETE FROM pushes WHERE build_id = $b2; DELETE FROM builds WHERE id = $b2; COMMIT" &&
      "$UCOV" report --store "$url" --lcov kept.info && cmp -s <(recs kept.info) <(recs all.info) &&
      "$UCOV" history --store "$url" >hist2.txt && [ "$(cut -f2 hist2.txt)" = rev1 ] &&
      pass "$name: retention drops build rev2 whole" || fail "$name: retention drops build rev2 whole: $(cat hist2.txt)"
  fi
  # refused: a .gcda that does not match its notes (rebuilt after the run)
  mkdir -p stale o1 && cp r0/* stale/ && (cd o1 && gcc --coverage -O1 -I"$D" -c "$D/httpreq.c") &&
    cp o1/httpreq.gcno stale/httpreq.gcno
  "$UCOV" report --store "$url" --lcov before.info
  "$UCOV" push stale --store "$url" --test stale 2>stale.err
  st=$?
  "$UCOV" report --store "$url" --lcov after.info
  [ $st = 1 ] && grep -q 'nothing pushed' stale.err && cmp -s before.info after.info && pass "$name: a stale .gcda refuses the push ($st)" ||
    fail "$name: a stale .gcda refuses the push ($st): $(cat stale.err)"
  # an lcov tracefile's test names (TN:) are the tests, one push each
  { sed 's/^TN:.*/TN:alpha/' r0.info; sed 's/^TN:.*/TN:beta/' r1.info; } >tn.info
  "$UCOV" push tn.info --store "$url" --revision rev3 2>tn.err &&
    grep -q 'pushed test alpha' tn.err && grep -q 'pushed test beta' tn.err &&
    "$UCOV" report --store "$url" --build rev3 --test beta --lcov beta.info &&
    cmp -s <(recs beta.info) <(recs r1.info) && pass "$name: TN names are tests" ||
    fail "$name: TN names are tests: $(cat tn.err)"
  # a trace's hits are a test's counts too
  "$UCOV" push t/pcs.txt --modules t/mods.txt --store "$url" --test traced -q &&
    "$UCOV" report --store "$url" --test traced --lcov traced.info && grep -q '^DA:[0-9]*,[1-9]' traced.info &&
    cmp -s <(recs traced.info) <(recs trace.info) && pass "$name: a pushed trace" ||
    fail "$name: a pushed trace: $(diff <(recs traced.info) <(recs trace.info) | head -3)"
  # refused: a --binary that is not the program the pulled tree ran
  mkdir -p pulled && cp r0/* pulled/ &&
    printf '400000 401000 0 0 r-x 0123456789abcdef %s\n' "$WORK/b/prog" >pulled/modules
  "$UCOV" push pulled --binary b/prog --store "$url" 2>bid.err
  [ $? = 1 ] && grep -q 'build-id' bid.err && pass "$name: a foreign --binary" || fail "$name: a foreign --binary: $(cat bid.err)"
}

# A build is a revision (and a configuration): a CMake project with a test
# program each (t1, t2, t3) and a program no test runs (tool), each test run
# by ucov run --store, is one build, whatever programs were pushed for it,
# and the store's totals equal ucov report of the build tree after the same
# runs: the notes of the build tree that no run reached are pushed at zero.
builds() { # builds NAME URL
  local name=$1 url=$2 k bid
  for k in 1 2 3; do
    "$UCOV" run -o "$name-run$k" --store "$url" --test "t$k" --revision r9 -- sp/t$k >/dev/null 2>"run$k.err" ||
      fail "$name: ucov run t$k: $(cat "run$k.err")"
  done
  "$UCOV" history --store "$url" >bh.txt && [ "$(grep -c $'\tr9\t' bh.txt)" = 1 ] && pass "$name: one build for three test programs" ||
    fail "$name: one build for three test programs: $(cat bh.txt)"
  "$UCOV" report --store "$url" --build r9 --lcov "$name-r9.info" 2>/dev/null &&
    cmp -s <(recs "$name-r9.info") <(recs tree.info) && grep -q 'FNDA:0,usage' "$name-r9.info" && pass "$name: the build's store = the build tree" ||
    fail "$name: the build's store = the build tree: $(diff <(recs "$name-r9.info") <(recs tree.info) | head -5)"
  # --build by a build-id of one of its programs: the same build
  bid=$(readelf -n sp/t2 | awk '/Build ID/{print substr($3, 1, 12)}')
  "$UCOV" report --store "$url" --build "$bid" --lcov "$name-bid.info" 2>/dev/null &&
    cmp -s "$name-bid.info" "$name-r9.info" && pass "$name: --build by t2's build-id $bid" || fail "$name: --build by t2's build-id $bid"
  # who --build: the tests that ran lib_sign's first line in that build
  local sl
  sl=$(grep -n 'if (x < 0)' "$SRC/tests/e2e/store/proj/lib.c" | cut -d: -f1)
  [ "$("$UCOV" who "lib.c:$sl" --store "$url" --build r9 | cut -f1)" = t2 ] &&
    [ -z "$("$UCOV" who "lib.c:$sl" --store "$url" --build rev1 | cut -f1)" ] && pass "$name: who --build" ||
    fail "$name: who --build: $("$UCOV" who "lib.c:$sl" --store "$url" --build r9 2>&1)"
  # a configuration of the same revision is a build of its own
  "$UCOV" run -o "$name-runa" --store "$url" --test t1 --revision r9 --config asan -- sp/t1 >/dev/null 2>runa.err
  "$UCOV" history --store "$url" >bh2.txt && grep -q $'\tr9/asan\t' bh2.txt &&
    [ "$(grep -c $'\tr9\t' bh2.txt)" = 1 ] && "$UCOV" report --store "$url" --build r9 --lcov "$name-r9b.info" &&
    cmp -s "$name-r9b.info" "$name-r9.info" && pass "$name: --config" || fail "$name: --config: $(cat bh2.txt runa.err)"
  # an unknown --test is an error, not a report of nothing
  "$UCOV" report --store "$url" --test nosuch --lcov nosuch.info 2>nosuch.err
  [ $? = 1 ] && grep -q "no test 'nosuch'" nosuch.err && pass "$name: unknown --test" || fail "$name: unknown --test: $(cat nosuch.err)"
}

# A store of schema 1 (a build per set of build-ids) is migrated: the builds
# of one revision become one, their counts summed, nothing lost or doubled.
# (the rows of both engines' schema 1 stores: two builds of rev1, one of rev2)
V1_ROWS=$(
  cat <<'SQL'
INSERT INTO builds VALUES (1, 'aa11', 'rev1', 100), (2, 'bb22', 'rev1', 200), (3, 'aa11', 'rev2', 300);
INSERT INTO sources VALUES (1, '/src/a.c', 'h');
INSERT INTO contexts VALUES (1, 't', '', 'h', 0);
INSERT INTO pushes VALUES ('p1', 1, 1, 100), ('p2', 2, 1, 200), ('p3', 3, 1, 300);
INSERT INTO line_counts VALUES (1, 1, 1, 1, 5), (1, 1, 1, 2, 0), (2, 1, 1, 1, 7), (2, 1, 1, 3, 1),
  (3, 1, 1, 1, 100);
INSERT INTO func_counts VALUES (1, 1, 1, 'f', 1, 5), (2, 1, 1, 'f', 1, 7), (3, 1, 1, 'f', 1, 100);
INSERT INTO branch_counts VALUES (1, 1, 1, 1, 0, 0, 1, 2), (2, 1, 1, 1, 0, 0, 1, 3);
SQL
)
migrate_v1() { # migrate_v1 DB: a SQLite store of schema 1 holding V1_ROWS
  python3 - "$1" "$V1_ROWS" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript('''
CREATE TABLE ucov_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO ucov_meta VALUES ('schema', '1');
CREATE TABLE builds (id INTEGER PRIMARY KEY, build_ids TEXT NOT NULL, revision TEXT NOT NULL,
  created BIGINT NOT NULL, UNIQUE (build_ids, revision));
CREATE TABLE sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL, hash TEXT NOT NULL,
  UNIQUE (path, hash));
CREATE TABLE contexts (id INTEGER PRIMARY KEY, test TEXT NOT NULL, shard TEXT NOT NULL,
  host TEXT NOT NULL, period BIGINT NOT NULL, UNIQUE (test, shard, host, period));
CREATE TABLE pushes (hash TEXT PRIMARY KEY, build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,
  at BIGINT NOT NULL);
CREATE TABLE line_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,
  source_id BIGINT NOT NULL, line BIGINT NOT NULL, count BIGINT NOT NULL,
  PRIMARY KEY (build_id, context_id, source_id, line)) WITHOUT ROWID;
CREATE TABLE func_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,
  source_id BIGINT NOT NULL, name TEXT NOT NULL, line BIGINT NOT NULL, count BIGINT NOT NULL,
  PRIMARY KEY (build_id, context_id, source_id, name)) WITHOUT ROWID;
CREATE TABLE branch_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,
  source_id BIGINT NOT NULL, line BIGINT NOT NULL, block BIGINT NOT NULL, branch BIGINT NOT NULL,
  executed INTEGER NOT NULL, taken BIGINT NOT NULL,
  PRIMARY KEY (build_id, context_id, source_id, line, block, branch)) WITHOUT ROWID;
''' + sys.argv[2])
db.commit()
PY
}
# A reader changes nothing: report --store on schema 1 says how to migrate it.
migrate_v1 v1.db && v1sum=$(md5sum <v1.db) && "$UCOV" report --store v1.db --lcov v1r.info 2>v1r.err
[ $? = 1 ] && grep -q 'ucov store init' v1r.err && [ "$(md5sum <v1.db)" = "$v1sum" ] &&
  [ ! -e v1.db-wal ] && pass "schema 1: a report says how to migrate, and changes nothing" ||
  fail "schema 1: a report says how to migrate, and changes nothing: $(cat v1r.err)"
"$UCOV" store init v1.db 2>v1.err && "$UCOV" report --store v1.db --build rev1 --lcov v1.info 2>>v1.err &&
  [ "$(grep -E '^(DA|FNDA|BRDA):' v1.info | tr '\n' ' ')" = "FNDA:12,f BRDA:1,0,0,5 DA:1,12 DA:2,0 DA:3,1 " ] &&
  "$UCOV" report --store v1.db --build bb22 --lcov v1b.info && cmp -s v1.info v1b.info &&
  "$UCOV" history --store v1.db >v1h.txt && [ "$(cut -f2 v1h.txt | tr '\n' ' ')" = "rev1 rev2 " ] &&
  "$UCOV" report --store v1.db --build rev2 --lcov v1c.info && grep -q '^DA:1,100$' v1c.info && pass "schema 1 migrated" ||
  fail "schema 1 migrated: $(cat v1.err v1h.txt; grep -E '^(DA|FNDA|BRDA):' v1.info)"

# Eight pushers into one store at once, five rounds each; one more push is
# killed midway and retried: the sum is the merge of exactly those pushes.
concurrent() { # concurrent NAME URL
  local name=$1 url=$2 i pids=()
  for i in $(seq 1 8); do
    (for round in 1 2 3 4 5; do
      "$UCOV" push "r$((i % 3))" --store "$url" --test "c$i" --shard "round$round" -q || exit 1
    done) &
    pids+=($!)
  done
  local ok=1
  for p in "${pids[@]}"; do wait "$p" || ok=0; done
  [ $ok = 1 ] && pass "$name: a concurrent pusher failed" || fail "$name: a concurrent pusher failed"
  "$UCOV" push r2 --store "$url" --test killed -q &
  local kp=$!
  sleep 0.05
  kill -9 $kp 2>/dev/null
  wait $kp 2>/dev/null
  "$UCOV" push r2 --store "$url" --test killed -q 2>/dev/null # the retry: once in all
  # The oracle: each pushed tree's tracefile, a copy per push (the same file
  # named twice is read once).
  local args=() k
  for k in 0 1 2; do "$UCOV" merge "r$k" -o "t$k.info"; done
  for i in $(seq 1 8); do
    for round in 1 2 3 4 5; do
      cp "t$((i % 3)).info" "t$i-$round.info" && args+=("t$i-$round.info")
    done
  done
  "$UCOV" merge "${args[@]}" t2.info -o conc.info
  "$UCOV" report --store "$url" --lcov "$name-conc.info"
  cmp -s <(recs "$name-conc.info") <(recs conc.info) && pass "$name: 8 pushers x 5 and a killed push" ||
    fail "$name: 8 pushers x 5 and a killed push: $(diff <(recs "$name-conc.info") <(recs conc.info) | head -5)"
}

# A long-lived server and three tests driven through it, `collect --once`
# between them: who names exactly the tests whose separate runs reached each
# function; then continuous collection (every 0.2 s, one collector killed and
# restarted): the store plus the exit files hold exactly the separate runs' sum.
mkdir -p srv && (cd srv && CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" -I"$D" "$SRC/tests/e2e/store/server.c" \
  "$D/httpreq.c" -o server) || fail "server build"
for k in 0 1 2; do
  printf '%s\n' "${R[$k]}" | UCOV_EXIT_DIR=$WORK/sep$k srv/server >/dev/null
  "$UCOV" merge "sep$k" -o "sep$k.info"
done
"$UCOV" merge sep0 sep1 sep2 -o sep.info
export UCOV_RUNTIME_DIR=$WORK/rt UCOV_COLLECT_DIR=$WORK/collect
parser() { awk '/^SF:.*httpreq.c$/{p=1} /^end_of_record/{p=0} p' "$1" | grep -E '^(DA|FNDA|BRDA):' | sort; }
served() { # served NAME URL
  local name=$1 url=$2 k pid bad=0 line fn want got
  rm -rf "$WORK/exit-$name" && rm -f in.fifo out.fifo && mkfifo in.fifo out.fifo
  UCOV_EXIT_DIR=$WORK/exit-$name srv/server <in.fifo >out.fifo &
  pid=$!
  exec {to}>in.fifo {from}<out.fifo
  for _ in $(seq 250); do [ -S "rt/$pid.sock" ] && break; sleep 0.02; done
  for k in 0 1 2; do
    printf '%s\n' "${R[$k]}" >&"$to" && read -r _ <&"$from"
    "$UCOV" collect --pid "$pid" --test "s$k" --once --store "$url" -q || fail "$name: collect --once s$k"
  done
  while IFS=, read -r line fn; do
    want=$(for k in 0 1 2; do grep -q "^FNDA:[1-9][0-9]*,$fn$" "sep$k.info" && echo "s$k"; done |
      sort | tr '\n' ' ')
    got=$("$UCOV" who "httpreq.c:$line" --store "$url" | cut -f1 | sort | tr '\n' ' ')
    [ "$want" = "$got" ] || { bad=1; echo "who httpreq.c:$line ($fn): want '$want', got '$got'" >&2; }
  done < <(awk -F'[:,]' '/^SF:.*httpreq.c$/{p=1} /^end_of_record/{p=0} p&&/^FN:/{print $2","$3}' sep.info)
  [ $bad = 0 ] && pass "$name: who after collect --once" || fail "$name: who after collect --once"
  # test selection: a change inside parse_chunked selects the tests that ran
  # it; one in parse_method, every test
  local f sel
  for f in parse_chunked parse_method; do
    line=$(awk -F'[:,]' -v fn="$f" '/^SF:.*httpreq.c$/{p=1} /^end_of_record/{p=0} p&&/^FN:/&&$3==fn{print $2}' sep.info)
    printf -- '--- a/examples/demo/httpreq.c\n+++ b/examples/demo/httpreq.c\n@@ -%d,1 +%d,1 @@\n-x\n+y\n' \
      "$line" "$line" >"$f.diff"
    want=$(for k in 0 1 2; do grep -q "^FNDA:[1-9][0-9]*,$f$" "sep$k.info" && echo "s$k"; done | sort | tr '\n' ' ')
    sel=$("$UCOV" tests-for --diff "$f.diff" --store "$url" | cut -f1 | sort | tr '\n' ' ')
    [ -n "$want" ] && [ "$sel" = "$want" ] && pass "$name: tests-for $f: want '$want', got '$sel'" || fail "$name: tests-for $f: want '$want', got '$sel'"
  done
  # continuous: the same three requests again, a collector every 0.2 s (the
  # first killed midway, a second one finishing its round), then the exit
  "$UCOV" collect --pid "$pid" --every 0.2 --store "$url" -q &
  local c1=$!
  printf '%s\n' "${R[0]}" >&"$to" && read -r _ <&"$from"
  sleep 0.3
  kill -9 $c1 2>/dev/null
  wait $c1 2>/dev/null
  "$UCOV" collect --pid "$pid" --every 0.2 --store "$url" -q &
  local c2=$!
  for k in 1 2; do printf '%s\n' "${R[$k]}" >&"$to" && read -r _ <&"$from"; sleep 0.3; done
  kill -TERM $c2
  wait $c2
  exec {to}>&- {from}<&-
  wait $pid
  "$UCOV" report --store "$url" --lcov "$name-srv.info" 2>/dev/null
  "$UCOV" merge "$name-srv.info" "exit-$name" -o "$name-total.info"
  cp sep.info sep-copy.info && "$UCOV" merge sep.info sep-copy.info -o sep-twice.info
  # (httpreq.c's records: the server's own loop ran differently in one process)
  cmp -s <(parser "$name-total.info") <(parser sep-twice.info) && pass "$name: store + exit files = the runs" ||
    fail "$name: store + exit files = the runs: $(diff <(parser "$name-total.info") <(parser sep-twice.info) | head -5)"
}

# the project of builds(), built through CMake with ucov cc --gcov; the tests
# run once in the build tree too, for the oracle
if command -v cmake >/dev/null; then
  env -u UCOV_CC CC="$UCOV cc --gcov --cc gcc" cmake -S "$SRC/tests/e2e/store/proj" -B sp \
    -DCMAKE_C_FLAGS="${SANFLAGS[*]}" >sp.log 2>&1 &&
    env -u UCOV_CC -u CC cmake --build sp >>sp.log 2>&1 && (cd sp && ./t1 && ./t2 && ./t3) &&
    "$UCOV" report sp --lcov tree.info 2>>sp.log && grep -q 'SF:.*tool.c' tree.info ||
    fail "the CMake project: $(tail -5 sp.log)"
fi
engine sqlite "sqlite:$WORK/cov.db"
[ -s tree.info ] && builds sqlite "$WORK/builds.db"
served sqlite "$WORK/srv.db"
# ucov run --store: a short program's coverage pushed when it exits
printf '%s\n' "${R[1]}" | "$UCOV" run --store "$WORK/run.db" --test once -- srv/server >/dev/null 2>run.err &&
  "$UCOV" report --store "$WORK/run.db" --test once --lcov run.info &&
  cmp -s <(parser run.info) <(parser sep1.info) && pass "run --store" ||
  fail "run --store: $(cat run.err; diff <(parser run.info) <(parser sep1.info) | head -3)"
# Two real runs with the same counts are two runs: each adds (a push's key
# holds its files' identities and change times), while the same unchanged
# files pushed again add nothing and a copy of a tree is another run.
twice() { # DA counts of an lcov file, each doubled
  awk -F'[:,]' '/^DA:/{print $2","$3*2; next} {print}' "$1" | grep -E '^DA:|^[0-9]' | sort
}
das() { grep -E '^DA:' "$1" | sed 's/^DA://' | sort; }
for _ in 1 2; do
  printf '%s\n' "${R[1]}" | "$UCOV" run --store "$WORK/run2.db" --test same -- srv/server >/dev/null 2>>run2.err
done
"$UCOV" report --store "$WORK/run2.db" --test same --lcov run2.info 2>/dev/null
cmp -s <(das run2.info) <(twice run.info | sed 's/^DA://') && pass "run --store twice: two runs, each counted" ||
  fail "run --store twice: two runs, each counted: $(tail -2 run2.err; diff <(das run2.info) <(twice run.info) | head -3)"
"$UCOV" push r1 --store "$WORK/tree2.db" --test t -q && "$UCOV" push r1 --store "$WORK/tree2.db" --test t 2>tree2.err &&
  grep -q 'counted once' tree2.err && rm -rf r1copy && cp -r r1 r1copy &&
  "$UCOV" push r1copy --store "$WORK/tree2.db" --test t 2>tree3.err && grep -q '^ucov push: pushed' tree3.err &&
  "$UCOV" report --store "$WORK/tree2.db" --lcov tree2.info 2>/dev/null && "$UCOV" merge r1 r1copy -o r11.info &&
  cmp -s <(das tree2.info) <(das r11.info) && pass "push: unchanged files once, another run's twice" ||
  fail "push: unchanged files once, another run's twice: $(cat tree2.err tree3.err)"
# collect --all: one round over every target of the runtime directory (two
# servers, one request each): the store holds the sum of both runs
all_targets() {
  local url="$WORK/all.db" p0 p1 t0 f0 t1 f1
  rm -f a0.in a0.out a1.in a1.out && mkfifo a0.in a0.out a1.in a1.out
  UCOV_EXIT_DIR=$WORK/exit-all srv/server <a0.in >a0.out &
  p0=$!
  UCOV_EXIT_DIR=$WORK/exit-all srv/server <a1.in >a1.out &
  p1=$!
  exec {t0}>a0.in {f0}<a0.out {t1}>a1.in {f1}<a1.out
  for _ in $(seq 250); do [ -S "rt/$p0.sock" ] && [ -S "rt/$p1.sock" ] && break; sleep 0.02; done
  printf '%s\n' "${R[0]}" >&"$t0" && read -r _ <&"$f0"
  printf '%s\n' "${R[1]}" >&"$t1" && read -r _ <&"$f1"
  "$UCOV" collect --all --once --test both --store "$url" -q 2>all.err
  exec {t0}>&- {f0}<&- {t1}>&- {f1}<&-
  wait $p0 $p1
  "$UCOV" report --store "$url" --test both --lcov all-targets.info 2>/dev/null
  "$UCOV" merge sep0 sep1 -o sep01.info
  cmp -s <(parser all-targets.info) <(parser sep01.info) && pass "collect --all: both targets' runs" ||
    fail "collect --all: both targets' runs: $(cat all.err; diff <(parser all-targets.info) <(parser sep01.info) | head -5)"
}
all_targets
concurrent sqlite "$WORK/conc.db"
if pg_start; then
  engine postgresql "$PGURL"
  # schema 1 on PostgreSQL: partitioned by build; the merged builds' partitions go
  pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U ucov v1 >/dev/null 2>&1
  pg_as "$PG_BIN/psql" -h "$PG_DIR" -U ucov -d v1 -Atq -v ON_ERROR_STOP=1 >/dev/null <<SQL || fail "postgresql: a schema 1 store"
CREATE TABLE ucov_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO ucov_meta VALUES ('schema', '1');
CREATE TABLE builds (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, build_ids TEXT NOT NULL,
  revision TEXT NOT NULL, created BIGINT NOT NULL, UNIQUE (build_ids, revision));
CREATE TABLE sources (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, path TEXT NOT NULL,
  hash TEXT NOT NULL, UNIQUE (path, hash));
CREATE TABLE contexts (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, test TEXT NOT NULL,
  shard TEXT NOT NULL, host TEXT NOT NULL, period BIGINT NOT NULL, UNIQUE (test, shard, host, period));
CREATE TABLE pushes (hash TEXT PRIMARY KEY, build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,
  at BIGINT NOT NULL);
CREATE TABLE line_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL, source_id BIGINT NOT NULL,
  line BIGINT NOT NULL, count BIGINT NOT NULL, PRIMARY KEY (build_id, context_id, source_id, line))
  PARTITION BY LIST (build_id);
CREATE TABLE func_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL, source_id BIGINT NOT NULL,
  name TEXT NOT NULL, line BIGINT NOT NULL, count BIGINT NOT NULL,
  PRIMARY KEY (build_id, context_id, source_id, name)) PARTITION BY LIST (build_id);
CREATE TABLE branch_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,
  source_id BIGINT NOT NULL, line BIGINT NOT NULL, block BIGINT NOT NULL, branch BIGINT NOT NULL,
  executed INTEGER NOT NULL, taken BIGINT NOT NULL,
  PRIMARY KEY (build_id, context_id, source_id, line, block, branch)) PARTITION BY LIST (build_id);
CREATE TABLE line_counts_b1 PARTITION OF line_counts FOR VALUES IN (1);
CREATE TABLE line_counts_b2 PARTITION OF line_counts FOR VALUES IN (2);
CREATE TABLE line_counts_b3 PARTITION OF line_counts FOR VALUES IN (3);
CREATE TABLE func_counts_b1 PARTITION OF func_counts FOR VALUES IN (1);
CREATE TABLE func_counts_b2 PARTITION OF func_counts FOR VALUES IN (2);
CREATE TABLE func_counts_b3 PARTITION OF func_counts FOR VALUES IN (3);
CREATE TABLE branch_counts_b1 PARTITION OF branch_counts FOR VALUES IN (1);
CREATE TABLE branch_counts_b2 PARTITION OF branch_counts FOR VALUES IN (2);
CREATE TABLE branch_counts_b3 PARTITION OF branch_counts FOR VALUES IN (3);
$V1_ROWS
SELECT setval(pg_get_serial_sequence('sources', 'id'), 1), setval(pg_get_serial_sequence('contexts', 'id'), 1),
  setval(pg_get_serial_sequence('builds', 'id'), 3);
SQL
  v1url="postgresql:///v1?host=$PG_DIR&user=ucov"
  "$UCOV" store init "$v1url" 2>pv1.err &&
    "$UCOV" report --store "$v1url" --build rev1 --lcov pv1.info 2>>pv1.err && cmp -s pv1.info v1.info &&
    "$UCOV" history --store "$v1url" >pv1h.txt && [ "$(cut -f2 pv1h.txt | tr '\n' ' ')" = "rev1 rev2 " ] &&
    [ -z "$(pg_as "$PG_BIN/psql" -h "$PG_DIR" -U ucov -d v1 -Atq -c "SELECT to_regclass('line_counts_b2')" 2>>pv1.err)" ] &&
    "$UCOV" push r0 --store "$v1url" --test t0 --revision rev4 -q 2>>pv1.err && pass "postgresql: schema 1 migrated" ||
    fail "postgresql: schema 1 migrated: $(cat pv1.err pv1h.txt; diff pv1.info v1.info)"
  pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U ucov builds >/dev/null 2>&1
  [ -s tree.info ] && builds postgresql "postgresql:///builds?host=$PG_DIR&user=ucov"
  # a second database on the same server for the concurrent pushes
  pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U ucov conc >/dev/null 2>&1
  concurrent postgresql "postgresql:///conc?host=$PG_DIR&user=ucov"
  pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U ucov srv >/dev/null 2>&1
  served postgresql "postgresql:///srv?host=$PG_DIR&user=ucov"
  pg_stop
else
  # a missing server fails the test, unless PostgreSQL is left out on purpose
  if [ "${UCOV_SKIP_PG:-}" = 1 ]; then
    echo "PostgreSQL left out (UCOV_SKIP_PG=1)"
  else
    fail "no PostgreSQL server could be started (scripts/deps.sh installs postgresql; UCOV_SKIP_PG=1 leaves it out)"
  fi
fi
# No store: a clear error, status 1.
"$UCOV" report --store "postgresql:///x?host=/nonexistent" >/dev/null 2>nostore.err
[ $? = 1 ] && grep -q 'ucov report: ' nostore.err && pass "no server is said" || fail "no server: $(cat nostore.err)"
# A store file that does not exist: an error, and nothing created.
for cmd in "report --store" "who x.c:1 --store" "history --store" "tests-for --diff d.diff --store"; do
  : >d.diff
  # shellcheck disable=SC2086 # $cmd: a command and its options
  "$UCOV" $cmd "$WORK/none.db" >/dev/null 2>none.err
  [ $? = 1 ] && grep -q 'none.db: no coverage store there' none.err && [ ! -e none.db ] && pass "ucov $cmd of a missing store" ||
    fail "ucov $cmd of a missing store: $(cat none.err)"
done
# names_escaped: a test name or revision holding a TAB, a newline or a CR
# forges no column or row in who, tests-for and history: escaped, as ls does.
evil=$'t\tforged\nrow\rcr'
"$UCOV" push r1 --store esc.db --test "$evil" --revision "$evil" -q 2>esc.err || fail "push of a hostile name: $(cat esc.err)"
fline=$(grep -m1 '^FNDA:[1-9]' r1.info | cut -d, -f2)
fline=$(grep -m1 "^FN:[0-9]*,$fline\$" r1.info | cut -d: -f2 | cut -d, -f1)
"$UCOV" who "httpreq.c:$fline" --store esc.db >esc-who.txt
"$UCOV" history --store esc.db >esc-hist.txt
printf -- '--- a/httpreq.c\n+++ b/httpreq.c\n@@ -%s,1 +%s,1 @@\n-x\n+x\n' "$fline" "$fline" >esc.diff
"$UCOV" tests-for --diff esc.diff --store esc.db >esc-tf.txt
for out in esc-who.txt esc-hist.txt esc-tf.txt; do
  [ "$(wc -l <"$out")" = 1 ] && grep -qF 't\tforged\nrow\x0dcr' "$out" && ! grep -q $'\r' "$out" &&
    [ "$(awk -F'\t' '{print NF}' "$out")" = "$(case $out in esc-who.txt) echo 4 ;; esc-hist.txt) echo 6 ;; *) echo 3 ;; esac)" ] &&
    pass "${out%.txt}: a hostile name is escaped" || fail "${out%.txt}: a hostile name is escaped: $(od -c "$out" | head -4)"
done
finish store
