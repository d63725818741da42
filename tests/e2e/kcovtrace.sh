#!/usr/bin/env bash
# exec keeps tracing, as a Linux task keeps its kcov: a kcovtrace-style tracer
# (plain C under the shim) forks, the child ENABLEs and execs a traced program,
# and the PCs the new program records from its first constructor land in the
# tracer's buffer: those of its work equal a direct trace of it. The program is
# built twice: by ucov cc (its own runtime), and plainly by the compiler with
# -fsanitize-coverage=trace-pc against libucov.so (the one beside the shim);
# and by ucov cc --dormant, whose sites the adopted device makes live.
# Usage: kcovtrace.sh UCOV SRCDIR WORKDIR SHIM [SANITIZE [CC]]
# (Sanitizer builds compile with CC, the runtime's compiler: one sanitizer
# runtime per process.)
set -u
UCOV=$1 SRC=$2 WORK=$3 SHIM=$4 SAN=${5:-} RTCC=${6:-gcc}
[ -n "$SAN" ] || RTCC=gcc
. "$SRC/tests/lib.sh"
sanflags "$SAN"
LIBDIR=$(cd "$(dirname "$SHIM")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
"$RTCC" -O1 "${SANFLAGS[@]}" "$SRC/tests/e2e/kcovtrace.c" -o kcovtrace || exit 1
CC=$RTCC "$UCOV" cc --trace -O1 -no-pie "${SANFLAGS[@]}" -I"$SRC/include" "$SRC/tests/e2e/traced.c" \
  -o traced || exit 1
# ... and dormant (ucov cc --dormant): the adopted device makes its sites live
CC=$RTCC "$UCOV" cc --trace --dormant -O1 -no-pie "${SANFLAGS[@]}" -I"$SRC/include" \
  "$SRC/tests/e2e/traced.c" -o dormant || exit 1
"$RTCC" -O1 -no-pie -fsanitize-coverage=trace-pc "${SANFLAGS[@]}" -I"$SRC/include" \
  "$SRC/tests/e2e/traced.c" -o plain -L"$LIBDIR" -lucov -Wl,-rpath,"$LIBDIR" || exit 1
readelf -d plain | grep -q 'NEEDED.*libucov\.so' || fail "plain links libucov.so"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"

# fn_pcs PROG FUNC FILE: the PCs of FILE inside PROG's function FUNC (or its
# twin, FUNC.ucov_twin..., in a dormant build with twins), sorted
fn_pcs() {
  local ranges
  ranges=$(nm -S "$1" | awk -v f="$2" '$4 == f || index($4, f ".ucov_twin") == 1 { print $1 ":" $2 }')
  [ -n "$ranges" ] || return 0
  python3 -c 'import sys
rs = [(int(a, 16), int(a, 16) + int(n, 16)) for a, n in (r.split(":") for r in sys.argv[1].split())]
print("\n".join(sorted({l.strip() for l in open(sys.argv[2])
                        if any(lo <= int(l, 16) < hi for lo, hi in rs)})))' "$ranges" "$3"
}

for prog in traced dormant plain; do
  LD_PRELOAD=$SHIM ./kcovtrace ./$prog >$prog.exec.txt 2>$prog.err && [ -s $prog.exec.txt ] && pass "$prog: the exec'd program traced into the tracer's buffer" ||
    fail "$prog: the exec'd program traced into the tracer's buffer ($(cat $prog.err))"
  DIRECT=1 ./$prog >$prog.direct.txt
  direct=$(fn_pcs $prog work $prog.direct.txt)
  [ -n "$direct" ] && [ "$(fn_pcs $prog work $prog.exec.txt)" = "$direct" ] && pass "$prog: the work's PCs equal a direct trace" ||
    fail "$prog: the work's PCs equal a direct trace" \
      "($(fn_pcs $prog work $prog.exec.txt | wc -l) vs $(echo -n "$direct" | grep -c .))"
  [ -n "$(fn_pcs $prog main $prog.exec.txt)" ] && pass "$prog: main's first block is in the trace" || fail "$prog: main's first block is in the trace"
done

finish kcovtrace
