#!/usr/bin/env bash
# `ucov collect` with a kill, EIO or ENOSPC injected (strace -e inject) at
# every system call it makes, recovered at once (by the next collector),
# after 1,000 later commits, and after the target exited. The store plus the
# target's exit files hold exactly the counts of an undisturbed run: nothing
# lost, nothing twice, whatever failed. A round pushed twice under another
# test name adds nothing. Every faulty round has counts of its own: the
# target gets a byte (1,000 more steps) before each, so a round lost is seen
# whichever it is.
# Usage: collect_recovery.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
fresh_workdir
fault_setup collect_recovery
N=200000
# the counts of one run: every DA and FNDA record of the hammer. (Not BRDA:
# the partitions are solved one by one, and a round taken while the target
# sits in its linger loop's read() shows that block's branches as "-" in
# the partition where the loop was entered; the arcs add up, the lcov
# branch records of separate partitions need not.)
recs() { awk '/^SF:.*gcov_hammer.c$/{p=1} /^end_of_record/{p=0} p' "$1" | grep -E '^(DA|FNDA):' | sort; }
# want B: the records of an undisturbed run fed B bytes
want() {
  if [ ! -f "ref$1.info" ]; then
    head -c "$1" /dev/zero | UCOV_EXIT_DIR=$WORK/ref$1 ./hammer $N linger
    "$UCOV" merge "ref$1" -o "ref$1.info" 2>/dev/null
  fi
  recs "ref$1.info"
}
[ -n "$(want 0)" ] && [ "$(want 0)" != "$(want 1)" ] && pass "the reference runs have counts" || fail "the reference runs have counts"
start() { target_start "$WORK/$1" ./hammer $N linger; }
# total STORE EXITDIR: the store's counts plus the exit files', as lcov
total() {
  "$UCOV" report --store "$1" --lcov "$1.info" 2>/dev/null || : >"$1.info"
  "$UCOV" merge "$1.info" "$2" -o "$1.total.info" 2>/dev/null
  recs "$1.total.info"
}

# The system calls of one collect round, each with how often it is made.
start exit0
mkdir -m 700 probe
strace -f -qq -o calls.txt env UCOV_COLLECT_DIR="$WORK/probe" \
  "$UCOV" collect --pid $pid --once --store probe.db -q 2>/dev/null
target_stop
[ "$(total probe.db exit0)" = "$(want 0)" ] && pass "an undisturbed collect adds up" || fail "an undisturbed collect adds up"
mapfile -t calls < <(awk '{ sub(/\(.*/, "", $2); print $2 }' calls.txt | grep -E \
  '^(openat|openat2|close|read|write|pread64|pwrite64|renameat2?|fsync|fdatasync|syncfs|unlink|unlinkat|symlinkat|mkdir|mkdirat|newfstatat|sendto|recvfrom|poll|getdents64|connect|linkat|fcntl|ftruncate|lseek)$' |
  sort | uniq -c | awk '{ print $2 " " $1 }')
[ ${#calls[@]} -gt 12 ] && pass "the collect's system calls were listed (${#calls[@]})" || fail "the collect's system calls were listed (${#calls[@]})"

# Every call in the unsanitized builds, the three faults in turn (call k of a
# kind gets one of them; a fault a call cannot have, ENOSPC on a read, gives
# way to the next); each kind's first, middle and last call with every fault
# in the later scenarios and in sanitizer builds (several times slower).
FAULTS=(kill EIO ENOSPC)
[ -n "$SAN" ] && FAULTS=(kill EIO)
# faults_at MODE NAME K COUNT: the faults for call K of NAME
faults_at() {
  local f
  local -a out=()
  for f in "${FAULTS[@]}"; do
    case $f:$2 in ENOSPC:read | ENOSPC:pread64 | ENOSPC:recvfrom | ENOSPC:poll | ENOSPC:getdents64 | ENOSPC:connect | ENOSPC:close | ENOSPC:newfstatat | ENOSPC:fcntl | ENOSPC:lseek) continue ;; esac
    out+=("$f")
  done
  if [ "$1" = all ] && [ -z "$SAN" ]; then
    echo "${out[$(($3 % ${#out[@]}))]}"
  elif [ "$3" = 1 ] || [ "$3" = $((($4 + 1) / 2)) ] || [ "$3" = "$4" ]; then
    printf '%s\n' "${out[@]}"
  fi

}
# inject STORE COLLECTDIR SYSCALL K FAULT: a byte to the target, then one
# collect round with FAULT at SYSCALL's K-th call.
inject() {
  local how
  printf x >&"$target_in"
  case $5 in
    kill) how=signal=SIGKILL ;;
    *) how=error=$5 ;;
  esac
  mkdir -p "$2" && chmod 700 "$2"
  UCOV_COLLECT_DIR=$2 strace -f -qq -o /dev/null -e inject="$3:$how:when=$4" \
    "$UCOV" collect --pid $pid --once --test "t$RANDOM" --store "$1" -q >/dev/null 2>&1
}
# inject_all STORE all|sample DIR shared|each: faulty rounds (see above),
# each in DIR (one shared waiting room) or DIR/<i> (one each)
inject_all() {
  local call name count k f i=0 dir
  for call in "${calls[@]}"; do
    read -r name count <<<"$call"
    for k in $(seq "$count"); do
      for f in $(faults_at "$2" "$name" "$k" "$count"); do
        i=$((i + 1))
        dir=$3
        [ "$4" = each ] && dir=$3/$i
        inject "$1" "$dir" "$name" "$k" "$f"
      done
    done
  done
  echo "$i"
}

# recovered_at_once: every faulty round is finished by the next collector
# (each one settles the rounds before it), then one clean round.
start exit1
runs=$(inject_all a.db all "$WORK/ca" shared)
UCOV_COLLECT_DIR=$WORK/ca "$UCOV" collect --pid $pid --once --store a.db -q 2>/dev/null
target_stop
[ "$(total a.db exit1)" = "$(want "$runs")" ] && pass "recovered_at_once: $runs faulty rounds" ||
  fail "recovered_at_once: $runs faulty rounds: $(diff <(total a.db exit1) <(want "$runs") | head -4)"
[ -z "$(find ca -name 'round.*')" ] && pass "recovered_at_once: rounds left" || fail "recovered_at_once: rounds left ($(find ca -name 'round.*' | head -3))"

# walk_errors_each: EIO at each directory read and each look at an entry
# (getdents64, newfstatat) of a round, in a room of its own so that every
# call is hit whatever the rounds before did, then the next collector at
# once. (glibc's nftw takes a directory it failed to read for one that
# ended: a round walked so was "empty" and removed, its counts with it.)
start exit5
runs=0
for call in "${calls[@]}"; do
  read -r name count <<<"$call"
  case $name in getdents64 | newfstatat) ;; *) continue ;; esac
  for k in $(seq "$count"); do
    [ -n "$SAN" ] && [ "$k" != 1 ] && [ "$k" != $(((count + 1) / 2)) ] && [ "$k" != "$count" ] && continue
    runs=$((runs + 1))
    inject e.db "$WORK/ce/$runs" "$name" "$k" EIO
    UCOV_COLLECT_DIR=$WORK/ce/$runs "$UCOV" collect --pid $pid --once --store e.db -q 2>/dev/null
  done
done
target_stop
[ "$(total e.db exit5)" = "$(want "$runs")" ] && pass "walk_errors_each: $runs faulty rounds" ||
  fail "walk_errors_each: $runs faulty rounds: $(diff <(total e.db exit5) <(want "$runs") | head -4)"
[ -z "$(find ce -name 'round.*')" ] && pass "walk_errors_each: no round left behind" || fail "walk_errors_each: rounds left ($(find ce -name 'round.*' | head -3))"

# recovered_after_1000_commits: each faulty round in a waiting room of its
# own; 1,000 pulls commit meanwhile; then a collector in each room.
start exit2
runs=$(inject_all b.db sample "$WORK/cb" each)
for j in $(seq 1000); do "$UCOV" pull --pid $pid --reset -o "later/$j" 2>/dev/null; done
for d in cb/*/; do UCOV_COLLECT_DIR=$WORK/$d "$UCOV" collect --pid $pid --once --store b.db -q 2>/dev/null; done
target_stop
"$UCOV" merge later exit2 -o exit2.info 2>/dev/null
[ "$(total b.db exit2.info)" = "$(want "$runs")" ] && pass "recovered_after_1000_commits: $runs faulty rounds" ||
  fail "recovered_after_1000_commits: $runs faulty rounds: $(diff <(total b.db exit2.info) <(want "$runs") | head -4)"

# recovered_after_exit: the target wrote its exit files and its commit
# record; a collector in each room finishes the rounds from the record.
start exit3
runs=$(inject_all c.db sample "$WORK/cc" each)
target_stop
for d in cc/*/; do UCOV_COLLECT_DIR=$WORK/$d "$UCOV" collect --pid $pid --once --store c.db -q 2>/dev/null; done
[ "$(total c.db exit3)" = "$(want "$runs")" ] && pass "recovered_after_exit: $runs faulty rounds" ||
  fail "recovered_after_exit: $runs faulty rounds: $(diff <(total c.db exit3) <(want "$runs") | head -4)"
[ -z "$(find cc -name '.ucov-pending.*' -o -name '.ucov-unresolved.*')" ] && pass "recovered_after_exit: every round settled" ||
  fail "recovered_after_exit: every round settled ($(find cc -name '.ucov-*' | head -3))"

# pushed_twice_counted_once: a collector killed after its push, before it
# removed the round (the round's files kept, as a kill there leaves them):
# the next collector, under another test name, pushes it again: nothing added.
start exit4
mkdir -m 700 cd
# (the first removal of a round's file: after the push committed)
n_rm=$(grep ' unlink(' calls.txt | grep -n '/round\.' | head -1 | cut -d: -f1)
(UCOV_COLLECT_DIR=$WORK/cd strace -f -qq -o /dev/null -e inject=unlink:signal=SIGKILL:when="$n_rm" \
  "$UCOV" collect --pid $pid --once --test A --store d.db -q) >/dev/null 2>&1
left=$(find cd -maxdepth 2 -name 'round.*' | wc -l)
UCOV_COLLECT_DIR=$WORK/cd "$UCOV" collect --pid $pid --once --test B --store d.db -q 2>/dev/null
target_stop
[ "$left" -ge 1 ] && [ "$(total d.db exit4)" = "$(want 0)" ] && pass "pushed_twice_counted_once: ($left rounds left)" ||
  fail "pushed_twice_counted_once: ($left rounds left) $(diff <(total d.db exit4) <(want 0) | head -4)"

finish collect_recovery
