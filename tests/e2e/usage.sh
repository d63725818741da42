#!/usr/bin/env bash
# The command line as users meet it: errors that name the command, usage
# errors in one line and a "Try ... --help", `ucov help CMD`, symbolize of a
# missing binary, quiet llvm tool probing, the man pages made from --help,
# bash completion.
# Usage: usage.sh UCOV SRCDIR WORKDIR BUILDDIR
set -u
UCOV=$1 SRC=$2 WORK=$3 BUILD=$4
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
cmds=$("$UCOV" --help | sed -n 's/^  \([a-z-]\+\)  .*/\1/p')
[ "$(wc -w <<<"$cmds")" -ge 10 ] && pass "commands listed: $cmds" || fail "commands listed: $cmds"

# A bad option: getopt's line names the command, then one "Try" line; status 2.
for c in $cmds; do
  [ "$c" = cc ] && continue # (ucov cc passes what it does not know to the compiler)
  "$UCOV" "$c" --no-such-option >/dev/null 2>err.txt </dev/null
  st=$?
  [ $st = 2 ] && [ "$(wc -l <err.txt)" = 2 ] && grep -q "^ucov $c: unrecognized option '--no-such-option'$" err.txt &&
    grep -q "^Try 'ucov $c --help' for more information.$" err.txt && pass "ucov $c --no-such-option: status $st" ||
    fail "ucov $c --no-such-option: status $st, $(cat err.txt)"
done
# A misspelt option: the nearest one is suggested, between getopt's line and
# the Try line.
for args in "report x --fail-under-lnie 3:fail-under-line" "merge x -o y --jsn:json" \
  "who x.c:1 --buidl 3:build" "run --stroe x -- true:store" "collect --pid 1 --onse:once"; do
  # shellcheck disable=SC2086 # the words are separate arguments
  "$UCOV" ${args%:*} >/dev/null 2>err.txt </dev/null
  st=$?
  c=${args%% *}
  [ $st = 2 ] && [ "$(wc -l <err.txt)" = 3 ] && grep -q "^ucov $c: did you mean --${args##*:}?$" err.txt &&
    pass "ucov ${args%:*}: status $st" || fail "ucov ${args%:*}: status $st, $(cat err.txt)"
done
# Missing operands: one line saying what is missing, the Try line.
for args in "report" "merge x.info" "symbolize" "run" "trace" "ls extra"; do
  # shellcheck disable=SC2086 # the words are separate arguments
  "$UCOV" $args >/dev/null 2>err.txt </dev/null
  st=$?
  c=${args%% *}
  [ $st = 2 ] && [ "$(wc -l <err.txt)" = 2 ] && grep -q "^ucov $c: " err.txt &&
    ! grep -q '^usage:' err.txt && pass "ucov $args: status $st" || fail "ucov $args: status $st, $(cat err.txt)"
done
"$UCOV" >/dev/null 2>err.txt
[ $? = 2 ] && [ "$(wc -l <err.txt)" = 2 ] && pass "ucov alone" || fail "ucov alone: $(cat err.txt)"
"$UCOV" nosuch 2>err.txt
[ $? = 2 ] && grep -q "^ucov: unknown command 'nosuch'" err.txt && pass "unknown command" || fail "unknown command"
# Messages of a command's work name it too, not a bare "ucov:".
"$UCOV" report /nonexistent.info >/dev/null 2>err.txt
[ $? = 1 ] && grep -q '^ucov report: /nonexistent.info' err.txt && pass "report's messages name it" ||
  fail "report's messages name it: $(cat err.txt)"
"$UCOV" merge /nonexistent.info -o m.info 2>err.txt
grep -q '^ucov merge: ' err.txt && ! grep -q '^ucov: ' err.txt && pass "merge" || fail "merge: $(cat err.txt)"

# ucov help CMD is CMD --help.
for c in $cmds; do
  "$UCOV" help "$c" >h1.txt 2>&1 && "$UCOV" "$c" --help >h2.txt 2>&1 && cmp -s h1.txt h2.txt &&
    grep -q "usage: ucov $c" h1.txt || fail "ucov help $c"
done
pass "ucov help CMD is CMD --help for every command"
"$UCOV" help nosuch 2>/dev/null
[ $? = 2 ] && pass "ucov help of an unknown command" || fail "ucov help of an unknown command"

# symbolize with a binary that is not there: an error, not ?? and status 0.
echo 0x1000 | "$UCOV" symbolize --binary /nonexistent >out.txt 2>err.txt
[ $? = 1 ] && grep -q '/nonexistent' err.txt && [ ! -s out.txt ] && pass "symbolize --binary /nonexistent" ||
  fail "symbolize --binary /nonexistent: $(cat out.txt err.txt)"

# LLVM profiles: the tools tried before the right one say nothing.
printf 'int main(void) { return 0; }\n' >p.c
for v in 14 16 19; do
  command -v "clang-$v" >/dev/null || continue
  "clang-$v" -fprofile-instr-generate -fcoverage-mapping p.c -o "p$v" &&
    LLVM_PROFILE_FILE="p$v.profraw" "./p$v" || continue
  "$UCOV" report "p$v.profraw" --binary "p$v" --lcov "p$v.info" 2>err.txt && [ ! -s err.txt ] &&
    grep -q '^DA:1,1' "p$v.info" && pass "clang-$v profile: quiet probing" || fail "clang-$v profile: quiet probing: $(cat err.txt)"
done

# Man pages: one per command, from --help, that man renders cleanly.
M=$BUILD/man
for c in $cmds; do
  [ -s "$M/ucov-$c.1" ] || fail "no man page for $c"
done
[ -s "$M/ucov.1" ] && pass "ucov.1 is made" || fail "no ucov.1"
if command -v man >/dev/null && command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$M"/*.1 2>groff.txt && [ ! -s groff.txt ] && pass "the man pages format without groff warnings" ||
    fail "groff warnings: $(head -3 groff.txt)"
  MANWIDTH=100 man -l "$M/ucov-report.1" 2>/dev/null | sed 's/.\x08//g' >report.man
  grep -q -- '--fail-under-line N' report.man && grep -q '^NAME' report.man &&
    grep -q 'ucov-report - ' report.man && pass "man ucov-report" || fail "man ucov-report: $(head -5 report.man)"
  # every option --help lists is in the page
  for o in $("$UCOV" report --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    grep -q -- "$o" report.man || fail "man page lacks $o"
  done
  pass "the man page has every option of ucov report"
fi

# bash completion: commands, then the command's options from its --help.
complete() { :; } # (the script registers itself; not needed here)
# shellcheck source=share/ucov.bash
. "$SRC/share/ucov.bash"
comp() { COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) && _ucov && echo "${COMPREPLY[*]}"; }
ucov() { "$UCOV" "$@"; }
[ "$(comp ucov rep)" = report ] && pass "complete 'ucov rep'" || fail "complete 'ucov rep': $(comp ucov rep)"
[ "$(comp ucov help me)" = merge ] && pass "complete 'ucov help me'" || fail "complete 'ucov help me': $(comp ucov help me)"
got=$(comp ucov report --fail-under-)
[ "$got" = "--fail-under-branch --fail-under-function --fail-under-line --fail-under-patch" ] && pass "complete 'ucov report --fail-under-': $got" ||
  fail "complete 'ucov report --fail-under-': $got"
# only options that exist: each one offered for each command is one it takes
# (tried in a scratch directory, with no target to act on)
mkdir -p -m 0700 rt-empty scratch
for c in $cmds; do
  [ "$c" = cc ] && continue # (ucov cc passes what it does not know to the compiler)
  for o in $(comp ucov "$c" --); do
    (cd scratch && UCOV_RUNTIME_DIR=$WORK/rt-empty UCOV_STORE=$WORK/scratch/s.db timeout 5 \
      "$UCOV" "$c" "$o" </dev/null >/dev/null 2>../opt.err)
    ! grep -q 'unrecognized option' opt.err || fail "completion offers ucov $c $o, which it refuses"
  done
done
pass "completion offers only options the commands take"
touch afile.info
[ "$(comp ucov report afi)" = afile.info ] && pass "complete file names" || fail "complete file names"
finish usage
