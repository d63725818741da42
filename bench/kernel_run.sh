#!/usr/bin/env bash
# ucov.ko's hook in the kernel (writes bench/RESULTS-kernel.md):
#  1. __sanitizer_cov_trace_pc of ucov.ko beside kcov.c's, as each kernel
#     build compiles them: ucov.ko against Debian 12's 6.1 headers, and
#     kernel/kcov.o alone from Debian's linux-source-6.1 (the same version)
#     with Debian's configuration plus CONFIG_KCOV=y; both listings, with
#     relocations, go into the results, where the two paths are counted.
#  2. Reads per second of the demo device in the guest (bench/kernel_reads.c)
#     on each booted kernel (6.1, and bookworm-backports' 6.12): the module
#     uninstrumented, instrumented (trace-pc and trace-cmp) with empty hooks
#     (bench/kernel_floor, the floor), with ucov.ko and nobody tracing, and
#     traced by the reading task; ROUNDS rounds, the variants in rotating
#     order, minimums and medians.
# usage: bash bench/kernel_run.sh [ROUNDS]   (default 7; SECONDS=1 per measure)
# Environment: UCOV_KERNEL_CACHE (default ~/.cache/ucov/kernel), UCOV_QEMU_ACCEL.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
ROUNDS=${1:-7}
SECS=${SECONDS_PER:-1}
CACHE=${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}
W=$SRC/bench/work/kernel
mkdir -p "$W"
gcc -static -O2 -I"$SRC/include" bench/kernel_reads.c -o "$W/kernel_reads"

# kernel/kcov.o from Debian's source of the installed 6.1 headers.
read -r KDIR61 _ < <(bash tests/kernel/fetch_kernel.sh bookworm "$CACHE")
kver=${KDIR61##*/linux-headers-}
pkgver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
KS=$CACHE/kcov-src-$pkgver
if [ ! -f "$KS/kernel/kcov.o" ]; then
  for t in flex bison bc; do command -v $t >/dev/null || apt-get install -y -qq --no-install-recommends $t >/dev/null; done
  [ -f /usr/include/openssl/ssl.h ] || apt-get install -y -qq --no-install-recommends libssl-dev >/dev/null
  rm -rf "$KS.dl" && mkdir -p "$KS.dl"
  (cd "$KS.dl" && apt-get download "linux-source-${kver%%.0-*}=$pkgver" >/dev/null 2>&1)
  dpkg-deb -x "$KS.dl"/linux-source-*.deb "$KS.dl/x"
  tar xf "$KS.dl"/x/usr/src/linux-source-*.tar.xz -C "$KS.dl"
  rm -rf "$KS" && mv "$KS.dl"/linux-source-*/ "$KS" && rm -rf "$KS.dl"
  cp "$KDIR61/.config" "$KS/.config"
  (cd "$KS" && ./scripts/config -e KCOV -d KCOV_INSTRUMENT_ALL -e KCOV_ENABLE_COMPARISONS \
    -d DEBUG_INFO_BTF -d MODULE_SIG -d SYSTEM_TRUSTED_KEYRING &&
    make olddefconfig >/dev/null && make -j2 prepare >/dev/null 2>&1 && make -j2 kernel/kcov.o >/dev/null)
fi

# The guest's workload, on each kernel.
boot() { # SUITE: prints the guest's "BENCH ..." lines
  local suite=$1 kdir vmlinuz t v
  read -r kdir vmlinuz < <(bash tests/kernel/fetch_kernel.sh "$suite" "$CACHE")
  t=$W/$suite
  rm -rf "$t" && mkdir -p "$t/tree/kernel" "$t/tree/examples" "$t/ir/bin" "$t/ir/proc" "$t/ir/sys" "$t/ir/dev"
  cp -r kernel/linux "$t/tree/kernel/" && cp -r examples/linux-module examples/baremetal "$t/tree/examples/"
  make -s -C "$t/tree/kernel/linux" KDIR="$kdir" UCOV_SRC="$SRC" >"$t/build.log" 2>&1
  # plain: nothing of ucov's; trace: trace-pc and trace-cmp, no gcov, no entry/exit hooks.
  for v in plain trace; do
    cp -r "$t/tree/examples/linux-module" "$t/tree/examples/demo-$v"
    local on=n
    [ $v = trace ] && on=y
    make -s -C "$kdir" M="$t/tree/examples/demo-$v" UCOV_DIR="$t/tree" UCOV_TRACE=$on UCOV_GCOV=n CFLAGS_demo.o= \
      modules >>"$t/build.log" 2>&1
    cp "$t/tree/examples/demo-$v/ucov_demo.ko" "$t/ir/demo-$v.ko"
  done
  [ "$(objdump -dr "$t/ir/demo-plain.ko" | grep -c __sanitizer_cov)" = 0 ] &&
    [ "$(objdump -dr "$t/ir/demo-trace.ko" | grep -c __sanitizer_cov_trace_pc)" -gt 20 ] ||
    { echo "kernel_run: the variants are not what they say" >&2; exit 1; }
  # The floor: the same hooks, empty (bench/kernel_floor), with the same symbol versions.
  cp -r bench/kernel_floor "$t/floor"
  make -s -C "$t/floor" KDIR="$kdir" UCOV_SRC="$SRC" >>"$t/build.log" 2>&1
  cp "$t/floor/ucov_floor.ko" "$t/ir/"
  cp "$t/tree/kernel/linux/ucov.ko" "$t/ir/" && cp "$W/kernel_reads" "$t/ir/bin/" && cp /bin/busybox "$t/ir/bin/"
  cat >"$t/ir/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
with_ucov() {
  insmod /ucov.ko
  if [ \$((r % 2)) = 1 ]; then order="plain trace"; else order="trace plain"; fi
  for v in \$order; do
    insmod /demo-\$v.ko
    echo "BENCH \$v \$(kernel_reads untraced $SECS)"
    [ \$v = trace ] && echo "BENCH \$v \$(kernel_reads traced $SECS)"
    rmmod ucov_demo
  done
  rmmod ucov
}
with_floor() {
  insmod /ucov_floor.ko
  insmod /demo-trace.ko
  echo "BENCH floor \$(kernel_reads untraced $SECS)"
  rmmod ucov_demo
  rmmod ucov_floor
}
for r in \$(seq $ROUNDS); do
  if [ \$((r % 2)) = 1 ]; then with_ucov; with_floor; else with_floor; with_ucov; fi
done
poweroff -f
INIT
  chmod +x "$t/ir/init"
  (cd "$t/ir" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >../initrd.gz)
  timeout 900 qemu-system-x86_64 -accel "${UCOV_QEMU_ACCEL:-tcg}" -cpu max -smp 2 -m 1024 -display none \
    -monitor none -no-reboot -serial file:"$t/console.txt" -kernel "$vmlinuz" -initrd "$t/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet" </dev/null >"$t/qemu.out" 2>&1
  tr -d '\r' <"$t/console.txt" | grep -a '^BENCH ' >"$t/bench.txt"
  echo "$kdir" >"$t/kdir"
}
for suite in bookworm bookworm-backports; do
  boot "$suite"
done

python3 - "$W" "$ROUNDS" "$SECS" "$KS/kernel/kcov.o" "$W/bookworm/tree/kernel/linux/ucov.ko" \
  >bench/RESULTS-kernel.md <<'PY'
import statistics, subprocess, sys, datetime, os
w, rounds, secs, kcov_o, ucov_ko = sys.argv[1:6]
def listing(obj):
    out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", obj], capture_output=True, text=True).stdout
    lines, on = [], False
    for l in out.splitlines():
        if l.endswith("<__sanitizer_cov_trace_pc>:"):
            on = True
        elif on and not l.strip():
            break
        if on:
            lines.append(l.rstrip())
    return "\n".join(lines)
def version(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip().splitlines()[0]
print("# ucov.ko's hook in the kernel\n")
print(f"Measured {datetime.date.today()} by `bash bench/kernel_run.sh {rounds}` on {os.cpu_count()} cores; "
      f"{version('gcc --version')}; guests under QEMU ({os.environ.get('UCOV_QEMU_ACCEL', 'tcg')}, 2 vCPUs, 1 GiB).\n")
print("## Reads of the demo device per second\n")
print(f"Each measure: {secs} s of `pread` of `/dev/ucov-demo` (one evaluation of a 45-character expression by the\n"
      "demo module's parser each), the module loaded fresh for each round; the variants in rotating order,\n"
      f"{rounds} rounds. *plain*: the module without ucov's instrumentation; *trace, empty hooks*: the\n"
      "instrumented module with `bench/kernel_floor`'s hooks, which return at once, in place of ucov.ko (the\n"
      "calls the compiler inserted, and nothing else); *trace, nobody traces*: built with\n"
      "`UCOV_TRACE := y` (trace-pc and trace-cmp), no task tracing; *trace, traced*: the reading task has\n"
      "`KCOV_ENABLE(KCOV_TRACE_PC)` and resets the count before each read. Ratio: plain's median rate over\n"
      "the variant's (the slowdown).\n")
for suite in ("bookworm", "bookworm-backports"):
    kdir = open(os.path.join(w, suite, "kdir")).read().strip()
    rates = {}
    for l in open(os.path.join(w, suite, "bench.txt")):
        _, v, _, mode, n, t = l.split()
        rates.setdefault((v, mode), []).append(int(n) / float(t))
    base = statistics.median(rates[("plain", "untraced")])
    print(f"### {os.path.basename(kdir).replace('linux-headers-', '')}\n")
    print("| variant | min reads/s | median reads/s | slowdown (median) |")
    print("|---|---:|---:|---:|")
    for key, name in ((("plain", "untraced"), "plain"), (("floor", "untraced"), "trace, empty hooks (floor)"),
                      (("trace", "untraced"), "trace, nobody traces"), (("trace", "traced"), "trace, traced")):
        r = rates.get(key, [0])
        print(f"| {name} | {min(r):,.0f} | {statistics.median(r):,.0f} | {base / statistics.median(r):.2f}x |")
    print()
print("## `__sanitizer_cov_trace_pc`, instruction by instruction\n")
print("Both as gcc 12 builds them against Debian's 6.1 configuration (`jmp` to the next address with an\n"
      "`R_X86_64_PLT32 __x86_return_thunk` relocation is the return: the kernel's return thunk). The paths\n"
      "are counted from these listings in the section below.\n")
print("kcov.c (`kernel/kcov.o`, `CONFIG_KCOV=y`):\n\n```\n" + listing(kcov_o) + "\n```\n")
print("ucov.ko (`src/core/trace.c` with `kernel/linux/ucov_task.h`):\n\n```\n" + listing(ucov_ko) + "\n```\n")
print(open("bench/kernel_paths.md").read())
PY
echo "wrote bench/RESULTS-kernel.md"
