#!/usr/bin/env bash
# The bare-metal port: examples/baremetal (an i386 multiboot kernel linking the
# ucov core) booted under QEMU (TCG), its coverage pulled over the serial line
# with the same protocol as the control socket: ucov ls/pull/reset/exec/trace
# --serial. gcov line counts of a known command, reset, a KCOV trace of one
# command against its functions (per task: the scheduler's tasks trace into
# their own devices), and bad frames answered while the kernel runs.
# Exit 77 (skipped) only when qemu-system-i386 is missing (scripts/deps.sh installs it).
# Usage: baremetal.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
command -v qemu-system-i386 >/dev/null || { echo "SKIP: no qemu-system-i386"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
make -s -C "$SRC/examples/baremetal" O="$WORK/k" KCC=gcc >make.log 2>&1 && pass "the kernel builds" ||
  { fail "the kernel builds: $(tail -5 make.log)"; finish baremetal; exit 1; }
S=$WORK/serial.sock
qemu-system-i386 -kernel k/kernel.elf -serial unix:"$S",server=on,wait=off -display none \
  -monitor none -no-reboot -debugcon file:console.txt 2>qemu.log &
QEMU=$!
trap 'kill $QEMU 2>/dev/null' EXIT
# Ready when the kernel says so on its debug console (bytes sent before its
# serial port is set up would be lost).
for _ in $(seq 400); do grep -q 'serving the control protocol' console.txt 2>/dev/null && break; sleep 0.05; done

"$UCOV" exec --serial "$S" -- 'parse 2*(3+4)' >exec.txt 2>exec.err
[ "$(cat exec.txt)" = 14 ] && pass "ucov exec" || fail "ucov exec: $(cat exec.txt exec.err)"
"$UCOV" ls --serial "$S" >ls.txt 2>&1
grep -qP "^\d+\tgcov$WORK/k/parser.gcda$" ls.txt && grep -qP '^\d+\tmodules$' ls.txt && pass "ucov ls --serial" ||
  fail "ucov ls --serial: $(cat ls.txt)"

# gcov: the parse of 2*(3+4) called primary 4 times, term 3, expr 2.
"$UCOV" pull --serial "$S" -o P1 2>pull.err && [ -L P1/gcov"$WORK"/k/parser.gcno ] && pass "ucov pull --serial" ||
  fail "ucov pull --serial: $(cat pull.err)"
# Xen's blob over the serial line: xencov_split's records equal the pull's files.
"$UCOV" pull --serial "$S" --xencov k.blob 2>/dev/null &&
  python3 "$SRC/tests/e2e/xen_split.py" k.blob XS >/dev/null &&
  cmp -s "XS$WORK/k/parser.gcda" "P1/gcov$WORK/k/parser.gcda" && pass "pull --serial --xencov: a blob xencov_split splits into the pulled .gcda" ||
  fail "pull --serial --xencov: a blob xencov_split splits into the pulled .gcda"
(cd P1/gcov"$WORK"/k && gcov -t parser.gcda 2>/dev/null) >parser.gcov
grep -qE '^ +4: +[0-9]+:static long primary\(' parser.gcov &&
  grep -qE '^ +3: +[0-9]+:static long term\(' parser.gcov &&
  grep -qE '^ +2: +[0-9]+:static long expr\(' parser.gcov && pass "gcov line counts of the pulled parser.gcda" ||
  fail "gcov line counts of the pulled parser.gcda: $(grep -E 'primary|term|expr' parser.gcov)"
"$UCOV" report P1 --lcov p1.info 2>/dev/null && grep -q '^FNDA:1,parse_expr$' p1.info &&
  grep -q '^FNDA:0,kalloc$' p1.info && pass "ucov report of the pulled kernel tree" || fail "ucov report of the pulled kernel tree"

# Reset: counts start again from zero.
"$UCOV" reset --serial "$S" && "$UCOV" exec --serial "$S" -- alloc 5 >alloc.txt &&
  "$UCOV" pull --serial "$S" -o P2 2>/dev/null && "$UCOV" report P2 --lcov p2.info 2>/dev/null &&
  grep -q '^FNDA:0,parse_expr$' p2.info && grep -q '^FNDA:5,kalloc$' p2.info && pass "reset, then alloc 5" ||
  fail "reset, then alloc 5: $(cat alloc.txt; grep -E 'FNDA:[0-9]+,(parse_expr|kalloc)$' p2.info)"

# KCOV: the trace of one command holds that command task's functions and no
# other's: the scheduler's steps run in its tasks, each traced into its own
# device from boot (kcov/2.kcov counter, 3 worker, 4 idle), as kernel threads.
"$UCOV" reset --serial "$S" kcov/2.kcov kcov/3.kcov kcov/4.kcov
"$UCOV" trace --serial "$S" -o T -- sched 10 >trace.txt 2>answer.txt
grep -q 'counter 4 worker 5 idle 1' answer.txt && [ "$(grep -c '^0x' trace.txt)" -gt 10 ] && pass "ucov trace --serial" ||
  fail "ucov trace --serial: $(cat answer.txt; head -3 trace.txt)"
"$UCOV" report T --lcov t.info 2>t.err
grep -q '^FNDA:1,sched_run$' t.info && grep -q '^FNDA:1,kernel_command$' t.info &&
  grep -q '^FNDA:0,step_counter$' t.info && grep -q '^FNDA:0,step_worker$' t.info &&
  grep -q '^FNDA:0,parse_expr$' t.info && grep -q '^FNDA:0,kalloc$' t.info && pass "the command task's trace" ||
  fail "the command task's trace: $(grep FNDA t.info | tr '\n' ' ')"
"$UCOV" pull --serial "$S" -o K kcov/2.kcov kcov/3.kcov modules 2>/dev/null &&
  "$UCOV" report K/kcov/2.kcov --modules K/modules --lcov k2.info 2>/dev/null &&
  "$UCOV" report K/kcov/3.kcov --modules K/modules --lcov k3.info 2>/dev/null &&
  grep -q '^FNDA:4,step_counter$' k2.info && grep -q '^FNDA:0,step_worker$' k2.info &&
  grep -q '^FNDA:5,step_worker$' k3.info && grep -q '^FNDA:0,step_counter$' k3.info && pass "the scheduler tasks' own traces" ||
  fail "the scheduler tasks' own traces: $(grep -h 'FNDA:[1-9]' k2.info k3.info | tr '\n' ' ')"
grep -qP '^\d+\tkcov/1.kcov$' <("$UCOV" ls --serial "$S") && pass "the command task's trace buffer is an object" ||
  fail "the command task's trace buffer is an object"

# Bad frames: an error reply each, and the kernel serves on.
python3 - "$S" >frames.txt 2>&1 <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(20)
def frame(op, payload=b"", magic=0x564F4355, version=1, status=0, length=None):
    n = len(payload) if length is None else length
    return struct.pack("<IHHII", magic, version, op, status, n) + payload
def reply():
    h = b""
    while len(h) < 16:
        h += s.recv(16 - len(h))
    magic, ver, op, st, n = struct.unpack("<IHHII", h)
    d = b""
    while len(d) < n:
        d += s.recv(n - len(d))
    return st, d
cases = [
    ("garbage", b"GARBAGE-GARBAGE!", 1),
    ("bad version", frame(8, version=7), 2),
    ("too large", frame(3, length=1 << 20), 3),
    ("unknown op", frame(99), 5),
    ("empty name", frame(3), 6),
    ("no object", frame(3, b"gcov/none.gcda"), 7),
    ("payload on LIST", frame(1, b"x"), 6),
    ("truncated", frame(3, b"", length=10) , 4),
]
for name, data, want in cases:
    s.sendall(data)
    st, d = reply()
    print(name, st, "ok" if st == want else "WANT %d" % want, d.decode(errors="replace"))
    s.sendall(frame(8))
    st, d = reply()
    print("info after", name, st, "ok" if st == 0 and b"kernel=" in d else "WANT 0")
PY
[ "$(grep -c ' ok' frames.txt)" = 16 ] && pass "bad frames get an error reply" || fail "bad frames: $(grep -v ' ok' frames.txt)"
"$UCOV" exec --serial "$S" -- 'parse (1' >bad.txt && grep -q 'parse error: missing )' bad.txt &&
  "$UCOV" exec --serial "$S" -- 'parse 1/0' | grep -q 'division by zero' &&
  "$UCOV" exec --serial "$S" -- bogus | grep -q 'unknown command' && pass "bad commands get an answer" ||
  fail "bad commands get an answer: $(cat bad.txt)"
kill -0 $QEMU && "$UCOV" exec --serial "$S" -- help | grep -q 'parse EXPR' && pass "the kernel still runs" ||
  fail "the kernel still runs"
kill $QEMU

# The same over a pty (a terminal device, as a real serial port is).
qemu-system-i386 -kernel k/kernel.elf -serial pty -display none -monitor none -no-reboot \
  -debugcon file:console2.txt >qemu2.log 2>&1 &
QEMU=$!
for _ in $(seq 400); do grep -q 'serving the control protocol' console2.txt 2>/dev/null && break; sleep 0.05; done
PTY=$(grep -o '/dev/pts/[0-9]*' qemu2.log | head -1)
[ -n "$PTY" ] && [ "$("$UCOV" exec --serial "$PTY" -- 'parse 6*7')" = 42 ] &&
  "$UCOV" pull --serial "$PTY" -o PTY 2>/dev/null && [ -f "PTY/gcov$WORK/k/parser.gcda" ] && pass "over a pty ($PTY)" ||
  fail "over a pty ($PTY): $(cat qemu2.log)"
finish baremetal
