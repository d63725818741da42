#!/usr/bin/env bash
# The demo, end to end: install what is missing, build ucov, build the demo
# parser with `ucov cc --trace`, trace one request in PC and CMP mode, and print
# the PCs as function+offset and the comparison operands the parser saw.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF >/dev/null
cmake --build build/demo -j 2 >/dev/null
UCOV=$PWD/build/demo/ucov
out=build/demo/example
mkdir -p "$out"

echo "== build: only the parser is instrumented"
CC=${CC:-gcc} "$UCOV" cc --trace --show-command -O1 -fno-inline -g -c examples/demo/httpreq.c -o "$out/httpreq.o"
${CC:-gcc} -O1 -g -Iinclude -c examples/demo/trace_one.c -o "$out/trace_one.o"
CC=${CC:-gcc} "$UCOV" cc "$out/trace_one.o" "$out/httpreq.o" -o "$out/trace_one"

REQ='POST /upload HTTP/1.1\r\nHost: demo\r\nX-Ucov-Magic: 0xdeadbeef\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nucov\r\n0\r\n\r\n'
echo
echo "== trace one call in KCOV_TRACE_PC mode: $REQ"
"$out/trace_one" --mode pc --modules "$out/modules.txt" "$REQ" >"$out/pcs.txt"
"$UCOV" symbolize --modules "$out/modules.txt" "$out/pcs.txt" >"$out/pcs.sym"
echo "first 20 of $(wc -l <"$out/pcs.txt") PCs:"
head -20 "$out/pcs.sym"
echo "records per function:"
awk '{sub(/\+.*/, "", $2); n[$2]++} END {for (f in n) printf "  %5d %s\n", n[f], f}' "$out/pcs.sym" |
  sort -rn

echo
echo "== the same call in KCOV_TRACE_CMP mode: comparisons with constants, by function"
"$out/trace_one" --mode cmp --modules "$out/modules.txt" "$REQ" >"$out/cmp.txt"
"$UCOV" symbolize --modules "$out/modules.txt" "$out/cmp.txt" >"$out/cmp.sym"
grep -E 'apply_header|parse_hex32|parse_chunked' "$out/cmp.sym" | grep ' const ' | sort -u -k2,2 -k4 | head -20
echo "(the 0xdeadbeef record is how a fuzzer finds the magic header)"

echo
echo "== live: a daemon measured while it runs (gcov counters kept by ucov, not libgcov)"
root=$PWD
live=$root/$out/live
rm -rf "$live" && mkdir -p "$live"
CC=${CC:-gcc} "$UCOV" cc --gcov -O0 -g -c examples/daemon/kvd.c -o "$live/kvd.o"
CC=${CC:-gcc} "$UCOV" cc --gcov "$live/kvd.o" -o "$live/kvd"
${CC:-gcc} -O1 examples/daemon/kvd.c -o "$live/kvd-client" # an uninstrumented client
"$live/kvd" "$live/kvd.sock" &
kvd_pid=$!
trap 'kill $kvd_pid 2>/dev/null' EXIT
for _ in $(seq 100); do [ -S "$live/kvd.sock" ] && break; sleep 0.05; done
client() { "$live/kvd-client" --client "$live/kvd.sock" "$@" >/dev/null; }
# Per-function line coverage of one pulled tree, as gcov reports it.
report() { # report TREE PHASE
  (cd "$live" && gcov -n -f -o "$1/gcov$live" "$root/examples/daemon/kvd.c" 2>/dev/null) |
    awk -v phase="$2" '
      /^Function / { fn = $2; gsub(/\047/, "", fn) }
      /^Lines executed/ && fn ~ /^(cmd_|handle_line)/ {
        split($2, pct, ":"); printf "  %-9s %-12s %s\n", phase, fn, pct[2]; fn = "" }'
}
"$UCOV" ls --pid $kvd_pid
client PING
"$UCOV" pull --pid $kvd_pid -o "$live/0-startup" --reset
client "SET alpha 1" "SET beta 2" "GET alpha" "GET gamma"
"$UCOV" pull --pid $kvd_pid -o "$live/1-set-get" --reset
client "DEL alpha" "KEYS" "STATS"
"$UCOV" pull --pid $kvd_pid -o "$live/2-del-keys-stats" --reset
echo "lines executed per function, per phase (the daemon never stopped):"
report "$live/1-set-get" set+get
report "$live/2-del-keys-stats" del+keys
kill $kvd_pid
wait $kvd_pid 2>/dev/null || true
trap - EXIT

echo
echo "== bare metal: the same core in a multiboot kernel under QEMU, pulled over a serial line"
bm=$root/$out/baremetal
rm -rf "$bm" && mkdir -p "$bm"
make -s -C examples/baremetal O="$bm/k" KCC=gcc
qemu-system-i386 -kernel "$bm/k/kernel.elf" -serial unix:"$bm/serial.sock",server=on,wait=off \
  -display none -monitor none -no-reboot -debugcon file:"$bm/console.txt" 2>"$bm/qemu.log" &
qemu_pid=$!
trap 'kill $qemu_pid 2>/dev/null' EXIT
for _ in $(seq 400); do grep -q serving "$bm/console.txt" 2>/dev/null && break; sleep 0.05; done
S=$bm/serial.sock
echo "kernel> parse 6*(3+4)   -> $("$UCOV" exec --serial "$S" -- 'parse 6*(3+4)')"
"$UCOV" ls --serial "$S"
"$UCOV" pull --serial "$S" -o "$bm/pulled"
(cd "$bm/pulled/gcov$bm/k" && gcov -t parser.gcda 2>/dev/null) |
  grep -E '^ +[0-9#]+: +[0-9]+:(static long|int) [a-z_]+\(' | sed 's/^/  gcov: /'
echo "KCOV trace of 'parse 6*(3+4)' in the kernel's command task, by function:"
"$UCOV" trace --serial "$S" -o "$bm/trace" -- 'parse 6*(3+4)' >"$bm/trace.pcs" 2>/dev/null
"$UCOV" symbolize --modules "$bm/trace/modules" "$bm/trace.pcs" |
  awk '{sub(/\+.*/, "", $2); n[$2]++} END {for (f in n) printf "  %5d %s\n", n[f], f}' | sort -rn
echo "after 'sched 12', the worker task's own KCOV device (kcov/3.kcov), by function:"
"$UCOV" exec --serial "$S" -- sched 12
"$UCOV" pull --serial "$S" -o "$bm/tasks" kcov/3.kcov 2>/dev/null
python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); n=struct.unpack_from("<Q",d)[0]
print("\n".join(hex(x) for x in struct.unpack_from("<%dQ" % n, d, 8)))' "$bm/tasks/kcov/3.kcov" |
  "$UCOV" symbolize --modules "$bm/trace/modules" |
  awk '{sub(/\+.*/, "", $2); n[$2]++} END {for (f in n) printf "  %5d %s\n", n[f], f}' | sort -rn
kill $qemu_pid
wait $qemu_pid 2>/dev/null || true
trap - EXIT

echo
echo "== Linux: ucov.ko in Debian's stock kernel (no CONFIG_KCOV, no CONFIG_GCOV_KERNEL) under QEMU"
if [ "$(uname -m)" = x86_64 ] && command -v qemu-system-x86_64 >/dev/null &&
  compgen -G '/usr/src/linux-headers-*-amd64/Module.symvers' >/dev/null; then
  lx=$root/$out/linux
  echo "(building ucov.ko and the demo module, booting the kernel of the installed headers...)"
  UCOV_STRESS_SECONDS=3 UCOV_FUZZ_SECONDS=3 bash tests/kernel/linux.sh "$UCOV" "$root" "$lx" >"$root/$out/linux.log" 2>&1 ||
    true
  tail -1 "$root/$out/linux.log"
  echo "kcov.rst's first program, its traced call a read of /dev/ucov-demo: PCs by function"
  xargs addr2line -f -j .text -e "$lx/tree/examples/linux-module/ucov_demo.ko" <"$lx/offsets.txt" |
    awk 'NR % 2 == 1' | sort | uniq -c | sort -rn | sed 's/^/  /'
  echo "its second program (KCOV_TRACE_CMP): the parser's comparisons with constants"
  grep ' const' "$lx/cmps.txt" | head -6 | sed 's/^/  /'
  echo "REMOTE sections, 100 per context, each around one call (kcov.c records all but hardirq):"
  sed -n 's/^ctx \([a-z]*\) \([0-9]*\) .*/  \1: \2 records/p' "$lx/ctx.txt"
  echo "gcov.rst's gather_on_test.sh, then lcov's kernel mode over the guest's gcov directory:"
  awk -F'[:,]' '/^SF:/ {f = $2; sub(/.*\//, "", f); n = h = 0} /^DA:/ {n++; h += $3 > 0}
    /^end_of_record/ {printf "  %-14s %3d of %3d lines run\n", f, h, n}' "$lx/k.info"
  echo "the host's ucov ls --serial, through ucov relay and /dev/ucov in the guest:"
  sed 's/^/  /' "$lx/relay-ls.txt"
else
  echo "(skipped: needs x86_64, qemu-system-x86_64 and linux-headers-*-amd64; scripts/deps.sh installs them)"
fi

echo
echo "demo output is in $out"
