#!/usr/bin/env bash
# A recovery that is correct by construction: `ucov pull --reset` with a
# kill, EIO or ENOSPC injected (strace -e inject) at every system call it
# makes, recovered at once, after 1,000 later commits, and after the target
# exited (from the commit record it leaves). The pulled trees and the exit
# files add up exactly: nothing lost, nothing twice. A pull exits 0 only with
# its files published. A target killed outright leaves snapshots whose fate
# cannot be known: kept aside, said by ucov report, settled by --resolve.
# Every faulty pull has counts of its own: the target gets a byte (1,000
# more steps) before each, so a snapshot lost is seen whichever it is.
# Usage: recovery.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
fresh_workdir
fault_setup recovery
SUM=(python3 "$SRC/tests/e2e/sumcounts.py")
N=200000
# want B: the counts of an undisturbed run fed B bytes
want() {
  [ -d "ref$1" ] || head -c "$1" /dev/zero | UCOV_EXIT_DIR=$WORK/ref$1 ./hammer $N linger
  "${SUM[@]}" "ref$1"
}
[ "$(want 1)" -gt "$(want 0)" ] && pass "the reference runs count" || fail "the reference runs count ($(want 0), $(want 1))"
start() { target_start "$WORK/$1" ./hammer $N linger; }

# The system calls of one pull --reset, each with how often it is made.
start exit0
strace -f -qq -o calls.txt "$UCOV" pull --pid $pid --reset -o probe 2>/dev/null
target_stop
mapfile -t calls < <(awk '{ sub(/\(.*/, "", $2); print $2 }' calls.txt | grep -E \
  '^(openat|openat2|close|read|write|pread64|rename|renameat2?|fsync|fdatasync|syncfs|unlink|unlinkat|symlink|symlinkat|mkdir|mkdirat|newfstatat|sendto|sendmsg|recvfrom|poll|getdents64|connect|linkat|link)$' |
  sort | uniq -c | awk '{ print $2 " " $1 }')
[ ${#calls[@]} -gt 8 ] && pass "the pull's system calls were listed (${#calls[@]})" || fail "the pull's system calls were listed (${#calls[@]})"

# (sanitizer builds run several times slower: a kill and an error suffice there)
FAULTS=(kill EIO ENOSPC)
[ -n "$SAN" ] && FAULTS=(kill ENOSPC)
# inject DIR SYSCALL K FAULT: a byte to the target, then one pull into DIR
# with FAULT at SYSCALL's K-th call.
# (pulls that exited 0 unfinished are listed in bad_exit.txt: inject runs in
# a subshell, inject_all's command substitution)
: >bad_exit.txt
inject() {
  local how
  printf x >&"$target_in"
  case $4 in
    kill) how=signal=SIGKILL ;;
    *) how=error=$4 ;;
  esac
  mkdir -p "$(dirname "$1")"
  strace -f -qq -o /dev/null -e inject="$2:$how:when=$3" \
    "$UCOV" pull --pid $pid --reset -o "$1" >/dev/null 2>"$1.err"
  local st=$?
  mkdir -p "$1"
  # a pull that exits 0 has published everything it pulled
  if [ $st = 0 ] && [ -n "$(find "$1" -name '.ucov-pending.*' -o -name '*.ucov-tmp.*')" ]; then
    echo "$2 #$3 $4" >>bad_exit.txt
  fi
}
# every fault at every call, into dirs under $1 (recovering at once if $2 = now)
inject_all() {
  local call name count k f i=0
  for call in "${calls[@]}"; do
    read -r name count <<<"$call"
    for k in $(seq "$count"); do
      for f in "${FAULTS[@]}"; do
        case $f:$name in ENOSPC:read | ENOSPC:pread64 | ENOSPC:recvfrom | ENOSPC:poll | ENOSPC:getdents64 | ENOSPC:connect | ENOSPC:close | ENOSPC:newfstatat) continue ;; esac
        i=$((i + 1))
        inject "$1/$i" "$name" "$k" "$f"
        [ "$2" = now ] && "$UCOV" pull --pid $pid --recover -o "$1/$i" 2>/dev/null
      done
    done
  done
  echo "$i"
}

# recovered_at_once
start exit1
runs=$(inject_all a now)
"$UCOV" pull --pid $pid --reset -o a/last 2>/dev/null
target_stop
got=$(($("${SUM[@]}" a) + $("${SUM[@]}" exit1))) want=$(want "$runs")
[ "$got" -eq "$want" ] && pass "recovered_at_once: $runs faulty pulls: $got counts, want $want" || fail "recovered_at_once: $runs faulty pulls: $got counts, want $want"

# recovered_after_1000_commits
start exit2
runs=$(inject_all b later)
for j in $(seq 1000); do "$UCOV" pull --pid $pid --reset -o "later/$j" 2>/dev/null; done
for d in b/*/; do "$UCOV" pull --pid $pid --recover -o "$d" 2>/dev/null; done
target_stop
got=$(($("${SUM[@]}" b) + $("${SUM[@]}" later) + $("${SUM[@]}" exit2))) want=$(want "$runs")
[ "$got" -eq "$want" ] && pass "recovered_after_1000_commits: $runs faulty pulls: $got counts, want $want" ||
  fail "recovered_after_1000_commits: $runs faulty pulls: $got counts, want $want"

# recovered_after_exit: the target wrote its exit files and its commit record
start exit3
tpid=$pid
runs=$(inject_all c later)
target_stop
for d in c/*/; do "$UCOV" pull --pid $tpid --recover -o "$d" 2>>c.err; done
got=$(($("${SUM[@]}" c) + $("${SUM[@]}" exit3))) want=$(want "$runs")
[ "$got" -eq "$want" ] && pass "recovered_after_exit: $runs faulty pulls: $got counts, want $want" || fail "recovered_after_exit: $runs faulty pulls: $got counts, want $want"
[ -z "$(find c -name '.ucov-pending.*' -o -name '.ucov-unresolved.*' -o -name '*.ucov-tmp.*')" ] &&
  pass "recovered_after_exit: every pull settled" || fail "recovered_after_exit: every pull settled ($(find c -name '.ucov-*' | head -3))"
[ ! -s bad_exit.txt ] && pass "exit_0_means_published" ||
  fail "exit_0_means_published: $(wc -l <bad_exit.txt) pulls exited 0 unfinished ($(head -3 bad_exit.txt | tr '\n' ' '))"

# published_from_record: a pull killed after its commit, before publishing;
# then the target is killed outright. Its commit record says committed.
start exit4
kpid=$pid
# (the rename that publishes the .gcda, after the commit)
n_rename=$(grep ' renameat(' calls.txt | grep -n '\.gcda")' | head -1 | cut -d: -f1)
strace -f -qq -o /dev/null -e inject=renameat:signal=SIGKILL:when="$n_rename" \
  "$UCOV" pull --pid $kpid --reset -o e >/dev/null 2>&1
kill -9 $kpid
target_stop
"$UCOV" pull --pid $kpid --recover -o e 2>e.err
[ -n "$(find e -name '*.gcda' ! -name '*.ucov-tmp.*')" ] && [ -z "$(find e -name '.ucov-*')" ] &&
  pass "published_from_record" || fail "published_from_record: $(cat e.err)"

# kept_aside_when_unknowable: a pull killed before its COMMIT left the
# process, then the target killed outright (no exit files, no exit in its
# record): whether its counts are anywhere else cannot be known.
start exit5
kpid=$pid
# (the last message before the publishing rename: the COMMIT)
n_send=$(awk '/ sendto\(/ { n++ } / renameat\(.*\.gcda"\)/ { print n; exit }' calls.txt)
strace -f -qq -o /dev/null -e inject=sendto:signal=SIGKILL:when="$n_send" \
  "$UCOV" pull --pid $kpid --reset -o d >/dev/null 2>&1
kill -9 $kpid
target_stop
"$UCOV" pull --pid $kpid --recover -o d 2>d.err
st=$?
[ $st = 0 ] && grep -q 'kept aside' d.err && [ -n "$(find d -name '.ucov-unresolved.*')" ] &&
  [ -n "$(find d -name '*.ucov-tmp.*')" ] && pass "kept_aside_when_unknowable: kept, said (status $st" ||
  fail "kept_aside_when_unknowable: kept, said (status $st: $(cat d.err))"
"$UCOV" report d --lcov d.info 2>rep.err
grep -q 'unresolved' rep.err && pass "kept_aside_when_unknowable: ucov report says so" || fail "kept_aside_when_unknowable: ucov report says so ($(cat rep.err))"
aside=$(python3 - <<PY
import os, struct, sys
sys.path.insert(0, "$SRC/tests/e2e")
t = 0
for r, _, fs in os.walk("d"):
    for f in fs:
        if ".ucov-tmp." in f and ".gcda" in f:
            import sumcounts
            t += sumcounts.gcda_arcs(open(os.path.join(r, f), "rb").read())
print(t)
PY
)
"$UCOV" pull --resolve publish -o d 2>res.err
[ "$("${SUM[@]}" d)" -ge "$aside" ] && [ "$aside" -gt 0 ] && [ -z "$(find d -name '.ucov-unresolved.*' -o -name '*.ucov-tmp.*')" ] &&
  pass "kept_aside_when_unknowable: --resolve publish publishes ($aside" || fail "kept_aside_when_unknowable: --resolve publish publishes ($aside: $(cat res.err))"

finish recovery
