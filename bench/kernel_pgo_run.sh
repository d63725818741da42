#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Clang PGO kernel document's workflow ends in a kernel built with
# KCFLAGS=-fprofile-use: is it a better kernel? Two kernels from one source
# and one configuration (tests/kernel/build_kernel.sh, cached): pgo-use,
# built from the profile test_kernel_pgo took of its workload (dd's blocks
# from /dev/zero to /dev/null, and a module at work), and pgo-plain, the same
# without a profile. Both have CONFIG_KCOV and CONFIG_GCOV_KERNEL (fs/) as
# the profiling kernel had: the document's rebuild turns PGO_CLANG off and
# nothing else. Booted in turn under QEMU, ROUNDS boots each, interleaved;
# in each boot bench/kernel_syscalls.c's loops, nobody tracing: dd (the
# trained workload: a 512-byte read of /dev/zero and a write to /dev/null a
# call), idle (read(-1, NULL, 0): a part of it) and open (open and close
# of a file: a path walk, not trained), 5 measures of N calls each. Twice:
# under -icount shift=0, where the guest's clock advances one nanosecond an
# instruction, so that a call's nanoseconds are the instructions the guest
# executed for it (the timer's interrupts among them); then in TCG's own
# time, wall time with its caveats (a translated kernel, not a CPU's).
# Prints markdown: each kernel's min and median per call, and pgo / plain.
# Usage: kernel_pgo_run.sh [ROUNDS] [N]   (default 3, 50000)
set -eu
ROUNDS=${1:-3} N=${2:-50000}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
CACHE=${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
read -r PT PB < <(bash "$SRC/tests/kernel/build_kernel.sh" pgo-use "$CACHE") ||
  {
    echo "kernel_pgo_run.sh: no pgo-use kernel: run test_kernel_pgo first (it gives the profile)" >&2
    exit 1
  }
read -r _ CB < <(bash "$SRC/tests/kernel/build_kernel.sh" pgo-plain "$CACHE")
gcc -static -O2 -I"$SRC/include" "$HERE/kernel_syscalls.c" -o "$W/kernel_syscalls"
mkdir -p "$W/ir/bin" "$W/ir/proc" "$W/ir/sys" "$W/ir/dev" "$W/ir/tmp"
cp /bin/busybox "$W/kernel_syscalls" "$W/ir/bin/"
{
  cat "$SRC/tests/kernel/guest_init_head.sh"
  echo "/bin/kernel_syscalls dd $N 5"
  echo "/bin/kernel_syscalls idle $N 5"
  echo "/bin/kernel_syscalls open $N 5"
  echo "reboot -f"
} >"$W/ir/init"
chmod +x "$W/ir/init"
(cd "$W/ir" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$W/initrd.gz")
boot() { # BZIMAGE LOG [QEMU OPTIONS]
  local k=$1 log=$2
  shift 2
  timeout 1200 qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m 512 -display none "$@" \
    -monitor none -no-reboot -serial file:"$log" -kernel "$k" -initrd "$W/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet" </dev/null >/dev/null 2>&1
}
for r in $(seq "$ROUNDS"); do
  boot "$CB" "$W/plain-icount.$r.log" -icount shift=0,sleep=off
  boot "$PB" "$W/pgo-icount.$r.log" -icount shift=0,sleep=off
  boot "$CB" "$W/plain-wall.$r.log"
  boot "$PB" "$W/pgo-wall.$r.log"
done
stats() { # KERNEL-CLOCK MODE: min and median over every round's measures
  cat "$W/$1".*.log | tr -d '\r' | awk -v m="$2" '$1 == "syscalls" && $2 == m { print $3 }' | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) printf "%.0f %.0f\n", v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "-" }'; }
echo "| clock | loop | plain min | plain median | PGO min | PGO median | PGO / plain (min) | (median) |"
echo "|---|---|---|---|---|---|---|---|"
for clock in icount wall; do
  for m in dd idle open; do
    read -r cmin cmed < <(stats "plain-$clock" $m) || { cmin=0 cmed=0; }
    read -r pmin pmed < <(stats "pgo-$clock" $m) || { pmin=0 pmed=0; }
    unit=ns
    [ $clock = icount ] && unit=instructions
    printf '| %s (%s a call) | %s | %s | %s | %s | %s | %s | %s |\n' "$clock" "$unit" "$m" "$cmin" "$cmed" \
      "$pmin" "$pmed" "$(ratio "$pmin" "$cmin")" "$(ratio "$pmed" "$cmed")"
  done
done
echo
echo "($ROUNDS boots each, interleaved, 5 measures of $N calls a boot and loop; kernels: $(basename "$(dirname "$PT")") and pgo-plain.)"
