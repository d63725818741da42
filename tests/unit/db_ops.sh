#!/usr/bin/env bash
# The statement interface's conformance test on both engines: SQLite, and a
# PostgreSQL server this test starts (tests/pg.sh). A server that cannot be
# started is a failure, not a skip, unless UCOV_SKIP_PG=1 says to leave
# PostgreSQL out (then said).
# Usage: db_ops.sh TEST-BINARY SRCDIR WORKDIR
set -u
BIN=$1 SRC=$2 WORK=$3
# shellcheck source=tests/pg.sh
. "$SRC/tests/pg.sh"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
if pg_start; then
  trap pg_stop EXIT
  "$BIN" "$WORK/conf.db" "$PGURL"
elif [ "${UCOV_SKIP_PG:-}" = 1 ]; then
  echo "db_ops: PostgreSQL left out (UCOV_SKIP_PG=1): SQLite only"
  "$BIN" "$WORK/conf.db"
else
  echo "db_ops: no PostgreSQL server could be started (scripts/deps.sh installs postgresql;" \
    "UCOV_SKIP_PG=1 leaves it out)" >&2
  exit 1
fi
