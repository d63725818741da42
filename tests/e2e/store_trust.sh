#!/usr/bin/env bash
# A store is trusted only if it is this user's own: files (the database, its
# journal, -wal and -shm) and directory owned by another user or writable by
# others are refused with a message; a schema holding a trigger or view that
# ucov did not make is refused (a planted trigger zeroed a push's counts, a
# recursive one hung it). Read-only commands (who, history, tests-for,
# report --store) create and change no file. Another user: a uid of the
# test's own (as root; else those checks are said to be left out).
# Usage: store_trust.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
fresh_workdir
D=$SRC/examples/demo
OTHER=4242
mkdir b && (cd b && gcc --coverage -O0 -I"$D" -c "$D/httpreq.c" "$SRC/tests/integration/gcov_main.c" &&
  gcc --coverage httpreq.o gcov_main.o -o prog && ./prog 'GET / HTTP/1.1\r\nHost: a\r\n\r\n' >/dev/null) || exit 1
mkdir r && cp b/*.gcda b/*.gcno r/
mkdir -p s && chmod 755 s
"$UCOV" push r --store s/cov.db --test t -q || fail "a first push"
sides() { find "$1" -name '*.db-*' | sort | tr '\n' ' '; }
state() { md5sum "$1"/*.db 2>/dev/null; sides "$1"; }

# 1. Read-only commands leave every file as it was, an empty file included.
line=$(grep -m1 -n 'parse_method' "$D/httpreq.c" | cut -d: -f1)
printf -- '--- a/httpreq.c\n+++ b/httpreq.c\n@@ -%s,1 +%s,1 @@\n-x\n+x\n' "$line" "$line" >c.diff
mkdir -p e && : >e/empty.db
for db in s/cov.db e/empty.db; do
  dir=$(dirname "$db") && before=$(state "$dir")
  {
    "$UCOV" who "httpreq.c:$line" --store "$db" >/dev/null
    "$UCOV" history --store "$db" >/dev/null
    "$UCOV" tests-for --diff c.diff --store "$db" >/dev/null
    "$UCOV" report --store "$db" --lcov ro.info
  } 2>ro.err
  [ "$(state "$dir")" = "$before" ] && [ ! -s e/empty.db ] &&
    pass "who, history, tests-for, report --store: $db unchanged, nothing created" ||
    fail "who, history, tests-for, report --store: $db changed: $before -> $(state "$dir")" "$(cat ro.err)"
done
grep -q 'e/empty.db: no coverage store there' ro.err && pass "an empty file is no store (said)" || fail "an empty file: $(cat ro.err)"
"$UCOV" report --store s/cov.db --lcov ro.info 2>/dev/null && grep -q '^DA:' ro.info &&
  pass "report --store reads the store read-only" || fail "report --store read-only"

# refused CASE SETUP...: a copy of the store, changed by SETUP, is refused by
# push and report with a message naming why; the copy's counts are as they were.
refused() {
  local what=$1 want=$2
  shift 2
  rm -rf x && cp -r s x && chmod 755 x && "$@"
  local before rc1 rc2
  before=$(md5sum <x/cov.db)
  timeout 60 "$UCOV" push r --store x/cov.db --test t2 -q 2>x.err
  rc1=$?
  timeout 60 "$UCOV" report --store x/cov.db --lcov x.info 2>>x.err
  rc2=$?
  chmod -R u+rwX,go-w x 2>/dev/null
  [ $rc1 = 1 ] && [ $rc2 = 1 ] && grep -q "$want" x.err && [ "$(md5sum <x/cov.db)" = "$before" ] &&
    pass "refused: $what" || fail "refused: $what (push $rc1, report $rc2)" "$(head -3 x.err)"
}
refused "a store writable by others" "writable by group or others" chmod o+w x/cov.db
refused "a store writable by its group" "writable by group or others" chmod g+w x/cov.db
refused "a directory writable by others" "writable by group or others" chmod o+w x
sql() { python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' "$@"; }
refused "a planted trigger" "trigger ucov did not make" sql x/cov.db \
  "CREATE TRIGGER zero AFTER INSERT ON line_counts BEGIN UPDATE line_counts SET count = 0; END;"
refused "a planted recursive trigger" "trigger ucov did not make" sql x/cov.db \
  "PRAGMA recursive_triggers=1; CREATE TRIGGER spin AFTER UPDATE ON builds BEGIN UPDATE builds SET created = created + 1; END;"
refused "a planted view" "view ucov did not make" sql x/cov.db "CREATE VIEW v AS SELECT 1"
if [ "$(id -u)" = 0 ]; then
  refused "a store another user owns" "owned by uid $OTHER" chown $OTHER x/cov.db
  refused "a -wal another user planted" "owned by uid $OTHER" eval ": >x/cov.db-wal && chown $OTHER x/cov.db-wal && chmod 666 x/cov.db-wal"
  refused "a -journal another user planted" "owned by uid $OTHER" eval ": >x/cov.db-journal && chown $OTHER x/cov.db-journal"
  refused "a directory another user owns" "owned by uid $OTHER" chown $OTHER x
  # a sticky directory others may write (as /tmp): the store's own files decide
  mkdir -p t && chmod 1777 t && "$UCOV" push r --store t/cov.db --test t -q 2>t.err &&
    pass "a store in a sticky directory" || fail "a store in a sticky directory: $(cat t.err)"
else
  echo "store_trust: not root: the checks of another user's files are left out"
fi
# (The bound on every statement: tests/unit/test_store_db.c.)
finish store_trust
