#!/usr/bin/env bash
# ucov.ko in a stock Debian kernel, under QEMU: the headers and the image of
# one suite's kernel (fetch_kernel.sh: 6.1, or bookworm-backports' 6.12;
# apt-get download and dpkg-deb -x, cached), the initramfs holds
# busybox-static, ucov.ko, the demo module (examples/linux-module,
# instrumented by ucov.mk), the contexts' module (ctx/) and kcov.rst's
# programs and ours (static). In the guest: insmod both, write an expression to the
# demo device, run kcov.rst's PC and CMP programs, whose traced call reads it;
# reset gcov, evaluate a set of expressions, run gcov.rst's gather_on_test.sh.
# The results come back on the serial console and are checked here: the PCs
# are the demo module's code (its functions, by addr2line on its .ko), the
# comparisons hold the operands the parser compared; lcov's kernel mode reads
# the gathered tree, and its line counts of the parser equal those of a
# userspace build of the same parser given the same expressions.
# The ucov command runs in the guest too (its libraries copied in): `ucov ls`
# and two `ucov pull --reset` through /dev/ucov around a second workload,
# whose counts partition exactly. Then kcov.c's errno for sizes and mmap
# lengths (kcov_errno.c), REMOTE sections in every context (kcov_ctx.c),
# the stress, a fuzzer (kcov_fuzz.c), the unloads; the log must show no
# warning, the taint only O and E, and no vmalloc area of ucov.ko's outlive it.
# Usage: linux.sh UCOV SRCDIR WORKDIR [SUITE]
# SUITE: the Debian suite whose kernel is built against and booted
# (tests/kernel/fetch_kernel.sh): bookworm (the default: Debian 12's 6.1,
# the installed headers) or bookworm-backports (6.12); or debug: Debian's
# 6.1 source built with lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, KASAN and
# DEBUG_OBJECTS in a preemptible kernel (build_kernel.sh debug, cached),
# which report what stock kernels let pass (sleeping where the caller may
# not, locks and RCU misused, memory used after free).
# Every guest runs with panic_on_warn=1, as syzkaller's machines do.
# Environment: UCOV_KERNEL_CACHE (default: ~/.cache/ucov/kernel),
# UCOV_QEMU_ACCEL (default tcg; kvm where /dev/kvm works),
# UCOV_STRESS_SECONDS (default 30; scripts/demo.sh runs it shorter and
# prints what it found), UCOV_FUZZ_SECONDS (default 30).
set -u
UCOV=$1 SRC=$(cd "$2" && pwd) WORK=$3 SUITE=${4:-bookworm}
. "$SRC/tests/lib.sh"
. "$SRC/tests/kernel/ctx_checks.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)

# The headers, and the image of the same package version.
if [ "$(uname -m)" != x86_64 ]; then
  echo "kernel checks skipped: Debian's amd64 kernel needs an x86_64 host"
  exit 77
fi
CACHE=${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}
if [ "$SUITE" = debug ]; then
  got=$(bash "$SRC/tests/kernel/build_kernel.sh" debug "$CACHE" 2>fetch.err)
else
  got=$(bash "$SRC/tests/kernel/fetch_kernel.sh" "$SUITE" "$CACHE" 2>fetch.err)
fi || {
  fail "the $SUITE kernel: $(cat fetch.err)"
  finish linux
  exit 1
}
read -r KDIR VMLINUZ <<<"$got"
kver=${KDIR##*/linux-headers-}
[ "$SUITE" = debug ] && kver="$(make -s -C "$KDIR" kernelrelease 2>/dev/null) ($(cat "$KDIR/../done"))"
pass "the $SUITE kernel $kver: headers and image"

# ucov.ko, then the demo module against its Module.symvers: copies of the
# kbuild directories (kbuild writes beside the sources), the core from SRC.
mkdir -p tree/kernel tree/examples
mkdir -p tree/tests/kernel
cp -r "$SRC/kernel/linux" tree/kernel/ && cp -r "$SRC/examples/linux-module" "$SRC/examples/baremetal" tree/examples/ &&
  cp -r "$SRC/tests/kernel/ctx" "$SRC/tests/kernel/many" tree/tests/kernel/
make -s -C tree/kernel/linux KDIR="$KDIR" UCOV_SRC="$SRC" >build.log 2>&1 &&
  make -s -C tree/examples/linux-module KDIR="$KDIR" UCOV_DIR="$WORK/tree" >>build.log 2>&1 &&
  make -s -C tree/tests/kernel/ctx KDIR="$KDIR" UCOV_DIR="$WORK/tree" >>build.log 2>&1 &&
  make -s -C tree/tests/kernel/many KDIR="$KDIR" UCOV_DIR="$WORK/tree" >>build.log 2>&1 &&
  pass "ucov.ko, the demo module and the contexts' module build" || { fail "modules: $(grep -m3 -i 'error\|warning' build.log)"; finish linux; exit 1; }
! grep -qi 'warning' build.log && pass "the modules build without warnings" || fail "module build warnings: $(grep -m3 -i warning build.log)"
[ "$(objdump -dr tree/examples/linux-module/ucov_demo.ko | grep -c '__sanitizer_cov_trace_pc')" -gt 20 ] &&
  [ "$(objdump -dr tree/kernel/linux/ucov.ko | grep -c 'R_X86_64_[A-Z0-9]*[[:space:]]*__sanitizer_cov')" = 0 ] && pass "the demo module is instrumented, ucov.ko is not" ||
  fail "the demo module is instrumented, ucov.ko is not"

# The initramfs.
for p in kcov_pc kcov_cmp kcov_stress kcov_hold kcov_modes kcov_remote kcov_exit kcov_ctx kcov_fuzz kcov_errno timed; do
  gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/$p.c" -o $p || { fail "$p"; finish linux; exit 1; }
done
mkdir -p ir/bin ir/proc ir/sys ir/dev ir/tmp
cp /bin/busybox ir/bin/busybox && cp kcov_pc kcov_cmp kcov_stress kcov_hold kcov_modes kcov_remote kcov_exit kcov_ctx kcov_fuzz kcov_errno timed ir/bin/ &&
  cp tree/kernel/linux/ucov.ko tree/examples/linux-module/ucov_demo.ko tree/tests/kernel/ctx/ucov_ctx.ko \
    tree/tests/kernel/many/ucov_many.ko ir/ &&
  cp "$SRC/tests/kernel/gather_on_test.sh" ir/ &&
  printf '#!/bin/sh\nexec /bin/sh "$@"\n' >ir/bin/bash && chmod +x ir/bin/bash
# The demo module the guest loads has no names of its gcov data (gcc's
# __gcov_.<function> objects): ucov.ko finds its units without them.
objcopy --wildcard --strip-symbol='__gcov_.*' ir/ucov_demo.ko &&
  [ "$(nm ir/ucov_demo.ko | grep -c ' __gcov_\.')" = 0 ] &&
  pass "the demo module's gcov data symbols stripped" || fail "stripping the demo module's gcov data symbols"
# The gcov workload: each expression evaluated once, in the guest and here.
EXPRS=("2 * (3 + 4) - 10 / 5" "(1 + 2" "7 % 3 - -4" "8 / (4 - 4)" "12 x" "((((5))))" "1+2+3+4*5")
printf '%s\n' "${EXPRS[@]}" >ir/exprs.txt
# ... and a second one, between two pulls with --reset.
EXPRS2=("-(-(-3))" "1 - 2 - 3 - 4" "9 % 0" "6 * 7" ")")
printf '%s\n' "${EXPRS2[@]}" >ir/exprs2.txt
# ... and a third, which the host pulls through the relay.
EXPRS3=("((2))*3-4%3")
printf '%s\n' "${EXPRS3[@]}" >ir/exprs3.txt
echo "${UCOV_STRESS_SECONDS:-30}" >ir/stress_seconds
echo "${UCOV_FUZZ_SECONDS:-30}" >ir/fuzz_seconds
many_small=${UCOV_MANY_UNITS:-500}
echo "$many_small $((8 * many_small))" >ir/many_sizes
# The ucov command, with the libraries it loads, where it finds them.
guest_ucov "$UCOV" ir || fail "ucov into the initramfs"
{
  cat "$SRC/tests/kernel/guest_init_head.sh"
  cat <<'INIT'
insmod /ucov.ko && say "insmod ucov ok"
insmod /ucov_demo.ko && say "insmod demo ok"
[ -c /sys/kernel/debug/kcov ] || [ -f /sys/kernel/debug/kcov ] && say "kcov file ok"
echo "text $(cat /sys/module/ucov_demo/sections/.text)" | sed 's/^/UCOV-GUEST /'
echo '2 * (3 + 4) - 10 / 5' >/dev/ucov-demo
say "demo reads $(cat /dev/ucov-demo)"
/bin/kcov_pc >/tmp/pc.txt 2>/tmp/pc.err && say "kcov_pc ok"
sed 's/^/UCOV-PC /' /tmp/pc.txt
sed 's/^/UCOV-GUEST pc-err /' /tmp/pc.err
/bin/kcov_cmp >/tmp/cmp.txt 2>/tmp/cmp.err && say "kcov_cmp ok"
/bin/kcov_modes "$(cat /sys/module/ucov_demo/sections/.text)" 2>&1 | sed 's/^/UCOV-GUEST modes /'
/bin/kcov_remote "$(cat /sys/module/ucov_demo/sections/.text)" 2>&1 | sed 's/^/UCOV-GUEST /'
# kcov.c's errno for the sizes a client passes (tests/kernel/kcov_errno.c).
/bin/kcov_errno 2>&1 | sed 's/^/UCOV-GUEST /'
# A reader of one module's gcov file reads on while another module comes
# and goes (its files alone are added and removed).
exec 7<"$(find /sys/kernel/debug/gcov -name '*.gcda' | head -1)"
# REMOTE sections in every context, under contention (tests/kernel/ctx).
insmod /ucov_ctx.ko && say "insmod ctx ok"
echo "ctxtext $(cat /sys/module/ucov_ctx/sections/.text)" | sed 's/^/UCOV-GUEST /'
/bin/kcov_ctx 100 >/tmp/ctx.txt 2>&1 && say "kcov_ctx ok"
sed 's/^/UCOV-CTX /' /tmp/ctx.txt
rmmod ucov_ctx && say "rmmod ctx ok"
cat <&7 >/tmp/held.gcda && say "read across loads ok $(wc -c </tmp/held.gcda)"
exec 7<&-
sed 's/^/UCOV-CMP /' /tmp/cmp.txt
sed 's/^/UCOV-GUEST cmp-err /' /tmp/cmp.err
[ -L /sys/kernel/debug/gcov/kernel/gcov/base.gcno ] && say "gcov base.gcno ok"
say "gcov units $(find /sys/kernel/debug/gcov -name '*.gcda' | wc -l)"
echo 1 >/sys/kernel/debug/gcov/reset && say "gcov reset ok"
while read -r e; do
  printf '%s' "$e" >/dev/ucov-demo
  say "eval $(cat /dev/ucov-demo)"
done </exprs.txt
/bin/bash /gather_on_test.sh /tmp/gcov.tar.gz >/tmp/gather.out 2>&1 && say "gather ok"
# (and the tree as lcov's kernel mode copies it, for lcov on the host)
cp -a /sys/kernel/debug/gcov /tmp/gcovcopy && say "cp -a ok"
ucov ls --dev /dev/ucov >/tmp/ls.txt 2>/tmp/ls.err && say "ucov ls gcda $(grep -c '\.gcda$' /tmp/ls.txt)"
ucov pull --dev /dev/ucov --reset -o /tmp/P1 >/tmp/p1.out 2>&1 && say "pull 1 ok"
while read -r e; do
  printf '%s' "$e" >/dev/ucov-demo
  say "eval2 $(cat /dev/ucov-demo)"
done </exprs2.txt
ucov pull --dev /dev/ucov --reset -o /tmp/P2 >/tmp/p2.out 2>&1 && say "pull 2 ok"
sed 's/^/UCOV-GUEST ucov-err /' /tmp/ls.err /tmp/p1.out /tmp/p2.out
# The host's `ucov --serial` through the relay on the second serial port,
# while the guest waits for the host's word on the third.
printf '%s' "$(cat /exprs3.txt)" >/dev/ucov-demo
say "eval3 $(cat /dev/ucov-demo)"
stty -F /dev/ttyS2 raw -echo
ucov relay --dev /dev/ucov --tty /dev/ttyS1 >/tmp/relay.out 2>/tmp/relay.err &
relay=$!
for _ in $(seq 300); do grep -q ready /tmp/relay.out && break; sleep 0.1; done
say "RELAY-READY"
read -r word </dev/ttyS2
kill $relay
say "relay done $word"
sed 's/^/UCOV-GUEST relay-err /' /tmp/relay.err
echo UCOV-TAR-BEGIN
tar czf - -C /tmp gcov.tar.gz gcovcopy P1 P2 | base64
echo UCOV-TAR-END
# At scale: /dev/ucov serving SMALL and then 8 times as many gcov units
# (tests/kernel/many); each command's fastest of 3 runs, in microseconds.
for n in $(cat /many_sizes); do
  insmod /ucov_many.ko units=$n && say "insmod many $n ok"
  say "many $n ls $(/bin/timed 3 ucov ls --dev /dev/ucov)"
  say "many $n pull $(/bin/timed 3 ucov pull --dev /dev/ucov -o /tmp/M$n-%d)"
  say "many $n reset $(/bin/timed 3 ucov pull --dev /dev/ucov --reset -o /tmp/R$n-%d)"
  say "many $n pulled $(ls /tmp/M$n-0/gcov/ucov-many | grep -c '\.gcda$') $(ls /tmp/R$n-2/gcov/ucov-many | grep -c '\.gcda$')"
  say "many $n u00006 $(od -An -tx1 -v /tmp/M$n-0/gcov/ucov-many/u00006.gcda | tr -d ' \n')"
  rm -rf /tmp/M$n-* /tmp/R$n-*
  rmmod ucov_many && say "rmmod many $n ok"
done
# Tasks that exit with their device enabled: disabled and freed as they end
# (ucov.ko's unload at the end needs their references gone).
n_exit=0
for _ in 1 2 3 4 5; do /bin/kcov_exit && n_exit=$((n_exit + 1)); done
say "exited enabled $n_exit"
# Load: tracers and plain readers of the demo device at once (30 s).
/bin/kcov_stress "$(cat /sys/module/ucov_demo/sections/.text)" "$(cat /stress_seconds)" >/tmp/stress.txt 2>&1
say "$(cat /tmp/stress.txt)"
# Fuzzing: frames, ioctls and races from several threads (tests/kernel/kcov_fuzz.c).
/bin/kcov_fuzz "$(cat /fuzz_seconds)" >/tmp/fuzz.txt 2>&1 && say "fuzz ok"
say "$(cat /tmp/fuzz.txt)"
# Unloading: the demo module while a client has it open is refused; while a
# client holds a KCOV device enabled (not the demo device), it goes, and so do
# its gcov units; ucov.ko while that device is open is refused.
exec 4</dev/ucov-demo
rmmod ucov_demo 2>/tmp/rm.err || [ ! -d /sys/module/ucov_demo ] || say "rmmod demo while open refused"
exec 4<&-
mkfifo /tmp/hold.in
/bin/kcov_hold </tmp/hold.in >/tmp/hold.out 2>&1 &
hold=$!
exec 5>/tmp/hold.in
for _ in $(seq 100); do grep -q held /tmp/hold.out && break; sleep 0.1; done
say "$(cat /tmp/hold.out)"
rmmod ucov_demo && say "rmmod demo ok"
say "units after rmmod $(ucov ls --dev /dev/ucov 2>&1 | grep -c '\.gcda$')"
rmmod ucov 2>/tmp/rm.err || [ ! -d /sys/module/ucov ] || say "rmmod ucov while held refused"
echo go >&5
exec 5>&-
wait $hold
say "hold exit $?"
# Nothing of ucov.ko's left in vmalloc space once it is gone: its areas
# before the unload (their callers, ucov.ko's functions, are tagged
# [ucov]); after it, any of them still there has a caller that no longer
# resolves.
grep '\[ucov\]' /proc/vmallocinfo | awk '{print $1}' >/tmp/vm-before
say "vmalloc before unload $(wc -l </tmp/vm-before)"
rmmod ucov && say "rmmod ucov ok"
say "vmalloc left $(grep -F -f /tmp/vm-before /proc/vmallocinfo | grep -c ' 0x[0-9a-f]* ')"
say "taint $(cat /proc/sys/kernel/tainted)"
dmesg | grep -i -E 'warn|bug|oops|ucov|call trace|general protection|blocked for more|atomic|vmalloc|allocation failure|out of memory' |
  sed 's/^/UCOV-DMESG /'
say done
reboot -f # (with -no-reboot QEMU ends; a kernel without ACPI cannot power off)
INIT
} >ir/init && chmod +x ir/init
(cd ir && find . | cpio -o -H newc 2>/dev/null | gzip -1 >../initrd.gz) || { fail "initramfs"; finish linux; exit 1; }

# A pulled tree's .gcno links, made here: the notes files are on this build
# machine, not in the guest (a pull where they are makes them itself).
relink() { # TREE
  find "$1/gcov" -name '*.gcda' | while read -r g; do
    local n=${g#"$1"/gcov}
    ln -sf "${n%.gcda}.gcno" "${g%.gcda}.gcno"
  done
}

# ttyS0: the console, into a file; ttyS1: the relay's line; ttyS2: the host's
# word to go on.
accel=${UCOV_QEMU_ACCEL:-tcg}
rm -f relay.sock ctl.sock console.txt
guest_time=400 cpu=max
[ "$SUITE" = debug ] && guest_time=1500 # (KASAN and lockdep under TCG: several times slower)
# The debug kernel runs without 5-level paging: 6.1's identify_cpu() clears
# the boot CPU's feature words with interrupts on, and KASAN's bound on
# addresses follows X86_FEATURE_LA57, so an interrupt in that window saw its
# irq_desc in the 5-level direct map (0xff11...) as a wild access and, with
# panic_on_warn, the boot died at random (0.1 s, identify_cpu).
[ "$SUITE" = debug ] && cpu=max,la57=off
timeout $guest_time qemu-system-x86_64 -accel "$accel" -cpu $cpu -smp 2 -m 1024 -display none -monitor none \
  -no-reboot -serial file:console.txt -serial unix:relay.sock,server=on,wait=off \
  -serial unix:ctl.sock,server=on,wait=off \
  -kernel "$VMLINUZ" -initrd initrd.gz -append "console=ttyS0 panic=-1 panic_on_warn=1 quiet" \
  </dev/null >qemu.out 2>&1 &
qemu=$!
for _ in $(seq $((guest_time * 8))); do
  grep -q RELAY-READY console.txt 2>/dev/null && break
  kill -0 $qemu 2>/dev/null || break
  sleep 0.1
done
timeout 120 "$UCOV" ls --serial relay.sock >relay-ls.txt 2>relay-ls.err
timeout 120 "$UCOV" pull --serial relay.sock -o H >relay-pull.out 2>&1
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"go\n")' ctl.sock 2>/dev/null
wait $qemu
tr -d '\r' <console.txt >console.log
# Through the relay: the same objects as in the guest, and the third
# workload's counts, as a userspace run of it counts them.
[ "$(grep -c '\.gcda$' relay-ls.txt)" = 2 ] && pass "ucov ls --serial through the relay" ||
  fail "ucov ls --serial through the relay: $(head -3 relay-ls.txt relay-ls.err)"
relink H
lcov -q --capture --rc lcov_gcov_dir="$WORK/H/gcov" -o h.info >lcov-h.out 2>&1 ||
  fail "lcov over the tree pulled through the relay: $(head -3 relay-pull.out)"
guest() { grep -q "UCOV-GUEST $1" console.log; }
for what in "insmod ucov ok" "insmod demo ok" "kcov file ok" "demo reads 12" "kcov_pc ok" \
  "insmod ctx ok" "kcov_ctx ok" "rmmod ctx ok" "read across loads ok [1-9]" \
  "kcov_cmp ok" "gcov base.gcno ok" "gcov units 2" "gcov reset ok" "gather ok" "cp -a ok" "ucov ls gcda 2" \
  "pull 1 ok" "pull 2 ok" "RELAY-READY" "relay done go" "exited enabled 5" "stress ok" "rmmod demo while open refused" "held [1-9]" \
  "rmmod demo ok" "units after rmmod 0" "rmmod ucov while held refused" "hold exit 0" \
  "rmmod ucov ok" "fuzz ok" "vmalloc left 0" "done"; do
  guest "$what" && pass "guest: $what" || fail "guest: $what ($(grep -m3 'UCOV-GUEST .*-err \|Oops\|BUG' console.log))"
done

# /dev/ucov at scale: every unit pulled and its counts, and 8 times the units
# costs at most 24 times the time (linear: 8; a walk of every object for each
# one: 64), the fastest of 3 runs of each, the guest's clock.
read -r many_small many_big <ir/many_sizes
for n in "$many_small" "$many_big"; do
  guest "insmod many $n ok" && guest "rmmod many $n ok" && guest "many $n pulled $n $n" &&
    pass "/dev/ucov serves and pulls $n units" ||
    fail "/dev/ucov with $n units: $(grep "UCOV-GUEST .*many $n" console.log | head -5 | tr '\n' ' ')"
  # unit 6's counters, 6 to 9 (u64, low word first), in its pulled .gcda
  grep -q "UCOV-GUEST many $n u00006 .*0600000000000000070000000000000008000000000000000900000000000000" console.log &&
    pass "a pulled unit's counts, $n units" || fail "a pulled unit's counts, $n units: $(grep "many $n u00006" console.log)"
done
for what in ls pull reset; do
  a=$(sed -n "s/^UCOV-GUEST many $many_small $what \([0-9][0-9]*\)$/\1/p" console.log)
  b=$(sed -n "s/^UCOV-GUEST many $many_big $what \([0-9][0-9]*\)$/\1/p" console.log)
  [ -n "$a" ] && [ -n "$b" ] && [ "$b" -le $((24 * a)) ] &&
    pass "/dev/ucov $what: $many_small units ${a} us, $many_big units ${b} us" ||
    fail "/dev/ucov $what grows faster than the units: $many_small units ${a:-?} us, $many_big units ${b:-?} us"
done

# EXT: as many ENTRY as EXIT records, and NORMAL ones; UNIQUE: a second
# identical read adds no PC.
read -r _ _ _ ext_in ext_out ext_normal <<<"$(grep -a -o 'UCOV-GUEST modes ext .*' console.log)"
[ "${ext_in:-0}" -ge 1 ] && [ "$ext_in" = "${ext_out:-}" ] && [ "${ext_normal:-0}" -gt 10 ] && pass "KCOV_TRACE_PC_EXT" ||
  fail "KCOV_TRACE_PC_EXT: $(grep -a 'UCOV-GUEST modes' console.log | tr '\n' ' ')"
read -r _ _ _ uniq_first uniq_second <<<"$(grep -a -o 'UCOV-GUEST modes unique .*' console.log)"
[ "${uniq_first:-0}" -gt 10 ] && [ "${uniq_second:-x}" = 0 ] && pass "KCOV_UNIQUE_ENABLE" ||
  fail "KCOV_UNIQUE_ENABLE: $(grep -a 'UCOV-GUEST modes' console.log | tr '\n' ' ')"
# REMOTE: the work item's PCs, collected for the client's common handle, all
# the module's.
read -r _ remote_n remote_in <<<"$(grep -a -o 'UCOV-GUEST remote .*' console.log | cut -d' ' -f2-)"
[ "${remote_n:-0}" -gt 10 ] && [ "$remote_n" = "${remote_in:-}" ] && pass "KCOV_REMOTE_ENABLE (kcov_remote_start_common in a work item)" ||
  fail "KCOV_REMOTE_ENABLE (kcov_remote_start_common in a work item): $(grep -a 'UCOV-GUEST remote' console.log)"
# kcov.c's errno: every check the guest made, and enough of them.
[ "$(grep -a -c 'UCOV-GUEST errno .* ok$' console.log)" -ge 20 ] && ! grep -a -q 'UCOV-GUEST errno .* bad' console.log &&
  pass "kcov.c's errno for sizes, mmap lengths and REMOTE arguments ($(grep -a -c 'UCOV-GUEST errno .* ok$' console.log) checks)" ||
  fail "kcov.c's errno: $(grep -a 'UCOV-GUEST errno .* bad' console.log | head -3 | tr '\n' ' ')"
# REMOTE sections in each context (tests/kernel/ctx_checks.sh).
ctx_checks console.log tree/tests/kernel/ctx/ucov_ctx.ko
# The PCs are the demo module's: each, less the .text base, is a place in the
# .ko's .text, in the functions the read ran.
text=$(sed -n "s/.*UCOV-GUEST text //p" console.log)
sed -n 's/^UCOV-PC //p' console.log >pcs.txt
python3 - "$text" pcs.txt >offsets.txt <<'PY'
import sys
base = int(sys.argv[1], 16)
for line in open(sys.argv[2]):
    pc = int(line, 16)
    if base <= pc < base + (1 << 20):
        print(hex(pc - base))
PY
[ "$(wc -l <pcs.txt)" -gt 10 ] && [ "$(wc -l <offsets.txt)" = "$(wc -l <pcs.txt)" ] && pass "PCs" ||
  fail "PCs: $(wc -l <pcs.txt), $(wc -l <offsets.txt) in the demo module's text"
xargs addr2line -f -j .text -e tree/examples/linux-module/ucov_demo.ko <offsets.txt 2>/dev/null |
  awk 'NR % 2 == 1' | sort -u >functions.txt
for fn in demo_read parse_expr expr term primary; do
  grep -qx "$fn" functions.txt && pass "traced function $fn (traced" || fail "traced function $fn (traced: $(tr '\n' ' ' <functions.txt))"
done
# The comparisons: the parser's, with the expression's characters among the operands.
sed -n 's/^UCOV-CMP //p' console.log >cmps.txt
grep -q 'arg1: 0x28, arg2: 0x2a\|arg1: 0x2a, arg2: 0x28\|0x28, .*const\|arg2: 0x28' cmps.txt &&
  [ "$(wc -l <cmps.txt)" -gt 10 ] && pass "comparisons" || fail "comparisons: $(head -3 cmps.txt)"
# gcov: the gathered tree, as gcov.rst's build machine unpacks it, through
# lcov's kernel mode; the parser's line counts against a userspace build.
sed -n '/UCOV-TAR-BEGIN/,/UCOV-TAR-END/p' console.log | sed '1d;$d' | base64 -d >back.tar.gz 2>/dev/null &&
  mkdir -p back gathered && tar xzf back.tar.gz -C back && tar xzf back/gcov.tar.gz -C gathered &&
  pass "the guest's tarballs" || fail "the guest's tarballs"
G=gathered/sys/kernel/debug/gcov
D=$WORK/tree/examples/linux-module
[ -f "$G$D/parser.gcda" ] && [ "$(readlink "$G$D/parser.gcno")" = "$D/parser.gcno" ] && pass "gather" ||
  fail "gather: $(cd gathered && find . | head -8 | tr '\n' ' ')"
# gcov.rst's build machine: gcov over the unpacked tree (lcov runs it), and
# lcov's kernel mode over the copy of the guest's gcov directory.
lcov -q --capture -d "$G$D" -o g.info >lcov-g.out 2>&1 && grep -q "^SF:$WORK/tree/examples/baremetal/parser.c$" g.info && pass "gcov over the gathered tree" ||
  fail "gcov over the gathered tree: $(tail -3 lcov-g.out)"
lcov -q --capture --rc lcov_gcov_dir="$WORK/back/gcovcopy" -o k.info >lcov-k.out 2>&1 &&
  grep -q "^SF:$WORK/tree/examples/baremetal/parser.c$" k.info && pass "lcov kernel mode" || fail "lcov kernel mode: $(tail -3 lcov-k.out)"
lines_of() { # INFO: parser.c's DA lines, "line count", sorted as join wants
  awk '/^SF:.*\/parser\.c$/ {on = 1; next} /^end_of_record/ {on = 0} on && /^DA:/ {
    split(substr($0, 4), a, ","); print a[1], a[2] }' "$1" | sort -k1,1
}
# The userspace twin: the same parser with --coverage, built once. twin NAME
# EXPR...: a run of its own (its counts alone) evaluates them; its answers go
# to NAME.out, parser.c's line counts to NAME-lines.txt.
mkdir -p twin && gcc --coverage -O2 -I"$SRC/examples/baremetal" "$SRC/tests/kernel/parser_driver.c" \
  "$SRC/examples/baremetal/parser.c" -o twin/driver || fail "the userspace parser's build"
twin() {
  local name=$1
  shift
  rm -f twin/*.gcda
  (cd twin && ./driver "$@") >"$name.out" && lcov -q --capture -d twin -o "$name.info" >"lcov-$name.out" 2>&1 &&
    lines_of "$name.info" >"$name-lines.txt" || fail "the userspace run $name: $(tail -2 "lcov-$name.out")"
}
# counts_vs A B TAG: the lines both count into both-TAG.txt, those among them
# whose counts differ into diff-TAG.txt; common and only (in one file alone)
# their numbers.
counts_vs() {
  join "$1" "$2" >"both-$3.txt"
  awk '$2 != $3' "both-$3.txt" >"diff-$3.txt"
  common=$(wc -l <"both-$3.txt")
  only=$(($(wc -l <"$1") + $(wc -l <"$2") - 2 * common))
}
twin u "${EXPRS[@]}"
sed -n 's/.*UCOV-GUEST eval //p' console.log >guest-out.txt
diff -q guest-out.txt u.out >/dev/null && pass "the module answers as userspace does" ||
  fail "the module's answers differ from userspace: $(paste -d'|' guest-out.txt u.out | tr '\n' ' ')"
# ucov symbolize, with the module map a pull through /dev/ucov brought back
# (each executable section of the module, as <module>.ko#<index>), run where
# the .ko is: the same functions as addr2line found, PC for PC.
(cd tree/examples/linux-module && "$UCOV" symbolize --modules "$WORK/back/P1/modules" "$WORK/pcs.txt") \
  >pcs.sym 2>sym.err
awk '{sub(/\+.*/, "", $2); print $2}' pcs.sym >sym-fns.txt
# (addr2line -a -f -i: per address, its line, then a function and a place per
# inline level, the outermost, the symbol's own function, last)
xargs addr2line -a -f -i -j .text -e tree/examples/linux-module/ucov_demo.ko <offsets.txt 2>/dev/null |
  awk '/^0x/ {if (fn != "") print fn; fn = ""; odd = 1; next} odd {fn = $0} {odd = !odd}
    END {if (fn != "") print fn}' >a2l-fns.txt
[ -s sym-fns.txt ] && cmp -s sym-fns.txt a2l-fns.txt && pass "ucov symbolize with the .ko" ||
  fail "ucov symbolize with the .ko: $(head -2 sym.err) $(diff sym-fns.txt a2l-fns.txt | head -4 | tr '\n' ' ')"
lines_of k.info >k-lines.txt
lines_of g.info >g-lines.txt
# Every line both builds count has the same count. Which lines carry a block
# is the optimizer's choice (the kernel's flags are not userspace's: a loop's
# skip_blanks(c) line has its own block in one, not in the other), so a few
# lines may be in one build only.
counts_vs k-lines.txt u-lines.txt 1
[ "$common" -gt 30 ] && [ ! -s diff-1.txt ] && [ "$only" -le 4 ] && pass "parser.c line counts, module vs userspace: $common common, $only in one only," ||
  fail "parser.c line counts, module vs userspace: $common common, $only in one only," \
    "differing: $(head -6 diff-1.txt | tr '\n' ' ')"
cmp -s k-lines.txt g-lines.txt && pass "lcov's kernel mode reads the gathered tree alike" || fail "lcov's kernel mode and the gathered tree differ"
# The two pulls with --reset through /dev/ucov: the first holds the first
# workload's counts (those gather saw), the second the second workload's
# alone, as a userspace run of it counts them.
relink back/P1
relink back/P2
lcov -q --capture --rc lcov_gcov_dir="$WORK/back/P1/gcov" -o p1.info >lcov-p1.out 2>&1 &&
  lcov -q --capture --rc lcov_gcov_dir="$WORK/back/P2/gcov" -o p2.info >lcov-p2.out 2>&1 ||
  fail "lcov over the pulled trees: $(grep -v redefined lcov-p1.out lcov-p2.out | head -3)"
lines_of p1.info >p1-lines.txt
lines_of p2.info >p2-lines.txt
lines_of h.info >h-lines.txt
[ -s p1-lines.txt ] && cmp -s p1-lines.txt k-lines.txt && pass "the first pull holds the first workload" ||
  fail "the first pull holds the first workload: $(diff p1-lines.txt k-lines.txt | head -4 | tr '\n' ' ')"
twin u2 "${EXPRS2[@]}"
sed -n 's/.*UCOV-GUEST eval2 //p' console.log | cmp -s - u2.out && pass "the second workload's answers" ||
  fail "the second workload's answers"
counts_vs p2-lines.txt u2-lines.txt 2
[ "$common" -gt 30 ] && [ ! -s diff-2.txt ] && pass "the second pull holds the second workload alone" ||
  fail "the second pull holds the second workload alone: $(head -4 diff-2.txt | tr '\n' ' ')"
twin u3 "${EXPRS3[@]}"
counts_vs h-lines.txt u3-lines.txt 3
[ "$common" -gt 30 ] && [ ! -s diff-3.txt ] && pass "the pull through the relay: $common lines" ||
  fail "the pull through the relay: $common lines, $(head -4 diff-3.txt | tr '\n' ' ')"
bad='^UCOV-DMESG.*(WARNING|BUG|Oops|Call Trace|general protection|blocked for more than|scheduling while atomic|vmalloc error|page allocation failure|Out of memory)'
! grep -q -E "$bad" console.log && pass "dmesg: no warning, bug, oops, trace, hung task or failed allocation" ||
  fail "dmesg: $(grep -m3 -E "$bad" console.log)"
# The fuzzer's work, and the taint: out-of-tree (O, 4096) and unsigned (E,
# 8192) modules only; W (a warning), D (an oops) and the rest fail.
read -r _ _ fz_frames fz_ioctls fz_races <<<"$(grep -a -o 'UCOV-GUEST fuzz [0-9].*' console.log)"
[ "${fz_frames:-0}" -gt 100 ] && [ "${fz_ioctls:-0}" -gt 100 ] && [ "${fz_races:-0}" -gt 10 ] &&
  pass "fuzzed: $fz_frames frames, $fz_ioctls ioctls, $fz_races races" ||
  fail "fuzzed: $(grep -a 'UCOV-GUEST fuzz' console.log | tr '\n' ' ')"
taint=$(sed -n 's/.*UCOV-GUEST taint //p' console.log)
[ -n "$taint" ] && [ $((taint & ~(4096 | 8192))) = 0 ] && pass "taint $taint: out-of-tree and unsigned only" ||
  fail "taint ${taint:-unknown}"
finish linux
