#!/usr/bin/env bash
# The control plane against hostile peers, both ways: lying targets (the
# client bounds every length, escapes every name, checks the peer), squatted
# runtime directories, floods of idle, slow and garbage connections, a fork
# while a client is stuck, stale sockets, and a setuid target.
# Usage: hostile.sh UCOV SRCDIR WORKDIR [SANITIZE [CC]]
# (Sanitizer builds compile the targets with CC, the runtime's compiler: two
# compilers' TSan runtimes in one process can hang a forked child.)
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-} TCC=${5:-gcc}
[ -n "$SAN" ] || TCC=gcc
. "$SRC/tests/lib.sh"
sanflags "$SAN"
# A liveness bound, not a speed figure: an answer must come while the socket
# is flooded. The bound is relative to the same run's quiet answer (a busy
# machine or a sanitizer slows both alike): BOUND_FACTOR times it, and never
# less than BOUND_FLOOR ms. A peer that locks a client out costs seconds
# (the idle eviction) or the whole timeout, far beyond either.
BOUND_FLOOR=1000
[ -n "$SAN" ] && BOUND_FLOOR=4000
BOUND_FACTOR=8
bound() { # QUIET_MS: the bound for an answer whose quiet time is QUIET_MS
  local b=$(($1 * BOUND_FACTOR))
  [ $b -lt $BOUND_FLOOR ] && b=$BOUND_FLOOR
  echo $b
}
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
H=(python3 "$SRC/tests/e2e/hostile.py")
CC=$TCC "$UCOV" cc --gcov -O0 -g "${SANFLAGS[@]}" "$SRC/examples/daemon/kvd.c" -o kvd || exit 1
CC=$TCC "$UCOV" cc --gcov --trace -O1 "${SANFLAGS[@]}" -I"$SRC/include" "$SRC/tests/e2e/forker.c" \
  -o forker || exit 1
ms() { date +%s%3N; }

# serial_noise_bounded: a serial line that streams bytes holding no frame
# magic. ucov gives up after the documented 20 s (started now, checked at the
# end, so that the wait overlaps the other checks).
"${H[@]}" noise noise.sock &
noisy=$!
for _ in $(seq 250); do [ -S noise.sock ] && break; sleep 0.02; done
noise_start=$(date +%s)
(timeout 120 "$UCOV" ls --serial noise.sock >/dev/null 2>noise.err; echo "$? $(($(date +%s) - noise_start))" >noise.st) &
noise_ls=$!

# --- Lying targets: every length bounded, every name escaped, the peer checked.
mkdir -m 700 rt
for mode in huge short garbage names; do
  coproc F { exec "${H[@]}" fake-target "$UCOV_RUNTIME_DIR" $mode; }
  read -r fpid <&"${F[0]}"
  "$UCOV" ls --pid "$fpid" >out.txt 2>err.txt
  st=$?
  case $mode in
  huge) [ $st -eq 1 ] && grep -q 'reply too large' err.txt && pass "a 0xffffffff reply length is refused (status $st" ||
    fail "a 0xffffffff reply length is refused (status $st: $(cat err.txt))" ;;
  short) [ $st -eq 1 ] && grep -q 'truncated reply' err.txt && pass "a reply shorter than its length is refused (status $st" ||
    fail "a reply shorter than its length is refused (status $st: $(cat err.txt))" ;;
  garbage) [ $st -eq 1 ] && grep -q 'not a ucov reply' err.txt && pass "garbage is not a reply (status $st" ||
    fail "garbage is not a reply (status $st: $(cat err.txt))" ;;
  names) [ $st -eq 0 ] && ! grep -q $'\x1b' out.txt && grep -qF 'gcov/a\x1b[31mred.gcda' out.txt &&
    grep -qF 'pgo/new\nline.profraw' out.txt && grep -qF 'x\\y' out.txt && pass "ls escapes names" ||
    fail "ls escapes names ($(cat -v out.txt))" ;;
  esac
  kill "$fpid"
  wait "$fpid" 2>/dev/null
done

# ls_all_bounded: ucov ls without --pid asks every target at once and gives
# each at most the listing's budget: targets that never answer, answer a
# byte at a time, never accept (a full backlog), or name themselves with
# control characters cost a couple of seconds in all, not a minute each.
./kvd kvd-ls.sock &
lspid=$!
wait_sock "rt/$lspid.sock" || fail "kvd's control socket"
fakes=()
for mode in silent silent drip deaf names; do
  "${H[@]}" fake-target "$UCOV_RUNTIME_DIR" $mode >/dev/null &
  fakes+=($!)
  wait_sock "rt/$!.sock" || fail "fake target $mode's socket"
done
sleep 0.3 # the deaf one fills its backlog
t0=$(ms)
timeout 60 "$UCOV" ls >ls.txt 2>lserr.txt
st=$? took=$(($(ms) - t0))
[ $st -eq 0 ] && [ $took -lt 2500 ] && pass "ls of silent targets took $took ms (status $st)" || fail "ls of silent targets took $took ms (status $st)"
grep -qx "$lspid	.*/kvd" ls.txt && pass "ls names the live target" || fail "ls names the live target ($(cat ls.txt))"
for f in "${fakes[@]}"; do
  grep -q "^$f	" ls.txt || fail "ls lists target $f ($(cat ls.txt))"
done
[ "$(grep -c $'\t?$' ls.txt)" = 4 ] && [ "$(grep -c 'no reply within\|not accepting' lserr.txt)" = 4 ] &&
  pass "the four that did not answer are '?', with why" || fail "the four that did not answer are '?', with why ($(cat ls.txt lserr.txt))"
! grep -q $'[\x1b\x07\x08]' ls.txt && grep -qF '/bin/\x1b]0;owned\x07x\x08y' ls.txt && pass "ls escapes a target's own name" ||
  fail "ls escapes a target's own name ($(cat -v ls.txt))"
kill "${fakes[@]}" "$lspid"
wait "${fakes[@]}" "$lspid" 2>/dev/null

# A socket named for one pid, served by another process: the peer is not the target.
./kvd kvd.sock &
kpid=$!
wait_sock "rt/$kpid.sock" || fail "kvd's control socket"
coproc F { exec "${H[@]}" fake-target "$UCOV_RUNTIME_DIR" names impostor.sock; }
read -r fpid <&"${F[0]}"
mv rt/impostor.sock "rt/$kpid.sock"
"$UCOV" ls --pid "$kpid" >out.txt 2>err.txt
[ $? -eq 1 ] && grep -q "not process $kpid" err.txt && pass "a peer with another pid is refused" ||
  fail "a peer with another pid is refused ($(cat err.txt))"
kill "$fpid" "$kpid"
wait "$fpid" "$kpid" 2>/dev/null
# A directory others may enter is not trusted by the client either.
./kvd kvd.sock &
kpid=$!
wait_sock "rt/$kpid.sock"
chmod 755 rt
"$UCOV" ls --pid "$kpid" >out.txt 2>err.txt
[ $? -eq 1 ] && grep -q 'not a private directory' err.txt && pass "client refuses a runtime directory of mode 755" ||
  fail "client refuses a runtime directory of mode 755 ($(cat err.txt))"
chmod 700 rt
"$UCOV" ls --pid "$kpid" >/dev/null && pass "and trusts it again at 700" || fail "and trusts it again at 700"

# --- REMOTE: a client's buffer must be sealed, or it could shrink it under the
# target's mapping (SIGBUS at the next append).
read -r st eno shrunk < <("${H[@]}" remote "rt/$kpid.sock" unsealed)
[ "$st" = 12 ] && [ "$eno" = 22 ] && pass "an unsealed REMOTE buffer is refused (status $st errno $eno)" || fail "an unsealed REMOTE buffer is refused (status $st errno $eno)"
read -r st eno shrunk < <("${H[@]}" remote "rt/$kpid.sock" sealed)
[ "$st" = 0 ] && [ "$shrunk" = 0 ] && pass "a sealed one is taken, and cannot shrink (status $st, shrunk $shrunk)" || fail "a sealed one is taken, and cannot shrink (status $st, shrunk $shrunk)"
kill -0 "$kpid" && pass "kvd survives the REMOTE clients" || fail "kvd survives the REMOTE clients"

# --- Availability: no client holds the others out.
# tries N CMD...: run CMD N times 0.3 s apart; sets $failed and $worst (ms).
tries() {
  local n=$1 i t0 t
  shift
  worst=0 failed=0
  for i in $(seq "$n"); do
    t0=$(ms)
    "$@" "$i" || failed=$((failed + 1))
    t=$(($(ms) - t0))
    [ $t -gt $worst ] && worst=$t
    sleep 0.3
  done
}
ls_kvd() { timeout 5 "$UCOV" ls --pid "$kpid" >out.txt 2>>err.txt && grep -q modules out.txt; }
pull_kvd() { # [PREFIX] N: a pull into deaf<PREFIX><N>
  local d=deaf$1${2:-}
  timeout 10 "$UCOV" pull --pid "$kpid" -o "$d" >/dev/null 2>>deaf.err && [ -s "$d/modules" ]
}
# The same run's quiet figures, which the bounds below are relative to.
tries 3 ls_kvd
quiet_ls=$worst
tries 3 pull_kvd quiet
quiet_pull=$worst
# (Among deaf peers a newcomer may wait for one to be marked deaf: the
# server's STALL_DEAF_MS, 1 s, before the quiet-relative part.)
ls_bound=$(bound "$quiet_ls") pull_bound=$((1000 + $(bound "$quiet_pull")))
[ $failed -eq 0 ] && pass "quiet: ls $quiet_ls ms, pull $quiet_pull ms (bounds $ls_bound and $pull_bound ms)" ||
  fail "quiet pulls failed: $(sort -u deaf.err | head -3)"
"${H[@]}" slow "rt/$kpid.sock" >slow.txt
read -r st secs <slow.txt
[ "$st" = 4 ] && awk -v s="$secs" 'BEGIN { exit !(s >= 1.5 && s < 4) }' && pass "a frame dripped byte by byte is cut off after ~2 s (status $st after $secs s)" ||
  fail "a frame dripped byte by byte is cut off after ~2 s (status $st after $secs s)"
hold() { # hold N idle connections to socket $1 in the background: $holder
  "${H[@]}" hold "$1" 64 >hold.txt &
  holder=$!
  for _ in $(seq 250); do [ -s hold.txt ] && break; sleep 0.02; done
  held=$(cat hold.txt)
}
hold "rt/$kpid.sock"
sleep 0.3
t0=$(ms)
timeout 5 "$UCOV" ls --pid "$kpid" >out.txt 2>err.txt
st=$?
t1=$(ms)
[ $st -eq 0 ] && grep -q modules out.txt && [ $((t1 - t0)) -lt "$ls_bound" ] && pass "ls answers in < $ls_bound ms while $held idle connections are held (status $st" ||
  fail "ls answers in < $ls_bound ms while $held idle connections are held (status $st, $((t1 - t0)) ms)"
kill $holder
wait $holder 2>/dev/null
"${H[@]}" storm "rt/$kpid.sock" 1000 30 >storm.txt &
stormer=$!
tries 15 ls_kvd
wait $stormer
[ $failed -eq 0 ] && [ $worst -lt "$ls_bound" ] && pass "ls during a storm of" ||
  fail "ls during a storm of $(cat storm.txt) hostile connections: $failed failed, worst $worst ms"
kill -0 "$kpid" && "$UCOV" ls --pid "$kpid" >/dev/null && pass "kvd still serving" || fail "kvd still serving"
# deaf_peers_evicted: 1000 peers that pipeline LIST and never read a reply
# hold no slot against a newcomer (a server thread stuck sending to one is
# evicted like an idle one): each pull gets through within the bound.
"${H[@]}" deaf "rt/$kpid.sock" 1000 15 >deaf.txt &
deafer=$!
sleep 4
tries 8 pull_kvd
wait $deafer
[ $failed -eq 0 ] && [ $worst -lt "$pull_bound" ] && pass "pull among" ||
  fail "pull among $(cat deaf.txt) deaf peers: $failed of 8 failed, worst $worst ms, bound $pull_bound ($(sort -u deaf.err | head -3))"
kill -0 "$kpid" && "$UCOV" ls --pid "$kpid" >/dev/null && pass "kvd still serving after the deaf" || fail "kvd still serving after the deaf"

# An idle connection is closed after ~10 s (checked while the rest goes on:
# nothing else crowds kvd meanwhile, so it is not evicted).
"${H[@]}" idle "rt/$kpid.sock" >idle.txt &
idler=$!

# --- fork while a client is stuck mid-reply and 64 others idle: the child
# starts from nothing (no wait at its exit, serves its own clients).
# (TSan sleeps a second at any exit with threads running, and LeakSanitizer
# stops the world to scan at every exit: neither here, where the exit is timed.)
coproc FK {
  TSAN_OPTIONS="${TSAN_OPTIONS:-}:atexit_sleep_ms=0" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
    exec ./forker
}
read -t 60 -r ready count <&"${FK[0]}"
fk=$FK_PID
wait_sock "rt/$fk.sock"
"$UCOV" ls --pid "$fk" | grep -q 'kcov/1.kcov' && pass "forker's trace is an object ($ready $count)" || fail "forker's trace is an object ($ready $count)"
# READ the 16 MiB trace and never read the reply: the server's thread is stuck
# sending it, a request in flight.
python3 - "rt/$fk.sock" <<'PY' &
import socket, struct, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
name = b"kcov/1.kcov"
s.sendall(struct.pack("<IHHII", 0x564F4355, 1, 3, 0, len(name)) + name)
time.sleep(8)
PY
stuck=$!
hold "rt/$fk.sock"
sleep 0.5
echo 2 >&"${FK[1]}"
read -t 30 -r _ child <&"${FK[0]}"
wait_sock "rt/$child.sock"
t0=$(ms)
timeout 5 "$UCOV" ls --pid "$child" >out.txt 2>err.txt && grep -q modules out.txt &&
  [ $(($(ms) - t0)) -lt "$ls_bound" ] && pass "a child forked while 64 clients idle serves its own" ||
  fail "a child forked while 64 clients idle serves its own ($(cat err.txt))"
read -t 30 -r _ texit <&"${FK[0]}"
read -t 30 -r _ treap <&"${FK[0]}"
awk -v a="$texit" -v b="$treap" 'BEGIN { exit !(b - a < 0.5) }' && pass "the child's exit does not wait for the parent's stuck client" ||
  fail "the child's exit does not wait for the parent's stuck client ($(awk -v a="$texit" -v b="$treap" 'BEGIN { print b - a }') s)"
kill $holder $stuck 2>/dev/null
wait $holder $stuck 2>/dev/null
exec {fkin}>&"${FK[1]}"- # stdin closed: forker exits
exec {fkin}>&-
for _ in $(seq 300); do kill -0 "$fk" 2>/dev/null || break; sleep 0.1; done
kill -0 "$fk" 2>/dev/null && { fail "forker exits when its stdin closes"; kill -9 "$fk"; }
wait "$fk"

# --- Stale sockets: a killed target's socket is cleaned by clients and by the next target.
./kvd kvd2.sock &
dead=$!
wait_sock "rt/$dead.sock"
kill -9 $dead
wait $dead 2>/dev/null
[ -S "rt/$dead.sock" ] && pass "a killed target leaves its socket" || fail "a killed target leaves its socket"
"$UCOV" ls >targets.txt
grep -q "^$kpid"$'\t'".*/kvd$" targets.txt && ! grep -q "^$dead"$'\t' targets.txt &&
  [ ! -e "rt/$dead.sock" ] && pass "ls lists the live targets and cleans the stale" || fail "ls lists the live targets and cleans the stale ($(cat targets.txt))"
./kvd kvd2.sock &
dead=$!
wait_sock "rt/$dead.sock"
kill -9 $dead
wait $dead 2>/dev/null
"$UCOV" ls --pid $dead 2>err.txt
[ $? -eq 1 ] && grep -q "no process $dead" err.txt && [ ! -e "rt/$dead.sock" ] && pass "ls --pid of a killed target cleans its socket" ||
  fail "ls --pid of a killed target cleans its socket ($(cat err.txt))"
./kvd kvd2.sock &
dead=$!
wait_sock "rt/$dead.sock"
kill -9 $dead
wait $dead 2>/dev/null
./kvd kvd3.sock &
next=$!
wait_sock "rt/$next.sock"
[ ! -e "rt/$dead.sock" ] && pass "the next target cleans stale sockets" || fail "the next target cleans stale sockets"
wait $idler
secs=$(cat idle.txt)
awk -v s="$secs" 'BEGIN { exit !(s >= 9 && s < 14) }' && pass "an idle connection is closed after ~10 s (after $secs s)" ||
  fail "an idle connection is closed after ~10 s (after $secs s)"
kill $next $kpid
wait $next $kpid 2>/dev/null

# --- As root, in a private mount namespace with its own /tmp: squatters and setuid.
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
  chmod 755 "$WORK"
  # The namespace hides /tmp, where this tree may be: what runs there is
  # copied here and called by relative paths (the working directory stays).
  cp "$UCOV" ./ucov-ns && cp "$SRC/tests/e2e/hostile.py" ./hostile-ns.py
  cat >ns.sh <<'NS'
set -u
mount -t tmpfs tmpfs /tmp || exit 3
chmod 1777 /tmp
unset UCOV_RUNTIME_DIR XDG_RUNTIME_DIR
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
# In the background, $! must be the program's own pid: exec in the subshell.
as_bg() { local u=$1; shift; exec setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
export GCOV_PREFIX=/tmp/gcda
try_squat() { # $1: what the squatter (uid 1) made of /tmp/ucov-65534
  as_bg 65534 ./kvd /tmp/k.sock 2>/tmp/target.err &
  local t=$!
  for _ in $(seq 250); do ls /tmp/ucov-65534.*/"$t.sock" >/dev/null 2>&1 && break; sleep 0.02; done
  # The squatter's fake socket for that pid, where a trusting client would look.
  as_bg 1 python3 "$HOSTILE" fake-target /tmp/ucov-65534 names "$t.sock" >/dev/null 2>&1 &
  local f=$!
  sleep 0.3
  as 65534 "$UCOV" ls --pid "$t" >/tmp/ls.txt 2>/tmp/ls.err
  if grep -q modules /tmp/ls.txt && ! grep -q red /tmp/ls.txt; then echo "ok squat $1"; else
    echo "FAIL squat $1: $(cat /tmp/ls.err /tmp/target.err)"; fi
  grep -q 'serving from /tmp/ucov-65534\.' /tmp/target.err && echo "ok squat $1 said" ||
    echo "FAIL squat $1: the target says where it serves ($(cat /tmp/target.err))"
  kill "$t" "$f" 2>/dev/null
  wait "$t" "$f" 2>/dev/null
}
as 1 mkdir -m 777 /tmp/ucov-65534
try_squat directory
rm -rf /tmp/ucov-65534 /tmp/ucov-65534.*
as 1 mkdir -m 777 /tmp/evil
as 1 ln -s /tmp/evil /tmp/ucov-65534
try_squat symlink
# setuid: UCOV_* paths from the caller are ignored (secure_getenv).
cp kvd /tmp/suid && chmod 4755 /tmp/suid
mkdir -m 777 /tmp/callers
UCOV_RUNTIME_DIR=/tmp/callers as_bg 65534 /tmp/suid /tmp/s.sock 2>/dev/null &
s=$!
for _ in $(seq 250); do [ -S "/tmp/ucov-0/$s.sock" ] && break; sleep 0.02; done
if [ -S "/tmp/ucov-0/$s.sock" ] && [ -z "$(ls /tmp/callers)" ]; then echo "ok setuid"; else
  echo "FAIL setuid: UCOV_RUNTIME_DIR was honoured ($(ls /tmp/callers /tmp/ucov-0 2>&1))"; fi
kill $s 2>/dev/null
wait $s 2>/dev/null
NS
  UCOV=./ucov-ns HOSTILE=./hostile-ns.py unshare -m --propagation private bash ns.sh >ns.txt 2>&1
  for what in "squat directory" "squat directory said" "squat symlink" "squat symlink said" setuid; do
    grep -qx "ok $what" ns.txt && pass "$what" || fail "$what: $(grep "FAIL $what" ns.txt)"
  done
else
  echo "squatting and setuid checks skipped: they need root and unshare -m"
fi

wait $noise_ls
read -r st took <noise.st
[ "$st" = 1 ] && [ "$took" -ge 19 ] && [ "$took" -le 30 ] && grep -q 'no reply within 20 s' noise.err &&
  pass "serial_noise_bounded: ls --serial gives up after 20 s (status $st after $took s" || fail "serial_noise_bounded: ls --serial gives up after 20 s (status $st after $took s: $(cat noise.err))"
kill $noisy 2>/dev/null
wait $noisy 2>/dev/null

finish hostile
