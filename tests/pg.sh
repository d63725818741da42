# shellcheck shell=bash
# A PostgreSQL server of the test's own: initdb in a temporary directory (as
# an unprivileged user when the test runs as root), listening only on a Unix
# socket in that directory, stopped by pg_stop. Source it, then:
#   pg_start || skip;  "$UCOV" ... --store "$PGURL";  pg_stop
# PG_MAX_CONNECTIONS (default 64) and PG_FSYNC (default off: tests need no
# durability across a crash of the machine) configure the server.
PG_BIN=
pg_find() {
  local d
  for d in "$(pg_config --bindir 2>/dev/null)" /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && PG_BIN=$d && return 0
  done
  return 1
}
# As the server's owner: root runs it as nobody, anyone else as themselves.
pg_as() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
  else
    "$@"
  fi
}
pg_start() {
  pg_find || return 1
  PG_DIR=$(mktemp -d /tmp/ucov-pg.XXXXXX) || return 1
  chmod 755 "$PG_DIR"
  [ "$(id -u)" = 0 ] && chown nobody:nogroup "$PG_DIR"
  pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U ucov --auth=trust -E UTF8 >"$PG_DIR/initdb.log" 2>&1 ||
    { cat "$PG_DIR/initdb.log" >&2; return 1; }
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
    -o "-c listen_addresses= -c unix_socket_directories=$PG_DIR -c max_connections=${PG_MAX_CONNECTIONS:-64} -c fsync=${PG_FSYNC:-off}" \
    start >/dev/null 2>&1 || { cat "$PG_DIR/server.log" >&2; return 1; }
  PGURL="postgresql:///postgres?host=$PG_DIR&user=ucov"
  export PGURL
}
pg_stop() {
  [ -n "${PG_DIR:-}" ] || return 0
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$PG_DIR"
  PG_DIR=
}
