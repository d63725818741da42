#!/usr/bin/env bash
# A large KCOV buffer is served from where it is: `ucov pull` (READ) and
# `ucov pull --reset` (SNAPSHOT, COMMIT) of a 256 MiB trace buffer raise the
# target's peak memory by a bounded piece, never by a copy of the buffer; the
# pulled file is the buffer (its count, its PCs), and the commit empties it.
# Usage: bigtrace.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
fresh_workdir
export UCOV_RUNTIME_DIR=$WORK/rt
WORDS=$((32 << 20)) # 256 MiB
[ -n "$SAN" ] && WORDS=$((8 << 20))
MB=$((WORDS * 8 >> 20))
CC=gcc "$UCOV" cc --trace -O1 "${SANFLAGS[@]}" "$SRC/tests/e2e/bigtrace/fill.c" -o fill || exit 1
coproc F { exec ./fill $WORDS; }
pid=$F_PID
read -r -t 120 ready n <&"${F[0]}"
[ "$ready" = ready ] || { fail "the target filled its buffer"; finish bigtrace; exit; }
wait_sock "$UCOV_RUNTIME_DIR/$pid.sock"
kb() { awk -v k="$2:" '$1 == k {print $2}' /proc/"$1"/status; }
# peak PULL...: the rise of the target's peak resident memory (MiB) over its
# resident memory before, for one pull
peak() {
  echo 5 >/proc/"$pid"/clear_refs
  local before after
  before=$(kb "$pid" VmRSS)
  "$@" 2>pull.err >/dev/null || { echo "failed: $(cat pull.err)"; return; }
  after=$(kb "$pid" VmHWM)
  echo $(((after - before) >> 10))
}
obj=$("$UCOV" ls --pid "$pid" | awk '$2 ~ /^kcov\// {print $2}')
rise=$(peak "$UCOV" pull --pid "$pid" -o p1)
size=$(stat -c %s "p1/$obj" 2>/dev/null)
first=$(od -An -t u8 -N 8 "p1/$obj" 2>/dev/null | tr -d ' ')
[ "$size" = $((8 + 8 * n)) ] && [ "$first" = "$n" ] && pass "pull: the buffer whole ($n PCs, $size bytes)" ||
  fail "pull: the buffer whole: $size bytes, count $first, want $n"
[[ $rise =~ ^[0-9]+$ ]] && [ "$rise" -lt 32 ] && pass "pull of $MB MiB: the target's peak rose $rise MiB" ||
  fail "pull of $MB MiB: the target's peak rose $rise MiB (a copy of the buffer?)"
rise=$(peak "$UCOV" pull --pid "$pid" --reset -o p2)
cmp -s "p1/$obj" "p2/$obj" && pass "pull --reset: the same buffer" || fail "pull --reset: the same buffer"
[[ $rise =~ ^[0-9]+$ ]] && [ "$rise" -lt 32 ] && pass "pull --reset of $MB MiB: the target's peak rose $rise MiB" ||
  fail "pull --reset of $MB MiB: the target's peak rose $rise MiB"
"$UCOV" pull --pid "$pid" -o p3 2>/dev/null
[ "$(stat -c %s "p3/$obj" 2>/dev/null)" = 8 ] && pass "the commit emptied the buffer" ||
  fail "the commit emptied the buffer: $(stat -c %s "p3/$obj" 2>&1)"
echo >&"${F[1]}"
wait "$pid"
finish bigtrace
