#!/usr/bin/env bash
# ucov's core built into vmlinux by the kernel's own CONFIG_KCOV: Debian's
# 6.1 source made over by kernel/linux/builtin/apply.sh, configured small
# (build_kernel.sh builtin: tinyconfig, KCOV with comparisons, every file
# instrumented), booted under QEMU with panic_on_warn=1, as syzkaller's
# machines run. First apply.sh itself: run again it changes nothing; a tree
# it does not know is left untouched, with a message; --series writes the
# changes as patches git am applies. Then, in the guest,
# each client's own call sequence (tests/kernel/kcov_vmlinux.c): kcov.rst's
# PC program over read(-1, NULL, 0), its PCs symbolized against vmlinux's
# symbols here (the read path's functions, every PC in a function);
# kcov.rst's comparison program; UNIQUE (a second identical call adds no PC);
# a REMOTE section of the kernel's own (Bluetooth's hci_rx_work over
# /dev/vhci, set up as syzkaller's executor does); REMOTE sections in every
# context kcov.c records in (and none in hardirq), from the contexts' module
# (tests/kernel/ctx) built against this kernel; the guest's fuzzer
# (kcov_fuzz.c, UCOV_FUZZ_SECONDS, default 20);
# syzkaller's executor (a device per thread, the main thread's remote
# enable with a common handle); NMIs (injected by QEMU's monitor) in a
# tracing task record nothing; kcov.c's errno (kcov_errno.c). With
# CONFIG_GCOV_KERNEL and GCOV_PROFILE_ALL in the same kernel: gcov.rst's
# tree for vmlinux, and read's counts read by gcc's gcov, exact between two
# snapshots and after a reset (gcov_vmlinux.c); `ucov ls` and `ucov pull`
# through /dev/ucov. The log must have no
# warning, BUG or Oops.
# Usage: builtin.sh UCOV SRCDIR WORKDIR [VERSION]
# VERSION: 6.1 (the default: Debian 12's linux-source-6.1, KCOV and
# GCOV_KERNEL with GCOV_PROFILE_ALL) or 6.12 (bookworm-backports'
# linux-source-6.12: build_kernel.sh builtin-6.12, KCOV from syzkaller's
# config fragment, GCOV_KERNEL with fs/Makefile's GCOV_PROFILE := y alone,
# so that gcov.rst's gather_on_test.sh copies its few units in the guest).
# Environment: UCOV_KERNEL_CACHE (default: ~/.cache/ucov/kernel),
# UCOV_QEMU_ACCEL (default tcg).
set -u
UCOV=$(realpath "$1") SRC=$(cd "$2" && pwd) WORK=$3 VERSION=${4:-6.1}
. "$SRC/tests/lib.sh"
. "$SRC/tests/kernel/ctx_checks.sh"
fresh_workdir
if [ "$(uname -m)" != x86_64 ]; then
  echo "kernel checks skipped: the test kernel is built for x86_64"
  exit 77
fi
CACHE=${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}
case $VERSION in
6.1) flavour=builtin options="CONFIG_KCOV and CONFIG_GCOV_KERNEL" ;;
6.12) flavour=builtin-6.12 options="CONFIG_KCOV (syzkaller's fragment) and CONFIG_GCOV_KERNEL (fs/ profiled)" ;;
*)
  echo "builtin.sh: VERSION is 6.1 or 6.12" >&2
  exit 2
  ;;
esac
if ! got=$(bash "$SRC/tests/kernel/build_kernel.sh" $flavour "$CACHE" 2>build.err); then
  fail "the kernel of apply.sh's tree: $(cat build.err)"
  finish builtin
  exit 1
fi
read -r KTREE BZIMAGE <<<"$got"
pass "Debian's $VERSION made over by apply.sh builds with $options ($(cat "$KTREE/../done"))"
! grep -q 'warning:' "$KTREE/../build.log" && pass "... without a compiler warning" ||
  fail "the build's warnings: $(grep -m3 'warning:' "$KTREE/../build.log")"

# 6.12's configuration: syzkaller's coverage fragment, merged unchanged by
# the kernel's merge_config.sh, holds in the final .config.
if [ "$VERSION" = 6.12 ]; then
  missing=$(grep -v '^# CONFIG\|^$' "$SRC/tests/kernel/syzkaller-kcov.config" | grep -v '^#' |
    while read -r l; do grep -qx "$l" "$KTREE/.config" || echo "$l"; done)
  [ -z "$missing" ] && ! grep -qx 'CONFIG_RANDOMIZE_BASE=y' "$KTREE/.config" &&
    pass "syzkaller's coverage fragment holds in the .config" || fail "syzkaller's fragment: $missing"
fi

# --- apply.sh ---
grep -qx 'CONFIG_UCOV=y' "$KTREE/.config" && [ -f "$KTREE/kernel/ucov/built-in.a" ] &&
  [ ! -e "$KTREE/kernel/kcov.o" ] && [ ! -e "$KTREE/kernel/gcov/built-in.a" ] &&
  nm "$KTREE/vmlinux" | grep -q ' T ucov_device_ioctl$' &&
  pass "$options build kernel/ucov into vmlinux, not kcov.c nor kernel/gcov" ||
  fail "$options build kernel/ucov, not kcov.c nor kernel/gcov"
bash "$SRC/kernel/linux/builtin/apply.sh" "$KTREE" >again.txt 2>&1 && grep -q ': 0 change(s)$' again.txt &&
  pass "apply.sh run again changes nothing" || fail "apply.sh run again: $(tail -3 again.txt)"
# (once, on 6.1:) a tree apply.sh does not know; --series: the same
# changes as a patch series made from the files of the tree as released
# (from Debian's tarball): git am and patch -p1 apply its 8 patches, one
# commit a concern, and the tree is then apply.sh's; checkpatch.pl finds
# nothing in the Kconfig, Makefile and linker script patches but the
# Signed-off-by a submitter adds.
if [ "$VERSION" = 6.1 ]; then
  mkdir -p old && printf 'VERSION = 5\nPATCHLEVEL = 10\n' >old/Makefile && cp old/Makefile old.before
  if bash "$SRC/kernel/linux/builtin/apply.sh" old >old.txt 2>&1; then
    fail "apply.sh on a 5.10 tree succeeded"
  else
    grep -q 'Linux 5.10 is not one this knows.*left untouched' old.txt && cmp -s old/Makefile old.before &&
      [ "$(find old | wc -l)" = 2 ] && pass "a tree apply.sh does not know: a message, and untouched" ||
      fail "apply.sh on a 5.10 tree: $(cat old.txt)"
  fi
  files=(Makefile kernel/Makefile lib/Kconfig.debug kernel/gcov/Kconfig include/linux/kcov.h include/linux/sched.h
    scripts/Makefile.lib scripts/module.lds.S include/asm-generic/vmlinux.lds.h arch/x86/kernel/vmlinux.lds.S
    arch/x86/kernel/Makefile arch/x86/Kconfig arch/x86/boot/Makefile arch/x86/boot/compressed/Makefile
    arch/x86/realmode/rm/Makefile arch/x86/entry/vdso/Makefile arch/x86/purgatory/Makefile
    arch/x86/platform/efi/Makefile drivers/firmware/efi/libstub/Makefile)
  mkdir -p released && tar -xf /usr/src/linux-source-6.1.tar.xz -C released --strip-components=1 \
    "${files[@]/#/linux-source-6.1/}" 2>series.err &&
    bash "$SRC/kernel/linux/builtin/apply.sh" --series series released >series.txt 2>>series.err &&
    cp -r released viaam && cp -r released viaapply && cp -r released viapatch && (cd viaam && git init -q && git add -A &&
    git -c user.name=t -c user.email=t@t.invalid commit -qm released &&
    git -c user.name=t -c user.email=t@t.invalid am -q ../series/*.patch) >>series.err 2>&1 &&
    bash "$SRC/kernel/linux/builtin/apply.sh" viaapply >/dev/null 2>>series.err &&
    (for p in series/*.patch; do patch -s -p1 -d viapatch <"$p" >>series.err 2>&1 || exit 1; done) &&
    diff -r --exclude=.git viaam viaapply >series.diff && diff -r viapatch viaapply >>series.diff &&
    [ "$(git -C viaam rev-list --count HEAD)" = 9 ] &&
    pass "apply.sh --series: git am and patch -p1 apply its $(wc -l <series.txt) patches, and the tree is apply.sh's" ||
    fail "apply.sh --series: $(head -3 series.err) $(head -3 series.diff)"
  cp=$(for p in series/000[2-8]-*.patch; do
    perl "$KTREE/scripts/checkpatch.pl" --no-tree --terse "$p" 2>&1 | grep -v 'Missing Signed-off-by\|^total:'
  done)
  [ -z "$cp" ] && [ -f series/0004-kernel-makefile.patch ] && [ -f series/0008-pgo-x86-kconfig.patch ] &&
    pass "checkpatch.pl: the Kconfig, Makefile and linker script patches are clean (but for the submitter's Signed-off-by)" ||
    fail "checkpatch.pl: $(echo "$cp" | head -3)"
fi

# The hooks are ucov's: kcov.c's own functions are not in vmlinux.
! nm "$KTREE/vmlinux" | grep -q ' t kcov_ioctl_locked$' && pass "vmlinux has no kcov.c" ||
  fail "vmlinux still has kcov.c's functions"

# The contexts' module (tests/kernel/ctx), built against this kernel as any
# module is: its instrumentation is the kernel's own (KCOV_INSTRUMENT_ALL),
# its kcov_remote_start/stop calls kcov.h's, into vmlinux's ucov.
ctx_module "$KTREE" ctxmod &&
  pass "the contexts' module builds against the kernel, without a warning" ||
  fail "the contexts' module: $(grep -m3 -i 'error\|warning' ctxmod.log)"

# --- the guest ---
gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/kcov_vmlinux.c" -o kcov_vmlinux &&
  gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/kcov_ctx.c" -o kcov_ctx &&
  gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/kcov_fuzz.c" -o kcov_fuzz &&
  gcc -static -O1 -I"$SRC/include" "$SRC/tests/kernel/kcov_errno.c" -o kcov_errno &&
  gcc -static -O1 "$SRC/tests/kernel/gcov_vmlinux.c" -o gcov_vmlinux ||
  {
    fail "the guest's programs"
    finish builtin
    exit 1
  }
mkdir -p ir/bin ir/proc ir/sys ir/dev ir/tmp
cp /bin/busybox kcov_vmlinux kcov_errno gcov_vmlinux kcov_ctx kcov_fuzz ir/bin/ && guest_ucov "$UCOV" ir &&
  echo "${UCOV_FUZZ_SECONDS:-20}" >ir/fuzz_seconds &&
  cp ctxmod/ucov_ctx.ko "$SRC/tests/kernel/gather_on_test.sh" ir/ || {
  fail "initramfs"
  finish builtin
  exit 1
}
{
  cat "$SRC/tests/kernel/guest_init_head.sh"
  cat <<'INIT'
[ -e /sys/kernel/debug/kcov ] && say "kcov file ok"
/bin/kcov_vmlinux pc >/tmp/pc.txt 2>/tmp/pc.err && say "pc ok $(wc -l </tmp/pc.txt)"
sed 's/^/UCOV-PC /' /tmp/pc.txt
/bin/kcov_vmlinux cmp >/tmp/cmp.txt 2>/tmp/cmp.err && say "cmp ok $(wc -l </tmp/cmp.txt)"
sed 's/^/UCOV-CMP /' /tmp/cmp.txt
say "$(/bin/kcov_vmlinux unique 2>&1)"
say "$(/bin/kcov_vmlinux ext 2>&1)"
stext=$(awk '$3 == "_stext" {print $1}' /proc/kallsyms)
etext=$(awk '$3 == "_etext" {print $1}' /proc/kallsyms)
say "text $stext $etext"
say "$(/bin/kcov_vmlinux syz "$stext" "$etext" 2>&1)"
/bin/kcov_errno 2>&1 | sed 's/^/UCOV-GUEST /'
# NMIs while a task traces: the host injects them (QEMU's monitor, "nmi")
# between the task's marks; the kernel takes each for an unknown NMI and
# says so with printk, in the NMI. Its log so far kept aside, then the NMI
# step's own, the NMIs counted between the marks.
dmesg -c >/tmp/dmesg-before-nmi.txt
/bin/kcov_vmlinux nmi 4 >/tmp/nmi.txt 2>&1 && say "nmi ok"
dmesg -c >/tmp/nmi-dmesg.txt
sed 's/^/UCOV-GUEST /' /tmp/nmi.txt
say "nmis $(awk '/ucov-test: nmi trace begin/ { on = 1 } /ucov-test: nmi trace end/ { on = 0 }
  on && /NMI received for unknown reason/ { n++ } END { print n + 0 }' /tmp/nmi-dmesg.txt)"
grep -E 'WARNING|BUG|Oops|general protection|scheduling while atomic' /tmp/nmi-dmesg.txt | sed 's/^/UCOV-DMESG /'
# REMOTE sections in every context (tests/kernel/ctx), from a module
insmod /ucov_ctx.ko && say "insmod ctx ok"
echo "ctxtext $(cat /sys/module/ucov_ctx/sections/.text)" | sed 's/^/UCOV-GUEST /'
/bin/kcov_ctx 100 >/tmp/ctx.txt 2>&1 && say "kcov_ctx ok"
sed 's/^/UCOV-CTX /' /tmp/ctx.txt
rmmod ucov_ctx && say "rmmod ctx ok"
/bin/kcov_vmlinux vhci >/tmp/vhci.txt 2>&1 && say "vhci ok"
sed 's/^/UCOV-GUEST /' /tmp/vhci.txt
# gcov.rst's files for vmlinux: read's file read, 1000 reads, read again,
# reset, 777 reads, read again (tests/kernel/gcov_vmlinux.c).
g=$(find /sys/kernel/debug/gcov -name read_write.gcda | head -1)
say "gcda $g"
[ -L "${g%.gcda}.gcno" ] && say "gcno link ok"
units=$(find /sys/kernel/debug/gcov -name '*.gcda' | wc -l)
say "gcov units $units"
say "gcov dirs $(find /sys/kernel/debug/gcov -name '*.gcda' | sed 's,/[^/]*$,,' | sort -u | wc -l)"
# gcov.rst's gather_on_test.sh, where the units are few (a process a
# file: under TCG, vmlinux's every unit would take minutes)
mkdir -p /tmp/g
if [ "$units" -lt 200 ]; then
  sh /gather_on_test.sh /tmp/g/gathered.tar.gz >/tmp/gather.txt 2>&1 && say "gather ok"
fi
# (into a file: a reader of a pipe meanwhile would be a read() too)
/bin/gcov_vmlinux "$g" 1000 777 /tmp/g /sys/kernel/debug/gcov/reset >/tmp/gcov.txt 2>&1
sed 's/^/UCOV-GUEST /' /tmp/gcov.txt
# /dev/ucov: the ucov command reads vmlinux's units as it reads a process's.
ucov ls --dev /dev/ucov >/tmp/ls.txt 2>&1 && say "ucov ls $(grep -c '\.gcda$' /tmp/ls.txt) $(grep -c 'fs/read_write\.gcda$' /tmp/ls.txt)"
ucov pull --dev /dev/ucov -o /tmp/P >/tmp/pull.txt 2>&1 && say "ucov pull $(find /tmp/P -name '*.gcda' | wc -l)"
sed 's/^/UCOV-GUEST pull-err /' /tmp/pull.txt | head -3
# the tree as lcov's kernel mode copies it, for lcov on the build machine (here)
cp -a /sys/kernel/debug/gcov /tmp/gcovcopy && tar czf /tmp/g/copy.tar.gz -C /tmp gcovcopy
echo UCOV-GCDA-BEGIN
tar czf - -C /tmp g | base64
echo UCOV-GCDA-END
# The guest's fuzzer (tests/kernel/kcov_fuzz.c): /dev/ucov frames (resets
# among them: last), kcov ioctls and mmaps, and races of tracing tasks,
# with panic_on_warn=1.
/bin/kcov_fuzz "$(cat /fuzz_seconds)" >/tmp/fuzz.txt 2>&1 && say "fuzz ok"
say "$(tail -1 /tmp/fuzz.txt)"
sed 's/^/UCOV-GUEST err /' /tmp/pc.err /tmp/cmp.err
{ cat /tmp/dmesg-before-nmi.txt; dmesg; } | grep -i -E 'warn|bug|oops|ucov|kcov|call trace|general protection|atomic' | sed 's/^/UCOV-DMESG /'
say done
reboot -f
INIT
} >ir/init && chmod +x ir/init
(cd ir && find . | cpio -o -H newc 2>/dev/null | gzip -1 >../initrd.gz) || {
  fail "initramfs"
  finish builtin
  exit 1
}
rm -f mon.sock console.txt
timeout 600 qemu-system-x86_64 -accel "${UCOV_QEMU_ACCEL:-tcg}" -cpu max -smp 2 -m 512 -display none \
  -monitor unix:mon.sock,server=on,wait=off -no-reboot -serial file:console.txt -kernel "$BZIMAGE" \
  -initrd initrd.gz -append "console=ttyS0 panic=-1 panic_on_warn=1 quiet" </dev/null >qemu.out 2>&1 &
qemu=$!
# The NMIs: from the guest's "nmi-start" to its "nmi-end", one each 50 ms.
python3 - "$qemu" <<'PY' >nmi-host.txt 2>&1
import os, socket, sys, time
qemu = int(sys.argv[1])
def alive():
    try:
        os.kill(qemu, 0)
        return True
    except OSError:
        return False
def console():
    try:
        return open("console.txt", "rb").read()
    except OSError:
        return b""
while alive() and b"UCOV-GUEST nmi-start" not in console():
    time.sleep(0.05)
sent = 0
if alive():
    mon = socket.socket(socket.AF_UNIX)
    mon.connect("mon.sock")
    while alive() and b"UCOV-GUEST nmi-end" not in console() and sent < 400:
        mon.sendall(b"nmi\n")
        sent += 1
        time.sleep(0.05)
    mon.close()
print("sent", sent)
PY
wait $qemu
tr -d '\r' <console.txt >console.log
# (the log without the base64 of the files, where any word may appear)
sed '/^UCOV-GCDA-BEGIN$/,/^UCOV-GCDA-END$/d' console.log >log.txt
guest() { grep -q "^UCOV-GUEST $1\$" console.log; }
guest "done" && pass "the guest booted and ran to its end" || fail "the guest: $(tail -5 console.log)"
guest "kcov file ok" && pass "/sys/kernel/debug/kcov" || fail "/sys/kernel/debug/kcov"

# kcov.rst's PCs, symbolized against vmlinux's symbols: each PC in a
# function of its text, the read path's among them.
nm -n "$KTREE/vmlinux" | awk '$2 ~ /^[tTwW]$/ {print $1, $3}' >syms.txt
sed -n 's/^UCOV-PC 0x\([0-9a-f]*\)$/\1/p' console.log >pcs.txt
# symbolize PCS: each PC's function in vmlinux (one byte back: the call's
# return address), or "outside-the-text"
symbolize() { python3 "$SRC/tests/kernel/symbolize.py" syms.txt "$1"; }
symbolize pcs.txt >pcfuncs.txt
n_pc=$(wc -l <pcs.txt)
guest "pc ok [1-9][0-9]*" && [ "$n_pc" -gt 0 ] && pass "kcov.rst's program: $n_pc PCs of read(-1, NULL, 0)" ||
  fail "kcov.rst's program: $(grep 'UCOV-GUEST \(pc\|err\)' console.log | head -3)"
grep -qx 'ksys_read' pcfuncs.txt && grep -q 'fget\|fdget' pcfuncs.txt &&
  pass "its PCs are read's: $(sort -u pcfuncs.txt | head -6 | tr '\n' ' ')" ||
  fail "its PCs are read's: $(sort -u pcfuncs.txt | head -6 | tr '\n' ' ')"
[ -s pcfuncs.txt ] && ! grep -q outside-the-text pcfuncs.txt && pass "every PC is in vmlinux's text" ||
  fail "PCs outside vmlinux's text: $(grep -c outside-the-text pcfuncs.txt)"

# kcov.rst's comparisons: records, their IPs in the text, read's fd (-1) among
# the operands.
n_cmp=$(grep -c '^UCOV-CMP cmp ' console.log)
guest "cmp ok [1-9][0-9]*" && [ "$n_cmp" -gt 0 ] && pass "kcov.rst's comparison program: $n_cmp records" ||
  fail "kcov.rst's comparison program: $(grep 'UCOV-GUEST \(cmp\|err\)' console.log | head -3)"
grep -q '^UCOV-CMP cmp 0x[0-7] .*0xffffffff' console.log && pass "read's fd, -1, is an operand" ||
  fail "read's fd is not among the operands: $(grep -m3 '^UCOV-CMP' console.log)"

# UNIQUE and syzkaller's executor.
grep -q '^UCOV-GUEST unique [1-9][0-9]* 0$' console.log && pass "UNIQUE: a second read adds no PC" ||
  fail "UNIQUE: $(grep 'UCOV-GUEST unique' console.log)"
read -r _ _ n_ext n_normal < <(grep -m1 '^UCOV-GUEST ext ' console.log)
[ "${n_ext:-0}" -gt 0 ] && [ "$n_normal" = "$n_ext" ] &&
  pass "PC_EXT: read's $n_ext PCs, each tagged normal (vmlinux has no entry or exit hooks)" ||
  fail "PC_EXT: ${n_ext:-nothing} records, ${n_normal:-?} normal ($n_pc PCs in PC mode)"
grep -q '^UCOV-GUEST syz 400 0 0$' console.log &&
  pass "syzkaller's executor: 400 calls on 2 threads, each with PCs, all in the text" ||
  fail "syzkaller's executor: $(grep 'UCOV-GUEST \(syz\|text\)' console.log | tr '\n' ' ')"

# A REMOTE section of the kernel's own: hci_rx_work parsing the event a
# thread wrote to /dev/vhci while tracing for itself, with the common handle
# it inherited from the main thread, whose buffer gets the section's PCs.
sed -n 's/^UCOV-GUEST vhci-pc 0x\([0-9a-f]*\)$/\1/p' console.log >vhci-pcs.txt
symbolize vhci-pcs.txt >vhci-funcs.txt
guest "vhci ok" && [ -s vhci-pcs.txt ] && grep -qx 'hci_rx_work' vhci-funcs.txt && grep -q '^hci_event_packet\|^hci_cmd_complete' vhci-funcs.txt &&
  grep -q '^UCOV-GUEST vhci-own [1-9][0-9]*$' console.log &&
  pass "KCOV_REMOTE_ENABLE: hci_rx_work's section over /dev/vhci, from a thread's inherited handle ($(wc -l <vhci-pcs.txt) PCs: $(sort -u vhci-funcs.txt | grep -m3 '^hci_' | tr '\n' ' '))" ||
  fail "KCOV_REMOTE_ENABLE over /dev/vhci: $(grep 'UCOV-GUEST vhci' console.log | grep -v vhci-pc | head -3 | tr '\n' ' ') $(sort -u vhci-funcs.txt | head -5 | tr '\n' ' ')"

# REMOTE sections in each context, from the contexts' module's calls of
# kcov.h's kcov_remote_start/stop (tests/kernel/ctx_checks.sh).
guest "insmod ctx ok" && guest "kcov_ctx ok" && guest "rmmod ctx ok" &&
  pass "the contexts' module loads, runs and unloads" ||
  fail "the contexts' module: $(grep 'UCOV-GUEST .*ctx' console.log | tr '\n' ' ')"
ctx_checks log.txt ctxmod/ucov_ctx.ko kcov.h

# NMIs: NMIs came while the task traced (the kernel's words for each, in
# its log between the task's marks), and the PCs its reads recorded beyond
# the first read's (its own way back to user mode after a switch) are none
# of the NMI handler's: not printk's or the formatting's, which are
# instrumented here.
read -r _ _ nmi_reads nmi_extra < <(grep -m1 '^UCOV-GUEST nmi [0-9][0-9]* [0-9][0-9]*$' console.log)
read -r _ _ nmi_seen < <(grep -m1 '^UCOV-GUEST nmis ' console.log)
sed -n 's/^UCOV-GUEST nmi-extra 0x\([0-9a-f]*\)$/\1/p' console.log >nmi-extra.txt
symbolize nmi-extra.txt | sort -u >nmi-extra-fns.txt
nmi_re='nmi|printk|vsnprintf|format_decode|^number$|^string|^pointer|show_|dump_stack|kallsyms|sprint|console'
hooked() { # FUNCTION: its code calls the PC hook
  local at size
  read -r at size < <(nm -S "$KTREE/vmlinux" | awk -v f="$1" '$4 == f { print $1, $2; exit }')
  [ -n "${at:-}" ] && objdump -d --start-address=0x"$at" --stop-address=$((0x$at + 0x$size)) "$KTREE/vmlinux" |
    grep -q '__sanitizer_cov_trace_pc'
}
hooked vprintk_store && hooked vprintk_emit && pass "printk, which the NMI handler calls, is instrumented" ||
  fail "vprintk_store or vprintk_emit without the PC hook: the NMI check would prove nothing"
guest "nmi ok" && [ "${nmi_reads:-0}" -gt 100 ] && [ "${nmi_seen:-0}" -gt 5 ] && ! grep -Eq "$nmi_re" nmi-extra-fns.txt &&
  ! grep -q outside-the-text nmi-extra-fns.txt &&
  pass "NMIs: $nmi_reads traced reads, $nmi_seen NMIs meanwhile ($(cat nmi-host.txt)), none of their PCs recorded ($nmi_extra records beyond the first read's, in: $(head -4 nmi-extra-fns.txt | tr '\n' ' '))" ||
  fail "NMIs: ${nmi_reads:-no} reads, ${nmi_seen:-no} NMIs meanwhile ($(cat nmi-host.txt)); recorded: $(grep -E "$nmi_re|outside" nmi-extra-fns.txt | head -5 | tr '\n' ' ')"

# kcov.c's errno.
n_ok=$(grep -c '^UCOV-GUEST errno .* ok$' console.log)
[ "$n_ok" -gt 5 ] && ! grep -q '^UCOV-GUEST errno .* bad' console.log && pass "kcov.c's errno ($n_ok checks)" ||
  fail "kcov.c's errno: $(grep -m3 '^UCOV-GUEST errno .* bad' console.log)"

# vmlinux's gcov: a .gcda per compiled file with its .gcno link; read's
# counts, read by gcc's own gcov with the build's notes: ksys_read's count
# grew by exactly the reads made between two snapshots, and after the
# unit's reset, and after gcov/reset, it is exactly the reads made since.
n_units=$(sed -n 's/^UCOV-GUEST gcov units \([0-9]*\)$/\1/p' console.log)
want_units=300 want_dirs='[0-9]*'
[ "$VERSION" = 6.12 ] && want_units=20 want_dirs=1 # (fs/ alone: GCOV_PROFILE := y there)
[ "${n_units:-0}" -gt $want_units ] && guest "gcov dirs $want_dirs" && guest "gcno link ok" && guest "gcda /sys/kernel/debug/gcov$KTREE/fs/read_write.gcda" &&
  pass "/sys/kernel/debug/gcov: $n_units .gcda files at their build paths, with .gcno links" ||
  fail "/sys/kernel/debug/gcov: $(grep 'UCOV-GUEST \(gcda\|gcov\|gcno\)' console.log | tr '\n' ' ')"
guest "ucov ls $n_units 1" && guest "ucov pull $n_units" &&
  pass "/dev/ucov: ucov ls and pull --dev read vmlinux's $n_units units" ||
  fail "/dev/ucov: $(grep 'UCOV-GUEST \(ucov\|pull-err\)' console.log | head -3 | tr '\n' ' ')"
sed -n '/^UCOV-GCDA-BEGIN$/,/^UCOV-GCDA-END$/p' console.log | sed '1d;$d' | base64 -d | tar xzf - 2>/dev/null
count() { # SNAPSHOT: ksys_read's count in it, by gcov
  rm -rf "w$1" && mkdir -p "w$1" && cp "$KTREE/fs/read_write.gcno" "w$1/" && cp "g/$1.gcda" "w$1/read_write.gcda" &&
    (cd "w$1" && gcov --json-format --stdout -o . "$KTREE/fs/read_write.c" 2>/dev/null) |
    python3 -c 'import json, sys
for f in json.load(sys.stdin)["files"]:
    for fn in f["functions"]:
        if fn["name"] == "ksys_read":
            print(fn["execution_count"])'
}
read -r _ ra _ < <(grep -m1 '^UCOV-GUEST gcov [0-9]* [0-9]*$' console.log | cut -d' ' -f2-)
ca=$(count A) cb=$(count B) cc=$(count C)
[ -n "$ca" ] && [ -n "$cb" ] && [ -n "${ra:-}" ] && [ "$((cb - ca))" = "$((ra + 1000))" ] &&
  pass "gcov: ksys_read counted exactly between two reads ($ca, then $cb: 1000 reads and $ra to read the file)" ||
  fail "gcov: ksys_read between two reads: $ca, $cb (reads of the file: ${ra:-?})"
[ "$cc" = 777 ] && pass "gcov: after the unit's reset, exactly the 777 reads since" ||
  fail "gcov: after the unit's reset: ${cc:-nothing} (777 wanted)"
cd_=$(count D)
[ "$cd_" = 555 ] && pass "gcov: after gcov/reset (every unit), exactly the 555 reads since" ||
  fail "gcov: after gcov/reset: ${cd_:-nothing} (555 wanted)"
# ksys_read_in INFO: ksys_read's count in an lcov file, under fs/read_write.c
ksys_read_in() {
  awk -v f="SF:$KTREE/fs/read_write.c" '$0 == f { on = 1 } /^end_of_record/ { on = 0 }
    on && /^FNDA:[0-9]+,ksys_read$/ { split($0, a, /[:,]/); print a[2] }' "$1"
}
# lcov's kernel mode over the copy of /sys/kernel/debug/gcov (its .gcno
# links, and base.gcno's, name this build's tree, as on a build machine).
# (fs/ and kernel/gcov/ of it: lcov runs gcov once per unit, a minute for all)
mkdir -p copy && tar xzf g/copy.tar.gz -C copy 2>/dev/null
n_copied=$(find copy -name '*.gcda' | wc -l)
find "copy/gcovcopy$KTREE" -mindepth 1 -maxdepth 1 ! -name fs ! -name kernel -exec rm -rf {} + 2>/dev/null
find "copy/gcovcopy$KTREE/kernel" -mindepth 1 -maxdepth 1 ! -name gcov -exec rm -rf {} + 2>/dev/null
lcov -q --capture --rc lcov_gcov_dir="$WORK/copy/gcovcopy" -o copy.info >lcov-c.out 2>&1
ks=$(ksys_read_in copy.info)
[ "$n_copied" = "$n_units" ] && [ "${ks:-0}" -gt 555 ] &&
  pass "lcov's kernel mode over a copy of gcov/ ($n_copied units; fs/: $(grep -c '^SF:' copy.info) source files, ksys_read $ks)" ||
  fail "lcov's kernel mode: $n_copied files, ksys_read ${ks:-none}: $(grep -v redefined lcov-c.out | tail -2)"
# gcov.rst's gather_on_test.sh, run in the guest where the units are few
# (6.12's fs/): its tarball unpacked here as on a build machine, every
# unit in it with its .gcno link, and lcov (gcov) reads the unpacked tree.
if [ "$n_units" -lt 200 ]; then
  mkdir -p gathered && tar xzf g/gathered.tar.gz -C gathered 2>/dev/null
  G=gathered/sys/kernel/debug/gcov
  n_g=$(find "$G" -name '*.gcda' | wc -l)
  lcov -q --capture -d "$G$KTREE/fs" -o gathered.info >lcov-g.out 2>&1
  kg=$(ksys_read_in gathered.info)
  guest "gather ok" && [ "$n_g" = "$n_units" ] &&
    [ "$(readlink "$G$KTREE/fs/read_write.gcno")" = "$KTREE/fs/read_write.gcno" ] && [ "${kg:-0}" -gt 0 ] &&
    pass "gcov.rst's gather_on_test.sh: $n_g units with their .gcno links; lcov reads the unpacked tree (ksys_read $kg)" ||
    fail "gather_on_test.sh: ${n_g:-0} of $n_units units, ksys_read ${kg:-none}: $(tail -2 lcov-g.out)"
fi
guest "fuzz ok" && grep -q '^UCOV-GUEST fuzz [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*$' console.log &&
  pass "the guest's fuzzer: $(grep -m1 '^UCOV-GUEST fuzz [0-9]' console.log | cut -d' ' -f3-) (frames, ioctls, races)" ||
  fail "the guest's fuzzer: $(grep 'UCOV-GUEST fuzz' console.log | tr '\n' ' ')"
! grep -q -E 'WARNING|BUG|Oops|Call Trace|general protection|scheduling while atomic' log.txt &&
  pass "no warning, BUG or Oops" || fail "the log: $(grep -E 'WARNING|BUG|Oops' log.txt | head -3)"
finish builtin
