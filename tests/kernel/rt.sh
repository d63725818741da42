#!/usr/bin/env bash
# ucov.ko in Debian's PREEMPT_RT kernel (Debian 12's linux-image-*-rt-amd64,
# fetched and cached by fetch_kernel.sh, nothing installed), under QEMU:
# there softirqs run in preemptible tasks, which ucov.ko's per-CPU task
# state cannot follow, so it refuses to load, with the message that says
# why, and the kernel runs on: insmod fails, nothing of ucov's is loaded,
# and the log (panic_on_warn=1) has no warning, BUG or Oops.
# Usage: rt.sh UCOV SRCDIR WORKDIR
# Environment: UCOV_KERNEL_CACHE (default: ~/.cache/ucov/kernel),
# UCOV_QEMU_ACCEL (default tcg).
set -u
SRC=$(cd "$2" && pwd) WORK=$3
. "$SRC/tests/lib.sh"
fresh_workdir
if [ "$(uname -m)" != x86_64 ]; then
  echo "kernel checks skipped: Debian's amd64 kernel needs an x86_64 host"
  exit 77
fi
if ! got=$(bash "$SRC/tests/kernel/fetch_kernel.sh" bookworm "${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}" \
  rt-amd64 2>fetch.err); then
  fail "Debian 12's PREEMPT_RT kernel: $(cat fetch.err)"
  finish rt
  exit 1
fi
read -r KDIR VMLINUZ <<<"$got"
pass "Debian 12's PREEMPT_RT kernel ${KDIR##*/linux-headers-}: headers and image"
mkdir -p tree/kernel && cp -r "$SRC/kernel/linux" tree/kernel/ &&
  make -s -C tree/kernel/linux KDIR="$KDIR" UCOV_SRC="$SRC" >build.log 2>&1 &&
  pass "ucov.ko builds against it" || { fail "ucov.ko: $(grep -m3 -i 'error' build.log)"; finish rt; exit 1; }

mkdir -p ir/bin ir/proc ir/sys ir/dev
cp /bin/busybox ir/bin/busybox && cp tree/kernel/linux/ucov.ko ir/ || { fail "initramfs"; finish rt; exit 1; }
{
  cat "$SRC/tests/kernel/guest_init_head.sh"
  cat <<'INIT'
say "preempt $(uname -v | grep -o PREEMPT_RT)"
insmod /ucov.ko
say "insmod status $?"
say "loaded $(grep -c '^ucov ' /proc/modules)"
dmesg | grep -i -E 'warn|bug|oops|ucov|call trace|general protection|atomic' | sed 's/^/UCOV-DMESG /'
say done
poweroff -f
INIT
} >ir/init && chmod +x ir/init
(cd ir && find . | cpio -o -H newc 2>/dev/null | gzip -1 >../initrd.gz) || { fail "initramfs"; finish rt; exit 1; }
timeout 300 qemu-system-x86_64 -accel "${UCOV_QEMU_ACCEL:-tcg}" -cpu max -smp 2 -m 512 -display none \
  -monitor none -no-reboot -serial file:console.txt -kernel "$VMLINUZ" -initrd initrd.gz \
  -append "console=ttyS0 panic=-1 panic_on_warn=1 quiet" </dev/null >qemu.out 2>&1
tr -d '\r' <console.txt >console.log
guest() { grep -q "^UCOV-GUEST $1\$" console.log; }
guest "done" && guest "preempt PREEMPT_RT" && pass "the guest booted a PREEMPT_RT kernel and ran to its end" ||
  fail "the guest: $(tail -5 console.log)"
! guest "insmod status 0" && guest "loaded 0" && pass "insmod ucov.ko fails, and nothing is loaded" ||
  fail "insmod ucov.ko on PREEMPT_RT: $(grep 'UCOV-GUEST' console.log | tr '\n' ' ')"
grep -q '^UCOV-DMESG.*ucov: not loaded: PREEMPT_RT kernels run softirqs in preemptible tasks' console.log &&
  pass "the kernel log says why" || fail "the kernel log: $(grep UCOV-DMESG console.log | head -3)"
! grep -q -E '^UCOV-DMESG.*(WARNING|BUG|Oops|Call Trace|general protection|scheduling while atomic)' console.log &&
  pass "no warning, BUG or Oops" || fail "the log: $(grep -E 'WARNING|BUG|Oops' console.log | head -3)"
finish rt
