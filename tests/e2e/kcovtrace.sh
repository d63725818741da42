#!/usr/bin/env bash
# exec keeps tracing, as a Linux task keeps its kcov: a kcovtrace-style tracer
# (plain C under the shim) forks, the child ENABLEs and execs a program built
# by ucov cc, and the PCs the new program records from its first constructor
# land in the tracer's buffer: those of its work equal a direct trace of it.
# Usage: kcovtrace.sh UCOV SRCDIR WORKDIR SHIM [SANITIZE [CC]]
# (Sanitizer builds compile with CC, the runtime's compiler: one sanitizer
# runtime per process.)
set -u
UCOV=$1 SRC=$2 WORK=$3 SHIM=$4 SAN=${5:-} RTCC=${6:-gcc}
[ -n "$SAN" ] || RTCC=gcc
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
"$RTCC" -O1 "${SANFLAGS[@]}" "$SRC/tests/e2e/kcovtrace.c" -o kcovtrace || exit 1
CC=$RTCC "$UCOV" cc --trace -O1 -no-pie "${SANFLAGS[@]}" -I"$SRC/include" "$SRC/tests/e2e/traced.c" \
  -o traced || exit 1
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
LD_PRELOAD=$SHIM ./kcovtrace ./traced >exec.txt 2>err.txt && [ -s exec.txt ] && pass ||
  fail "the exec'd program traced into the tracer's buffer ($(cat err.txt))"
DIRECT=1 ./traced >direct.txt
read -r addr size < <(nm -S traced | awk '$4 == "work" { print $1, $2 }')
inwork() { python3 -c 'import sys
lo, n = int(sys.argv[1], 16), int(sys.argv[2], 16)
print("\n".join(sorted({l.strip() for l in open(sys.argv[3]) if lo <= int(l, 16) < lo + n})))' \
  "$addr" "$size" "$1"; }
[ -n "$addr" ] && [ -n "$(inwork direct.txt)" ] && [ "$(inwork exec.txt)" = "$(inwork direct.txt)" ] &&
  pass || fail "the work's PCs equal a direct trace ($(inwork exec.txt | wc -l) vs $(inwork direct.txt | wc -l))"
main_pcs=$(nm -S traced | awk '$4 == "main" { print $1, $2 }')
read -r maddr msize <<<"$main_pcs"
[ -n "$(python3 -c 'import sys
lo, n = int(sys.argv[1], 16), int(sys.argv[2], 16)
print("\n".join(l for l in open(sys.argv[3]) if lo <= int(l, 16) < lo + n))' "$maddr" "$msize" exec.txt)" ] &&
  pass || fail "main's first block is in the trace"

finish kcovtrace
