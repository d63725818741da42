#!/usr/bin/env bash
# apply.sh on Linux 6.12 (bookworm-backports' linux-source-6.12, fetched
# into the kernel cache; nothing installed): the tree it makes configures
# and compiles ucov's kernel/ucov/ without a warning, with CONFIG_KCOV and
# CONFIG_GCOV_KERNEL (and Bluetooth's vhci) and with CONFIG_GCOV_KERNEL
# alone, and run again apply.sh changes nothing. (test_kernel_builtin boots
# 6.1's; this is the port's and the script's check on 6.12's headers, a
# minute or two where a whole kernel takes ten.)
# Usage: builtin_6_12.sh UCOV SRCDIR WORKDIR
# Environment: UCOV_KERNEL_CACHE (default: ~/.cache/ucov/kernel).
set -u
SRC=$(cd "$2" && pwd) WORK=$3
. "$SRC/tests/lib.sh"
fresh_workdir
if [ "$(uname -m)" != x86_64 ]; then
  echo "kernel checks skipped: the configuration is x86_64's"
  exit 77
fi
CACHE=${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}
mkdir -p "$CACHE" && exec 9>"$CACHE/.builtin-6.12.lock" && flock -w 1800 9 || {
  fail "the kernel cache $CACHE"
  finish builtin_6_12
  exit 1
}
# shellcheck source=tests/apt_suite.sh
. "$SRC/tests/apt_suite.sh"
A=$CACHE/apt-bookworm-backports
if ! apt_suite bookworm-backports "$A" 2>apt.err; then
  fail "bookworm-backports' apt source: $(cat apt.err)"
  finish builtin_6_12
  exit 1
fi
ver=$(apt-cache "${APT[@]}" policy linux-source-6.12 2>/dev/null | sed -n 's/^ *Candidate: //p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || {
  fail "no linux-source-6.12 in bookworm-backports"
  finish builtin_6_12
  exit 1
}
DIR=$CACHE/linux-source-$ver-builtin-check
if [ ! -f "$DIR/unpacked" ]; then
  rm -rf "$DIR" && mkdir -p "$DIR/dl" "$DIR/linux" &&
    (cd "$DIR/dl" && apt-get "${APT[@]}" download "linux-source-6.12=$ver" >/dev/null 2>&1) &&
    dpkg-deb --fsys-tarfile "$DIR"/dl/linux-source-6.12_*.deb | tar -xf - -C "$DIR/dl" ./usr/src &&
    tar -xf "$DIR"/dl/usr/src/linux-source-6.12.tar.xz -C "$DIR/linux" --strip-components=1 &&
    rm -rf "$DIR/dl" && touch "$DIR/unpacked" || {
    fail "linux-source-6.12=$ver: download and unpack"
    finish builtin_6_12
    exit 1
  }
fi
pass "bookworm-backports' linux-source-6.12 $ver"
K=$DIR/linux
bash "$SRC/kernel/linux/builtin/apply.sh" "$K" >apply1.txt 2>&1 && grep -q '^apply.sh: Linux 6.12 at ' apply1.txt &&
  bash "$SRC/kernel/linux/builtin/apply.sh" "$K" >apply2.txt 2>&1 && grep -q ': 0 change(s)$' apply2.txt &&
  pass "apply.sh makes the 6.12 tree over, and run again changes nothing" ||
  fail "apply.sh on 6.12: $(tail -2 apply1.txt) / $(tail -1 apply2.txt)"
# shellcheck disable=SC2016
grep -qx 'obj-$(CONFIG_UCOV) += ucov/' "$K/kernel/Makefile" && ! grep -q 'kcov\.o\|gcov/' "$K/kernel/Makefile" &&
  grep -qx $'\tselect UCOV' "$K/lib/Kconfig.debug" && grep -qx $'\tselect UCOV' "$K/kernel/gcov/Kconfig" &&
  pass "6.12's kernel/Makefile, lib/Kconfig.debug and kernel/gcov/Kconfig changed" ||
  fail "6.12's Makefile and Kconfig edits"
BASE=(-e 64BIT -e PRINTK -e TTY -e DEBUG_FS -e MODULES -e KALLSYMS -e KALLSYMS_ALL -e SMP -e NET
  -d RANDOMIZE_BASE -d WERROR --set-val FRAME_WARN 1024)
compile() { # NAME OPTIONS...: configure, then kernel/ucov/ compiled
  local name=$1
  shift
  (cd "$K" && make -s tinyconfig && ./scripts/config "${BASE[@]}" "$@" && make -s olddefconfig &&
    rm -rf kernel/ucov/*.o kernel/ucov/core/*.o && make -s -j"$(nproc)" prepare &&
    make -s -j"$(nproc)" kernel/ucov/) >"$name.log" 2>&1
}
compile both -e KCOV -e KCOV_ENABLE_COMPARISONS -e KCOV_INSTRUMENT_ALL -e GCOV_KERNEL -e GCOV_PROFILE_ALL \
  -e BT -e BT_HCIVHCI -d CC_OPTIMIZE_FOR_SIZE -e CC_OPTIMIZE_FOR_PERFORMANCE &&
  grep -qx 'CONFIG_UCOV=y' "$K/.config" && grep -qx 'CONFIG_KCOV=y' "$K/.config" &&
  [ -f "$K/kernel/ucov/tasks_builtin.o" ] && [ -f "$K/kernel/ucov/core/trace.o" ] &&
  pass "6.12 with CONFIG_KCOV and CONFIG_GCOV_KERNEL: kernel/ucov compiles" ||
  fail "6.12 with CONFIG_KCOV and CONFIG_GCOV_KERNEL: $(grep -m3 -i 'error' both.log)"
! grep -q -i 'warning' both.log && pass "... without a warning (FRAME_WARN 1024)" ||
  fail "6.12 warnings: $(grep -m3 -i warning both.log)"
compile gcov -d KCOV -e GCOV_KERNEL -e GCOV_PROFILE_ALL &&
  grep -qx 'CONFIG_UCOV=y' "$K/.config" && ! grep -qx 'CONFIG_KCOV=y' "$K/.config" &&
  [ -f "$K/kernel/ucov/untraced_builtin.o" ] && [ ! -f "$K/kernel/ucov/kcov.o" ] &&
  ! grep -q -i 'warning\|error' gcov.log &&
  pass "6.12 with CONFIG_GCOV_KERNEL alone: the gcov side compiles, no KCOV device, no warning" ||
  fail "6.12 with CONFIG_GCOV_KERNEL alone: $(grep -m3 -i 'error\|warning' gcov.log)"
finish builtin_6_12
