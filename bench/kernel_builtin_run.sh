#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vmlinux's own KCOV and gcov, ucov (kernel/linux/builtin) against kcov.c and
# kernel/gcov: two kernels from one source and one configuration
# (tests/kernel/build_kernel.sh builtin and kcovc, cached), booted in turn
# under QEMU, ROUNDS boots each, interleaved. In each boot: a syscall loop
# (bench/kernel_syscalls.c: read(-1, NULL, 0), nobody tracing, then the task
# tracing with KCOV_TRACE_PC, 5 measures of 200,000 calls each: the guest's
# clock counts in steps of milliseconds); and
# read_write.gcda's counts of ksys_read around 1000 reads and after the
# unit's reset (tests/kernel/gcov_vmlinux.c), read by gcc's gcov.
# Prints markdown: each kernel's min and median nanoseconds per call, the
# ratios ucov / kcov.c, and the gcov counts side by side.
# Usage: kernel_builtin_run.sh [ROUNDS]   (default 3)
set -eu
ROUNDS=${1:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
CACHE=${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
read -r UT UB < <(bash "$SRC/tests/kernel/build_kernel.sh" builtin "$CACHE")
read -r KT KB < <(bash "$SRC/tests/kernel/build_kernel.sh" kcovc "$CACHE")
gcc -static -O2 -I"$SRC/include" "$HERE/kernel_syscalls.c" -o "$W/kernel_syscalls"
gcc -static -O1 "$SRC/tests/kernel/gcov_vmlinux.c" -o "$W/gcov_vmlinux"
mkdir -p "$W/ir/bin" "$W/ir/proc" "$W/ir/sys" "$W/ir/dev" "$W/ir/tmp"
cp /bin/busybox "$W/kernel_syscalls" "$W/gcov_vmlinux" "$W/ir/bin/"
cat >"$W/ir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
/bin/kernel_syscalls idle 200000 5
/bin/kernel_syscalls traced 200000 5
g=$(find /sys/kernel/debug/gcov -name read_write.gcda | head -1)
mkdir -p /tmp/g && /bin/gcov_vmlinux "$g" 1000 777 /tmp/g
echo GCDA-BEGIN
tar czf - -C /tmp g | base64
echo GCDA-END
reboot -f
INIT
chmod +x "$W/ir/init"
(cd "$W/ir" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$W/initrd.gz")
boot() { # BZIMAGE LOG
  timeout 600 qemu-system-x86_64 -accel "${UCOV_QEMU_ACCEL:-tcg}" -cpu max -smp 2 -m 512 -display none \
    -monitor none -no-reboot -serial file:"$2" -kernel "$1" -initrd "$W/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet" </dev/null >/dev/null 2>&1
}
for r in $(seq "$ROUNDS"); do
  boot "$UB" "$W/ucov.$r.log"
  boot "$KB" "$W/kcovc.$r.log"
done
stats() { # KERNEL MODE: min and median over every round's measures
  cat "$W/$1".*.log | tr -d '\r' | awk -v m="$2" '$1 == "syscalls" && $2 == m { print $3 }' | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) printf "%.1f %.1f\n", v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
count() { # KERNEL TREE SNAPSHOT: ksys_read's count in the last round's snapshot
  local d="$W/g-$1"
  rm -rf "$d" && mkdir -p "$d" && tr -d '\r' <"$W/$1.$ROUNDS.log" | sed -n '/^GCDA-BEGIN$/,/^GCDA-END$/p' |
    sed '1d;$d' | base64 -d | tar xzf - -C "$d" &&
    cp "$2/fs/read_write.gcno" "$d/" && cp "$d/g/$3.gcda" "$d/read_write.gcda" &&
    (cd "$d" && gcov --json-format --stdout -o . "$2/fs/read_write.c" 2>/dev/null) |
    python3 -c 'import json, sys
print(next(fn["execution_count"] for f in json.load(sys.stdin)["files"] for fn in f["functions"] if fn["name"] == "ksys_read"))'
}
echo "Measured $(date -u +%Y-%m-%d) by \`bash bench/kernel_builtin_run.sh $ROUNDS\` on $(nproc) cores; $(gcc --version | head -1);"
echo "guests under QEMU (${UCOV_QEMU_ACCEL:-tcg}, 2 vCPUs, 512 MiB), $ROUNDS boots of each kernel, interleaved, 5 measures of 200,000 calls per boot and mode."
echo
echo "| read(-1, NULL, 0), ns per call | kcov.c min | kcov.c median | ucov min | ucov median | ucov / kcov.c (median) |"
echo "|---|---:|---:|---:|---:|---:|"
for m in idle traced; do
  read -r kmin kmed < <(stats kcovc $m)
  read -r umin umed < <(stats ucov $m)
  printf '| %s | %s | %s | %s | %s | %s |\n' "$m" "$kmin" "$kmed" "$umin" "$umed" \
    "$(awk -v u="$umed" -v k="$kmed" 'BEGIN { printf "%.3f", u / k }')"
done
echo
echo "| ksys_read's count (gcc's gcov) | kernel/gcov | ucov |"
echo "|---|---:|---:|"
for s in A B C; do
  printf '| snapshot %s | %s | %s |\n' "$s" "$(count kcovc "$KT" $s)" "$(count ucov "$UT" $s)"
done
