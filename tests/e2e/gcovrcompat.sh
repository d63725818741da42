#!/usr/bin/env bash
# What gcovr users reach for, against gcovr itself (Debian 12's 5.2):
# - a report directory whose object directory is reached through a link is
#   searched through it, each real directory once (a loop, a second link);
# - --exclude-pattern-prefix RE: markers RE_EXCL_LINE/_START/_STOP/_BR_*;
# - --exclude-function-lines: the lines functions start on have no code;
#   under --line-rule gcovr, the lines (each, with its count) and the line
#   and branch totals equal gcovr's with the same options;
# - --include/--exclude match the path as written and the real path behind a
#   link (gcovr matches the real path only: ucov keeps or drops a file either
#   matches).
# Usage: gcovrcompat.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
sanflags "${4:-}"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
command -v gcovr >/dev/null || {
  echo "skip: gcovr not installed"
  exit 0
}
mkdir -p real/src real/obj reports && cp "$SRC/tests/e2e/gcovrcompat/marks.c" real/src/ &&
  (cd real/obj && gcc --coverage "${SANFLAGS[@]}" -O0 ../src/marks.c -o marks && ./marks 3 >/dev/null) ||
  fail "build and run"
# code lines "LINE COUNT" and totals of gcovr's JSON and ucov's JSON.
gcovr_lines() {
  python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    for l in f["lines"]:
        if not l["gcovr/noncode"] and not l.get("gcovr/excluded"):
            print(l["line_number"], l["count"])' "$1"
}
ucov_lines() {
  python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    for l in f["lines"]:
        print(l[0], l[1])' "$1"
}
totals() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["line_total"], d["line_covered"], d["branch_total"], d["branch_covered"])' "$1"
}
# same NAME OPTIONS...: ucov's lines and totals equal gcovr's with OPTIONS.
same() {
  local name=$1
  shift
  gcovr -r real/src real/obj "$@" --json g.json --json-summary gs.json 2>gerr.txt ||
    fail "$name: gcovr failed: $(head -2 gerr.txt)"
  "$UCOV" report real/obj --line-rule gcovr "$@" --json u.json --json-summary us.json 2>uerr.txt ||
    fail "$name: ucov report failed: $(head -2 uerr.txt)"
  [ -s u.json ] && cmp -s <(gcovr_lines g.json) <(ucov_lines u.json) &&
    [ "$(totals gs.json)" = "$(totals us.json)" ] &&
    pass "$name: lines, line and branch totals equal gcovr's ($(totals us.json))" ||
    fail "$name: differs from gcovr: $(diff <(gcovr_lines g.json) <(ucov_lines u.json) | tr '\n' ' ') totals $(totals gs.json) vs $(totals us.json)"
}
same "default markers"
same "--exclude-pattern-prefix" --exclude-pattern-prefix 'MY[CX]OV'
same "--exclude-function-lines" --exclude-function-lines
same "both" --exclude-pattern-prefix 'MYCOV' --exclude-function-lines
# The prefix changes what is excluded (the checks above could fail).
"$UCOV" report real/obj --json-summary a.json && "$UCOV" report real/obj --exclude-pattern-prefix MYCOV \
  --json-summary b.json && [ "$(totals a.json)" != "$(totals b.json)" ] &&
  pass "the prefix's markers exclude, the default ones then do not" || fail "the prefix's markers exclude"
"$UCOV" report real/obj --exclude-pattern-prefix 'MY(' >/dev/null 2>err.txt
[ $? = 2 ] && grep -q "exclude-pattern-prefix 'MY(' is not a regular expression" err.txt &&
  pass "a prefix that is no regular expression: usage error" || fail "bad prefix: $(cat err.txt)"

# Linked directories below the report directory: followed, each real one once.
ln -s ../real/obj reports/objects && ln -s ../real/obj reports/again && ln -s .. reports/loop
gcovr -r real/src reports --json-summary gs.json 2>/dev/null
"$UCOV" report reports --json-summary us.json 2>err.txt
rc=$?
[ $rc = 0 ] && [ "$(totals us.json)" = "$(totals gs.json)" ] &&
  [ "$(totals us.json)" = "$("$UCOV" report real/obj --json-summary - 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["line_total"], d["line_covered"], d["branch_total"], d["branch_covered"])')" ] &&
  pass "linked directories followed, each real one once: gcovr's totals ($(totals us.json))" ||
  fail "linked directories: rc $rc, $(totals us.json 2>/dev/null) vs gcovr $(totals gs.json) $(head -2 err.txt)"

# --include/--exclude against the real path behind a link.
mkdir -p tree/src tree/lib && cp real/src/marks.c tree/src/ && ln -s tree proj &&
  printf 'int lib(int x) { return x + 1; }\n' >tree/lib/lib.c &&
  (cd proj && gcc --coverage "${SANFLAGS[@]}" -O0 -c src/marks.c -o marks.o &&
    gcc --coverage "${SANFLAGS[@]}" -O0 -c lib/lib.c -o lib.o && gcc --coverage "${SANFLAGS[@]}" marks.o lib.o -o t &&
    ./t >/dev/null) || fail "build through the link"
files() { "$UCOV" report proj "$@" --json - 2>/dev/null | python3 -c '
import json, sys
print(" ".join(sorted(f["path"].split("/")[-1] for f in json.load(sys.stdin)["files"])))'; }
[ "$(files)" = "lib.c marks.c" ] && [ "$(files --exclude "$WORK/tree/lib/*")" = marks.c ] &&
  [ "$(files --exclude "$WORK/proj/lib/*")" = marks.c ] && [ "$(files --include "$WORK/tree/lib/*")" = lib.c ] &&
  [ "$(files --include "$WORK/proj/lib/*")" = lib.c ] &&
  pass "--include and --exclude match the path as written and the real path" ||
  fail "--include/--exclude and links: $(files) / $(files --exclude "$WORK/tree/lib/*") / $(files --include "$WORK/tree/lib/*")"
finish gcovrcompat
