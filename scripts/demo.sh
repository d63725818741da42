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
CC=${CC:-gcc} "$UCOV" cc --trace -v -O1 -fno-inline -g -c examples/demo/httpreq.c -o "$out/httpreq.o"
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
echo "demo output is in $out"
