#!/usr/bin/env bash
# Which campaign first reached a line, and when: `ucov who` gives each test
# the time of its earliest push that counted the line. Two campaigns push
# a second apart, in turn, reaching different lines: a line only one reached
# has its push time; a line both reached has each's own first push, and the
# earlier is the campaign that reached it first; a push of a line already
# counted keeps the earlier time; `ucov history --test` draws a campaign's
# reach over time from those times: lines, functions and branches (schema
# 5; a schema 4 store is migrated).
# Usage: firstseen.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
sanflags "${4:-}"
rm -rf "$WORK" && mkdir -p "$WORK/b" && cd "$WORK/b" || exit 1
cat >p.c <<'C'
#include <stdlib.h>
int main(int argc, char **argv) {
  int v = argc > 1 ? atoi(argv[1]) : 0;
  if (v == 1)
    return 1; /* line 5: campaign a, first */
  if (v == 2)
    return 2; /* line 7: b first, then a */
  return 0;
}
C
"$UCOV" cc --gcov "${SANFLAGS[@]}" p.c -o p || fail "build"
db=$WORK/s.db
# push K NAME ARG: one run of p, pushed as that test; the seconds before and
# after the push in t.K
push() {
  rm -f ./*.gcda
  ./p "$3"
  date +%s >"$WORK/t.$1"
  "$UCOV" push . --store "$db" --test "$2" --revision r1 -q || fail "push $2 $3"
  date +%s >>"$WORK/t.$1"
  sleep 1.1
}
# within FIRST K: FIRST is the time of push K
within() { [ -n "$1" ] && [ "$1" -ge "$(head -1 "$WORK/t.$2")" ] && [ "$1" -le "$(tail -1 "$WORK/t.$2")" ]; }
push 1 a 1
push 2 b 2
push 3 a 2
push 4 a 1
# first TEST LINE: who's fourth column for that test, in seconds since the epoch
first() {
  local iso
  iso=$("$UCOV" who "p.c:$2" --store "$db" | awk -F'\t' -v t="$1" '$1 == t {print $4}')
  [ -n "$iso" ] && [ "$iso" != - ] && date -u -d "$iso" +%s
}
f5=$(first a 5) f7a=$(first a 7) f7b=$(first b 7)
within "$f5" 1 && [ -z "$(first b 5)" ] &&
  pass "a line one campaign reached: its first push's time, the second push's not" ||
  fail "line 5: a first at '$f5', pushed at $(tr '\n' - <"$WORK/t.1") (and again later)"
within "$f7b" 2 && within "$f7a" 3 && [ "$f7b" -lt "$f7a" ] &&
  pass "a line both reached: each its own first push; b reached it first" ||
  fail "line 7: b at '$f7b', a at '$f7a'"
"$UCOV" who "p.c:5" --store "$db" | cut -f4 | grep -qE '^[0-9]+-[0-9]+-[0-9]+T[0-9]+:[0-9]+:[0-9]+Z$' &&
  [ "$("$UCOV" who "p.c:5" --store "$db" | awk -F'\t' '{print NF}')" = 4 ] &&
  pass "who: test, hits, path, first (UTC)" || fail "who's columns: $("$UCOV" who "p.c:5" --store "$db")"
# history --test: campaign a's reach over time, a row per push that first
# counted lines, functions or branches (push 4 counted none new): lines so
# far, new, functions so far, branches so far
"$UCOV" history --store "$db" --test a >reach.txt 2>reach.err
t1=$(date -u -d "$(sed -n 1p reach.txt | cut -f1)" +%s 2>/dev/null)
t2=$(date -u -d "$(sed -n 2p reach.txt | cut -f1)" +%s 2>/dev/null)
read -r _ c1 n1 fn1 br1 < <(sed -n 1p reach.txt)
read -r _ c2 n2 fn2 br2 < <(sed -n 2p reach.txt)
[ "$(wc -l <reach.txt)" = 2 ] && within "$t1" 1 && within "$t2" 3 && [ "$c1" = "$n1" ] &&
  [ "$c2" = $((c1 + n2)) ] && [ "$n2" -ge 1 ] &&
  pass "history --test a: its reach over time, pushes 1 and 3 ($(tr '\t\n' ' ;' <reach.txt))" ||
  fail "history --test a: $(cat reach.txt reach.err)"
# functions and branches so far, as the store's own report of campaign a
# gives them at the end (main from the first push; branches grow)
"$UCOV" report --store "$db" --test a --lcov a.info 2>/dev/null
fa=$(awk -F: '$1 == "FNH" {f += $2} $1 == "BRH" {b += $2} END {print f, b}' a.info 2>/dev/null)
[ "$fn1" = 1 ] && [ "$fn2" = 1 ] && [ -n "$br1" ] && [ "$br1" -ge 1 ] && [ -n "$br2" ] && [ "$br2" -gt "$br1" ] &&
  [ "$fa" = "$fn2 $br2" ] &&
  pass "history --test a: functions so far $fn1, $fn2; branches so far $br1, $br2 (the report's: $fa)" ||
  fail "history --test a: functions '$fn1' '$fn2', branches '$br1' '$br2'; the report's '$fa'"
"$UCOV" history --store "$db" --test nosuch >/dev/null 2>err.txt
[ $? = 1 ] && grep -q "no test 'nosuch' in the store" err.txt && pass "history --test of a test not there: an error" ||
  fail "history --test nosuch: $(cat err.txt)"
# a store of schema 4 (no first_at on functions and branches) is migrated
# by the next push: its old rows have no time, the new push's have
cp "$db" "$WORK/v4.db"
python3 - "$WORK/v4.db" <<'PY' || fail "making a schema 4 store"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""
ALTER TABLE func_counts DROP COLUMN first_at;
ALTER TABLE branch_counts DROP COLUMN first_at;
UPDATE ucov_meta SET value = '4' WHERE key = 'schema';
""")
db.commit()
PY
rm -f ./*.gcda && { ./p 2; "$UCOV" push . --store "$WORK/v4.db" --test c --revision r1 -q 2>v4.err; }
"$UCOV" history --store "$WORK/v4.db" --test c >v4.txt 2>>v4.err
v=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM ucov_meta WHERE key=\"schema\"").fetchone()[0])' "$WORK/v4.db")
read -r _ _ _ fc bc <v4.txt
[ "$v" = 5 ] && [ "$(wc -l <v4.txt)" = 1 ] && [ "$fc" = 1 ] && [ "$bc" -ge 1 ] &&
  pass "a schema 4 store migrated to 5 by a push: functions and branches get their times ($(tr '\t' ' ' <v4.txt))" ||
  fail "schema 4 migration: version '$v'; $(cat v4.txt v4.err)"
finish firstseen
