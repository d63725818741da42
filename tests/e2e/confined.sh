#!/usr/bin/env bash
# No one let in: every directory ucov keeps state in is private or refused,
# and every file a pull, a mount, a collect or an in-place dump writes stays
# beneath the directory it was given, whatever names a target serves.
# Usage: confined.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
CC=gcc "$UCOV" cc --gcov -O1 -pthread -fprofile-update=atomic "${SANFLAGS[@]}" \
  "$SRC/tests/integration/gcov_hammer.c" -o hammer || exit 1
start() { target_start "$WORK/$1" ./hammer 1000 linger; }
root=0
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && root=1

# collect_dir_squatted: another user made the default collect directory,
# world-writable, with a planted snapshot. collect keeps its snapshots in a
# private directory of its own, and never reads the planted one.
start exit1
mkdir -p tmp
sq=$WORK/tmp/ucov-collect.$(id -u)
mkdir -p "$sq/pid-$pid/gcov" && chmod 0777 "$sq" "$sq/pid-$pid"
[ $root = 1 ] && chown -R nobody "$sq"
printf 'ucov-pending 1\ntarget %s\ntoken 1\nobjects 1\ngcov/x.gcda\0' "$pid" >"$sq/pid-$pid/.ucov-pending.$pid.1"
TMPDIR=$WORK/tmp "$UCOV" collect --pid $pid --once --store "$WORK/c.db" 2>err.txt
st=$?
[ $st = 0 ] && grep -q "is not a private directory of this user: keeping snapshots in $sq\." err.txt &&
  [ -f "$sq/pid-$pid/.ucov-pending.$pid.1" ] && ! grep -q 'interrupted' err.txt && pass ||
  fail "collect_dir_squatted: a squatted default is left alone (status $st: $(cat err.txt))"
fb=$(find tmp -maxdepth 1 -name "ucov-collect.$(id -u).*" | head -1)
[ -n "$fb" ] && [ "$(stat -c %a "$fb")" = 700 ] && pass ||
  fail "collect_dir_squatted: the fallback is private ($fb)"
# collect_dir_configured_open: a configured directory that is not private is refused.
mkdir -p open && chmod 0777 open
UCOV_COLLECT_DIR=$WORK/open "$UCOV" collect --pid $pid --once --store "$WORK/c.db" 2>err.txt
st=$?
[ $st = 1 ] && grep -q "open: not a private directory of this user" err.txt && pass ||
  fail "collect_dir_configured_open: refused (status $st: $(cat err.txt))"
target_stop

finish confined
