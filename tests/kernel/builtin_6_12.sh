#!/usr/bin/env bash
# apply.sh on Linux 6.12 (bookworm-backports' linux-source-6.12, fetched
# into the kernel cache; nothing installed): the tree it makes configures
# and compiles ucov's kernel/ucov/ without a warning with CONFIG_GCOV_KERNEL
# alone, and with clang's CONFIG_PGO_CLANG, by clang 19 and 16 (a file of
# the kernel profiled, kernel/ucov not), and run again apply.sh changes
# nothing. Then the whole
# kernel, with
# syzkaller's coverage fragment and fs/ profiled by gcov (build_kernel.sh
# builtin-6.12), booted with builtin.sh's checks. (kernel/ucov's frames are
# held to 1024 bytes in every build: its Makefile says so.)
# Usage: builtin_6_12.sh UCOV SRCDIR WORKDIR
# Environment: UCOV_KERNEL_CACHE (default: ~/.cache/ucov/kernel).
set -u
UCOV=$(realpath "$1") SRC=$(cd "$2" && pwd) WORK=$3
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
if ! got=$(bash "$SRC/tests/kernel/source_6_12.sh" "$CACHE" 2>source.err); then
  fail "bookworm-backports' linux-source-6.12: $(cat source.err)"
  finish builtin_6_12
  exit 1
fi
read -r ver TAR <<<"$got"
DIR=$CACHE/linux-source-$ver-builtin-check
if [ ! -f "$DIR/unpacked" ]; then
  rm -rf "$DIR" && mkdir -p "$DIR/linux" && tar -xf "$TAR" -C "$DIR/linux" --strip-components=1 &&
    touch "$DIR/unpacked" || {
    fail "linux-source-6.12=$ver: unpack"
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
MK=(make -s)
compile() { # NAME OPTIONS...: configure, then kernel/ucov/ compiled (by MK)
  local name=$1
  shift
  (cd "$K" && "${MK[@]}" tinyconfig && ./scripts/config "${BASE[@]}" "$@" && "${MK[@]}" olddefconfig &&
    rm -rf kernel/ucov/*.o kernel/ucov/core/*.o && "${MK[@]}" -j"$(nproc)" prepare &&
    "${MK[@]}" -j"$(nproc)" kernel/ucov/) >"$name.log" 2>&1
}
compile gcov -d KCOV -e GCOV_KERNEL -e GCOV_PROFILE_ALL &&
  grep -qx 'CONFIG_UCOV=y' "$K/.config" && ! grep -qx 'CONFIG_KCOV=y' "$K/.config" &&
  [ -f "$K/kernel/ucov/untraced_builtin.o" ] && [ ! -f "$K/kernel/ucov/kcov.o" ] &&
  ! grep -q -i 'warning\|error' gcov.log &&
  pass "6.12 with CONFIG_GCOV_KERNEL alone: the gcov side compiles, no KCOV device, no warning" ||
  fail "6.12 with CONFIG_GCOV_KERNEL alone: $(grep -m3 -i 'error\|warning' gcov.log)"
# CONFIG_PGO_CLANG on 6.12, with clang 19: the option is there, a file of
# the kernel is built with -fprofile-generate (6.12 names an object as
# Makefile.lib's GCOV block does), kernel/ucov is not.
# And with Debian's clang 16 (raw profile version 8).
for v in 19 16; do
  MK=(make -s "LLVM=-$v")
  rm -f "$K/fs/read_write.o"
  compile pgo$v -d KCOV -d GCOV_KERNEL -e PGO_CLANG && (cd "$K" && "${MK[@]}" fs/read_write.o) >>pgo$v.log 2>&1 &&
    grep -qx 'CONFIG_PGO_CLANG=y' "$K/.config" && grep -qx 'CONFIG_UCOV=y' "$K/.config" &&
    grep -q "CONFIG_CLANG_VERSION=$v" "$K/.config" &&
    [ "$(readelf -SW "$K/fs/read_write.o" | grep -c ' __llvm_prf_cnts ')" -gt 0 ] &&
    ! readelf -SW "$K"/kernel/ucov/*.o "$K"/kernel/ucov/core/*.o | grep -q ' __llvm_prf_cnts ' &&
    ! grep -q -i 'warning\|error' pgo$v.log &&
    pass "6.12 with CONFIG_PGO_CLANG (clang $v): fs/read_write.o profiled, kernel/ucov not, no warning" ||
    fail "6.12 with CONFIG_PGO_CLANG (clang $v): $(grep -m3 -i 'error\|warning' pgo$v.log)"
done
# The whole kernel, booted: builtin.sh's checks on 6.12 (KCOV).
bash "$SRC/tests/kernel/builtin.sh" "$UCOV" "$SRC" "$WORK/boot" 6.12 >boot.txt 2>&1
booted=$?
sed 's/^/  /' boot.txt
[ $booted = 0 ] && pass "6.12 booted: $(tail -1 boot.txt)" || fail "6.12 booted: $(grep -c '^not ok' boot.txt) failed"
finish builtin_6_12
