#!/usr/bin/env bash
# A Linux kernel built for the kernel tests from Debian's own kernel source
# (the linux-source-6.1 package, /usr/src/linux-source-6.1.tar.xz; 6.12's
# for builtin-6.12), in a
# small configuration for QEMU: tinyconfig, then a serial console,
# initramfs, debugfs, modules, kallsyms with data symbols
# (CONFIG_KALLSYMS_ALL), preempt notifiers (selected by KVM), the
# sched_process_exit tracepoint; no CONFIG_KCOV, no CONFIG_GCOV_KERNEL (but in builtin and pgo), no
# module signing. One flavour on top:
#   clang  built with LLVM=-19 (Debian's clang 19 and lld 19);
#   debug  built with gcc, with what syzbot's configurations turn on to find
#          sleeping in atomic context and locking and RCU misuse: a fully
#          preemptible kernel (PREEMPT, so PREEMPT_RCU), lockdep
#          (PROVE_LOCKING), PROVE_RCU, DEBUG_ATOMIC_SLEEP, KASAN (generic,
#          inline), DEBUG_OBJECTS (work, timers, RCU heads), SLUB_DEBUG,
#          DEBUG_VM, and the softlockup and hung-task detectors;
#   builtin built with gcc from the tree kernel/linux/builtin/apply.sh makes,
#          with CONFIG_KCOV (comparisons, every file instrumented) and
#          CONFIG_GCOV_KERNEL (GCOV_PROFILE_ALL) served by ucov's core in
#          vmlinux, at -O2 as syzkaller's and distributions' kernels are
#          (tinyconfig's is -Os), and Bluetooth's virtual HCI (/dev/vhci,
#          whose packets hci_rx_work parses in a REMOTE section); apply.sh
#          runs again each time, and a change it makes is rebuilt
#          (incrementally) before the tree is given out;
#   builtin-6.12  builtin's KCOV on bookworm-backports' linux-source-6.12
#          (tests/kernel/source_6_12.sh), its coverage options syzkaller's
#          documented fragment (syzkaller-kcov.config) merged by the
#          kernel's merge_config.sh, as a user would; GCOV_KERNEL without
#          GCOV_PROFILE_ALL: fs/Makefile says GCOV_PROFILE := y (gcov.rst's
#          per-directory line), so fs/'s files alone are profiled;
#   pgo    clang's (LLVM=-19) from the tree apply.sh makes, with the
#          three paths in one kernel: CONFIG_PGO_CLANG (-fprofile-generate:
#          /sys/kernel/debug/pgo), CONFIG_KCOV with comparisons (clang's
#          trace-pc and trace-cmp) and CONFIG_GCOV_KERNEL (clang's
#          --coverage) for fs/ (fs/Makefile's GCOV_PROFILE := y), at -O2;
#   pgo-use  pgo's configuration without PGO_CLANG, built with
#          KCFLAGS=-fprofile-use= the profile UCOV_PGO_PROFDATA names (the
#          Clang PGO kernel document's last step): the first profile it is
#          given is kept beside the tree (vmlinux.profdata) and the tree is
#          cached as the others are;
#   pgo-plain  pgo-use's configuration without a profile (what
#          bench/kernel_pgo_run.sh measures pgo-use against);
#          the pgo flavours have neither KVM nor the tracers: nothing
#          built into vmlinux needs preempt notifiers or tracepoints;
#   kcovc  builtin's configuration on the tree as released (but for
#          kcov.o, not profiled by gcov, as kernel/ucov is not): kcov.c and
#          kernel/gcov, the anchors of bench/kernel_builtin_run.sh.
# Cached by the source package's version, the flavour's configuration and
# its compiler's version: only the first run builds.
# Usage: build_kernel.sh FLAVOUR CACHE
# Prints "KDIR BZIMAGE" on success (KDIR: the built tree, what modules build
# against, with `make LLVM=-19` for clang); says why on stderr and exits 1.
set -u
FLAVOUR=$1 ROOT=$2 HERE=$(cd "$(dirname "$0")" && pwd)
die() {
  echo "build_kernel ($FLAVOUR): $*" >&2
  exit 1
}
if [ "$FLAVOUR" = builtin-6.12 ]; then
  got=$(bash "$HERE/source_6_12.sh" "$ROOT") || die "no 6.12 source"
  read -r ver SRC_TAR <<<"$got"
else
  SRC_TAR=/usr/src/linux-source-6.1.tar.xz
  [ -f "$SRC_TAR" ] || die "$SRC_TAR is missing: install linux-source-6.1 (scripts/deps.sh)"
  ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || die "linux-source-6.1 is not installed"
fi
OPTS=(-e 64BIT -e PRINTK -e BUG -e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE
  -e BLK_DEV_INITRD -e RD_GZIP -e BINFMT_ELF -e BINFMT_SCRIPT -e DEVTMPFS -e DEVTMPFS_MOUNT
  -e PROC_FS -e SYSFS -e TMPFS -e DEBUG_FS -e DEBUG_FS_ALLOW_ALL -e MODULES -e MODULE_UNLOAD
  -e KALLSYMS -e KALLSYMS_ALL -e FUTEX -e EPOLL -e SIGNALFD -e TIMERFD -e EVENTFD -e SHMEM
  -e MULTIUSER -e POSIX_TIMERS -e SMP -e HIGH_RES_TIMERS -e UNIX -e NET -e FILE_LOCKING
  -e VIRTUALIZATION -e KVM -e KVM_INTEL -e TRACEPOINTS -e FTRACE -e ENABLE_DEFAULT_TRACERS
  -e RTC_CLASS -e PRINTK_TIME -e MAGIC_SYSRQ -e SYSVIPC -e CRC32 -e VT -e UNIX98_PTYS
  -d KCOV -d GCOV_KERNEL -d MODULE_SIG -d RANDOMIZE_BASE -d WERROR
  --set-val FRAME_WARN 2048)
# the compiler: clang 19 (LLVM=-19) for clang and the pgo flavours, gcc's
# for the others
case $FLAVOUR in
clang | pgo*)
  command -v clang-19 >/dev/null && command -v ld.lld-19 >/dev/null && command -v llvm-ar-19 >/dev/null ||
    die "clang-19, lld-19 and llvm-19 are needed (scripts/deps.sh)"
  M=(make -s LLVM=-19 -j"$(nproc)")
  cc_version=$(clang-19 --version | head -1)
  ;;
*)
  M=(make -s -j"$(nproc)")
  cc_version=$(gcc --version | head -1)
  ;;
esac
case $FLAVOUR in
clang)
  want=(CC_IS_CLANG LD_IS_LLD)
  ;;
debug)
  OPTS+=(-e DEBUG_KERNEL -d PREEMPT_NONE -d PREEMPT_VOLUNTARY -e PREEMPT -e PREEMPT_COUNT
    -e PROVE_LOCKING -e PROVE_RCU -e DEBUG_ATOMIC_SLEEP -e DEBUG_OBJECTS -e DEBUG_OBJECTS_WORK
    -e DEBUG_OBJECTS_TIMERS -e DEBUG_OBJECTS_RCU_HEAD -e DEBUG_OBJECTS_FREE -e DEBUG_VM
    -d SLOB -e SLUB -e SLUB_DEBUG -e KASAN -e KASAN_GENERIC -e KASAN_INLINE -e STACKTRACE
    -e LOCKUP_DETECTOR -e SOFTLOCKUP_DETECTOR -e DETECT_HUNG_TASK)
  want=(PREEMPT PREEMPT_RCU PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP KASAN DEBUG_OBJECTS)
  ;;
builtin)
  OPTS+=(-e KCOV -e KCOV_ENABLE_COMPARISONS -e KCOV_INSTRUMENT_ALL -e GCOV_KERNEL -e GCOV_PROFILE_ALL
    -d CC_OPTIMIZE_FOR_SIZE -e CC_OPTIMIZE_FOR_PERFORMANCE -e BT -e BT_HCIVHCI)
  want=(KCOV KCOV_ENABLE_COMPARISONS KCOV_INSTRUMENT_ALL GCOV_KERNEL GCOV_PROFILE_ALL CONSTRUCTORS UCOV
    CC_OPTIMIZE_FOR_PERFORMANCE BT BT_HCIVHCI)
  ;;
builtin-6.12)
  OPTS+=(-d CC_OPTIMIZE_FOR_SIZE -e CC_OPTIMIZE_FOR_PERFORMANCE -e BT -e BT_HCIVHCI -e GCOV_KERNEL)
  FRAGMENT=$HERE/syzkaller-kcov.config
  want=(KCOV KCOV_ENABLE_COMPARISONS KCOV_INSTRUMENT_ALL UCOV CC_OPTIMIZE_FOR_PERFORMANCE BT BT_HCIVHCI
    GCOV_KERNEL)
  ;;
pgo | pgo-use | pgo-plain)
  pgo=-e
  [ "$FLAVOUR" = pgo ] || pgo=-d
  OPTS+=(-d VIRTUALIZATION -d KVM -d FTRACE -d ENABLE_DEFAULT_TRACERS -e KCOV -e KCOV_ENABLE_COMPARISONS
    -e KCOV_INSTRUMENT_ALL -e GCOV_KERNEL "$pgo" PGO_CLANG -d CC_OPTIMIZE_FOR_SIZE -e CC_OPTIMIZE_FOR_PERFORMANCE)
  want=(CC_IS_CLANG LD_IS_LLD KCOV KCOV_ENABLE_COMPARISONS KCOV_INSTRUMENT_ALL GCOV_KERNEL UCOV
    CC_OPTIMIZE_FOR_PERFORMANCE)
  [ "$FLAVOUR" != pgo ] || want+=(PGO_CLANG)
  ;;
kcovc)
  OPTS+=(-e KCOV -e KCOV_ENABLE_COMPARISONS -e KCOV_INSTRUMENT_ALL -e GCOV_KERNEL -e GCOV_PROFILE_ALL
    -d CC_OPTIMIZE_FOR_SIZE -e CC_OPTIMIZE_FOR_PERFORMANCE -e BT -e BT_HCIVHCI)
  want=(KCOV KCOV_ENABLE_COMPARISONS KCOV_INSTRUMENT_ALL GCOV_KERNEL GCOV_PROFILE_ALL CONSTRUCTORS
    CC_OPTIMIZE_FOR_PERFORMANCE BT BT_HCIVHCI)
  ;;
*) die "unknown flavour (clang, debug, builtin, builtin-6.12, pgo, pgo-use, pgo-plain, kcovc)" ;;
esac
FRAGMENT=${FRAGMENT:-}
PROFILE_FS=
case $FLAVOUR in builtin-6.12 | pgo*) PROFILE_FS='GCOV_PROFILE := y' ;; esac
# the flavours built from the tree apply.sh makes
applied=
case $FLAVOUR in builtin* | pgo*) applied=1 ;; esac
# what the key is made of: the options, the compiler, and builtin-6.12's
# fragment and fs/ line
key_input() {
  echo "${OPTS[*]}"
  echo "$cc_version"
  [ -z "$FRAGMENT" ] || cat "$FRAGMENT"
  [ -z "$PROFILE_FS" ] || echo "fs/Makefile: $PROFILE_FS"
}
key=$(key_input | sha256sum | cut -c1-12)
suffix=$FLAVOUR && [ "$FLAVOUR" = clang ] && suffix=clang19
DIR=$ROOT/linux-source-$ver-$suffix-$key
mkdir -p "$ROOT" || die "cannot make $ROOT"
exec 9>"$ROOT/.$FLAVOUR-build.lock" && flock -w 3600 9 || die "cannot lock $ROOT/.$FLAVOUR-build.lock"
# pgo-use: every build of the tree with its profile
[ "$FLAVOUR" != pgo-use ] || M+=(KCFLAGS=-fprofile-use="$DIR/vmlinux.profdata")
# builtin: the tree made anew by apply.sh from this checkout's sources, so
# that a change to them rebuilds only what it touches.
apply() {
  [ -n "$applied" ] || return 0
  bash "$HERE/../../kernel/linux/builtin/apply.sh" "$DIR/linux" >"$DIR/apply.log" 2>&1 ||
    die "apply.sh failed: $(tail -3 "$DIR/apply.log")"
}
if [ -f "$DIR/done" ]; then
  apply
  if [ -n "$applied" ] && ! grep -q ': 0 change(s)$' "$DIR/apply.log"; then
    start=$(date +%s)
    (cd "$DIR/linux" && "${M[@]}" bzImage modules) >>"$DIR/build.log" 2>&1 ||
      die "the build failed: $(grep -m5 -i 'error' "$DIR/build.log")"
    echo "rebuilt in $(($(date +%s) - start)) s" >"$DIR/done"
  fi
  echo "$DIR/linux $DIR/linux/arch/x86/boot/bzImage"
  exit 0
fi
if [ "$FLAVOUR" = pgo-use ]; then
  [ -s "${UCOV_PGO_PROFDATA:-}" ] || die "the first build needs a profile: UCOV_PGO_PROFDATA=vmlinux.profdata"
fi
rm -rf "$DIR" && mkdir -p "$DIR/linux" || die "cannot make $DIR"
if [ "$FLAVOUR" = pgo-use ]; then
  cp "$UCOV_PGO_PROFDATA" "$DIR/vmlinux.profdata" || die "cannot copy $UCOV_PGO_PROFDATA"
fi
tar -xf "$SRC_TAR" -C "$DIR/linux" --strip-components=1 || die "cannot unpack $SRC_TAR"
apply
cd "$DIR/linux" || exit 1
# kcovc: kcov.o not profiled by gcov, as kernel/ucov is not (the released
# kernel/Makefile profiles it under GCOV_PROFILE_ALL): hook against hook.
if [ "$FLAVOUR" = kcovc ]; then
  sed -i '/^KCOV_INSTRUMENT_kcov\.o := n$/a GCOV_PROFILE_kcov.o := n' kernel/Makefile &&
    grep -qx 'GCOV_PROFILE_kcov.o := n' kernel/Makefile || die "kernel/Makefile: no kcov.o lines"
fi
# builtin-6.12, pgo: gcov.rst's per-directory profiling, as a user adds it:
# every file of fs/ (not of its subdirectories), the rest of the kernel not.
if [ -n "$PROFILE_FS" ]; then
  printf '\n%s\n' "$PROFILE_FS" >>fs/Makefile || die "fs/Makefile"
fi
{
  "${M[@]}" tinyconfig &&
    ./scripts/config "${OPTS[@]}" &&
    { [ -z "$FRAGMENT" ] || ./scripts/kconfig/merge_config.sh -m .config "$FRAGMENT"; } &&
    "${M[@]}" olddefconfig
} >"$DIR/build.log" 2>&1 || die "configuration failed: $(tail -5 "$DIR/build.log")"
case $FLAVOUR in pgo*) ;; *) want+=(PREEMPT_NOTIFIERS TRACEPOINTS) ;; esac
for c in "${want[@]}" MODULES DEBUG_FS KALLSYMS_ALL SERIAL_8250_CONSOLE; do
  grep -qx "CONFIG_$c=y" .config || die "CONFIG_$c is not set in the configuration"
done
unwanted=(KCOV GCOV_KERNEL)
[ -n "$applied" ] || [ "$FLAVOUR" = kcovc ] && unwanted=()
[ "$FLAVOUR" = pgo-use ] || [ "$FLAVOUR" = pgo-plain ] && unwanted=(PGO_CLANG)
case $FLAVOUR in pgo*) unwanted+=(KVM FTRACE) ;; esac
for c in "${unwanted[@]}"; do
  ! grep -qx "CONFIG_$c=y" .config || die "CONFIG_$c is set in the configuration"
done
start=$(date +%s)
"${M[@]}" bzImage modules >>"$DIR/build.log" 2>&1 || die "the build failed: $(grep -m5 -i 'error' "$DIR/build.log")"
echo "built in $(($(date +%s) - start)) s" >"$DIR/done"
echo "$DIR/linux $DIR/linux/arch/x86/boot/bzImage"
