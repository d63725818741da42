#!/usr/bin/env bash
# No one let in: every directory ucov keeps state in is private or refused,
# and every file a pull, a mount, a collect or an in-place dump writes stays
# beneath the directory it was given, whatever names a target serves; what a
# target says reaches the terminal escaped.
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
  [ -f "$sq/pid-$pid/.ucov-pending.$pid.1" ] && ! grep -q 'interrupted' err.txt && pass "collect_dir_squatted: a squatted default is left alone (status $st" ||
  fail "collect_dir_squatted: a squatted default is left alone (status $st: $(cat err.txt))"
fb=$(find tmp -maxdepth 1 -name "ucov-collect.$(id -u).*" | head -1)
[ -n "$fb" ] && [ "$(stat -c %a "$fb")" = 700 ] && pass "collect_dir_squatted: the fallback is private ($fb)" ||
  fail "collect_dir_squatted: the fallback is private ($fb)"
# collect_dir_configured_open: a configured directory that is not private is refused.
mkdir -p open && chmod 0777 open
UCOV_COLLECT_DIR=$WORK/open "$UCOV" collect --pid $pid --once --store "$WORK/c.db" 2>err.txt
st=$?
[ $st = 1 ] && grep -q "open: not a private directory of this user" err.txt && pass "collect_dir_configured_open: refused (status $st" ||
  fail "collect_dir_configured_open: refused (status $st: $(cat err.txt))"
target_stop

H=(python3 "$SRC/tests/e2e/hostile.py")
# tree_target NAME...: a target serving those objects; sets $tpid.
tree_target() {
  "${H[@]}" tree-target "$UCOV_RUNTIME_DIR" "$@" >/dev/null &
  tpid=$!
  wait_sock "rt/$tpid.sock" || fail "the tree target's socket"
}

# pull_through_own_link: a target serves gcov/X.gcda, then gcov/X.gcno/F,
# X.gcno being a directory the target's user made beside the sources. The
# pull's own .gcno link never carries a write out of DIR: links are made
# last (in one pull, F lands in DIR and the link is not made), and a link an
# earlier pull made is not a way through.
mkdir -p victim/x.gcno
tree_target "gcov$WORK/victim/x.gcda" "gcov$WORK/victim/x.gcno/F"
"$UCOV" pull --pid $tpid -o out 2>err.txt
st=$?
[ $st = 0 ] && [ ! -e victim/x.gcno/F ] && [ -f "out/gcov$WORK/victim/x.gcno/F" ] &&
  grep -q 'x.gcno: not a link: left as it is' err.txt && pass "pull_through_own_link: one pull writes F in DIR, no link (status $st" ||
  fail "pull_through_own_link: one pull writes F in DIR, no link (status $st: $(cat err.txt))"
"$UCOV" pull --pid $tpid -o out2 "gcov$WORK/victim/x.gcda" 2>err.txt &&
  [ -L "out2/gcov$WORK/victim/x.gcno" ] && pass "pull_through_own_link: the link" || fail "pull_through_own_link: the link ($(cat err.txt))"
"$UCOV" pull --pid $tpid -o out2 2>err.txt
st=$?
[ $st = 1 ] && [ ! -e victim/x.gcno/F ] && grep -q 'x.gcno/F.*: Too many levels of symbolic links' err.txt &&
  pass "pull_through_own_link: the next pull refuses F (status $st" || fail "pull_through_own_link: the next pull refuses F (status $st: $(cat err.txt))"
# pull_through_planted_link: DIR/gcov is a link to a directory elsewhere
# (planted by whoever could write DIR): the pull writes nothing through it.
mkdir -p planted elsewhere && ln -s "$WORK/elsewhere" planted/gcov
"$UCOV" pull --pid $tpid -o planted 2>err.txt
st=$?
[ $st = 1 ] && [ -z "$(ls -A elsewhere)" ] && grep -q 'Too many levels of symbolic links' err.txt &&
  pass "pull_through_planted_link: refused (status $st" || fail "pull_through_planted_link: refused (status $st: $(ls -A elsewhere; cat err.txt))"
# pull_onto_planted_file_link: an object's own name is a link to a file
# elsewhere (or a hard link to it): replaced, the file elsewhere untouched.
mkdir -p hard/gcov"$WORK"/victim && echo precious >elsewhere/file
ln -s "$WORK/elsewhere/file" "hard/gcov$WORK/victim/x.gcda"
ln "$WORK/elsewhere/file" "hard/gcov$WORK/victim/x.gcda.ucov-tmp.$$" 2>/dev/null
"$UCOV" pull --pid $tpid -o hard 2>err.txt
[ "$(cat elsewhere/file)" = precious ] && [ "$(cat "hard/gcov$WORK/victim/x.gcda")" = gcdadata ] &&
  pass "pull_onto_planted_file_link: the link replaced, not written through" || fail "pull_onto_planted_file_link: the link replaced, not written through ($(cat err.txt))"
# snapshot_malformed: a SNAPSHOT reply too short to hold its token is said
# to be one (not some stale error), and nothing is committed.
"$UCOV" pull --pid $tpid --reset -o snap 2>err.txt
st=$?
[ $st = 1 ] && grep -q 'malformed SNAPSHOT reply (3 bytes, token missing)' err.txt &&
  ! grep -q 'File exists' err.txt && pass "snapshot_malformed: said (status $st" || fail "snapshot_malformed: said (status $st: $(cat err.txt))"
# target_text_escaped: an error string from the target reaches the
# terminal with its control characters escaped.
"$UCOV" reset --pid $tpid "gcov$WORK/victim/x.gcda" 2>err.txt
! grep -q $'[\x1b\x07]' err.txt && grep -qF 'no\x1b]0;owned\x07 way' err.txt && pass "target_text_escaped" ||
  fail "target_text_escaped: ($(cat -v err.txt))"
kill $tpid
wait $tpid 2>/dev/null

# exit_tree_planted_link: the exit tree of `ucov run` (UCOV_EXIT_DIR) with
# its gcov directory a link elsewhere: the target writes nothing through it
# (and says so), and keeps running to its normal exit.
mkdir -p exittree elsewhere2 && ln -s "$WORK/elsewhere2" exittree/gcov
UCOV_EXIT_DIR=$WORK/exittree ./hammer 100 2>err.txt
st=$?
[ $st = 0 ] && [ -z "$(ls -A elsewhere2)" ] && grep -q 'Too many levels of symbolic links' err.txt &&
  pass "exit_tree_planted_link: nothing written through (status $st" || fail "exit_tree_planted_link: nothing written through (status $st: $(ls -A elsewhere2; cat err.txt))"
# in_place_planted_link: an in-place write (GCOV_PREFIX here) finds a link
# where its .gcda goes (to an empty file, which a .gcda write would fill):
# left alone, never written through.
pre=$WORK/prefix$WORK
mkdir -p "$pre" && : >elsewhere/gcda && ln -s "$WORK/elsewhere/gcda" "$pre/hammer-gcov_hammer.gcda"
GCOV_PREFIX=$WORK/prefix ./hammer 100 2>err.txt
st=$?
[ $st = 0 ] && [ ! -s elsewhere/gcda ] && grep -q 'a link: left alone' err.txt &&
  pass "in_place_planted_link: left alone (status $st" || fail "in_place_planted_link: left alone (status $st: $(cat err.txt))"

finish confined
