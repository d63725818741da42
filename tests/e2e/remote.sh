#!/usr/bin/env bash
# REMOTE coverage across processes: examples/remote's threaded server and its
# clients. Each client gets exactly the coverage of its own requests; a taken
# handle is refused; a client killed mid-request leaves the server serving
# and its handle free. Usage: remote.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
CC=gcc "$UCOV" cc --trace -O1 -fno-inline -g "${SANFLAGS[@]}" -c "$SRC/examples/demo/httpreq.c" -o httpreq.o
gcc -O1 -g "${SANFLAGS[@]}" -I"$SRC/include" -c "$SRC/examples/remote/rserv.c" -o rserv.o
gcc -O1 -g "${SANFLAGS[@]}" -I"$SRC/include" -c "$SRC/examples/remote/rcli.c" -o rcli.o
CC=gcc "$UCOV" cc "${SANFLAGS[@]}" rserv.o httpreq.o -o rserv
CC=gcc "$UCOV" cc "${SANFLAGS[@]}" rcli.o -o rcli
wait_for() { for _ in $(seq 200); do [ -S "$1" ] && return 0; sleep 0.02; done; return 1; }

./rserv srv.sock &
srv=$!
wait_for srv.sock && wait_for "$UCOV_RUNTIME_DIR/$srv.sock" && pass "server and its control socket up" || fail "server and its control socket up"
GET='GET / HTTP/1.1\r\nHost: a\r\n\r\n'
CHUNKED='POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n'
./rcli $srv srv.sock 1 4 "$GET" >a.txt 2>a.err &
ca=$!
./rcli $srv srv.sock 2 4 "$CHUNKED" >b.txt 2>b.err &
cb=$!
wait $ca && wait $cb && pass "two clients, concurrent requests" || fail "two clients, concurrent requests"
"$UCOV" pull --pid $srv -o m modules 2>/dev/null
fns() { "$UCOV" symbolize --modules m/modules "$1" | awk '{ sub(/\+.*/, "", $2); print $2 }' | sort -u; }
fns a.txt >a.fns
fns b.txt >b.fns
grep -qx http_parse a.fns && grep -qx http_parse b.fns && pass "both clients got coverage" || fail "both clients got coverage"
! grep -qx parse_chunked a.fns && grep -qx parse_chunked b.fns && pass "each client got only its own requests' coverage" ||
  fail "each client got only its own requests' coverage"
! grep -qvE '^(http_parse|parse_[a-z_]+|apply_header|at_end|is_tchar|name_is|lower|parse_u64|parse_hex32)$' a.fns &&
  pass "only the parser's PCs (the sections), nothing of the server loop" || fail "only the parser's PCs (the sections), nothing of the server loop"
# The same requests again give the same number of PCs: sections are whole.
./rcli $srv srv.sock 1 4 "$GET" >a2.txt 2>/dev/null
[ "$(wc -l <a.txt)" -eq "$(wc -l <a2.txt)" ] && [ -s a.txt ] && pass "sections are exact and repeatable" || fail "sections are exact and repeatable"

# A handle held by a live client is refused (EEXIST); a client killed
# mid-request frees it and the server keeps serving.
./rcli $srv srv.sock 3 1 'SLOW /x HTTP/1.1\r\n\r\n' >/dev/null 2>&1 &
slow=$!
sleep 0.2
./rcli $srv srv.sock 3 1 "$GET" >/dev/null 2>dup.err
st=$?
[ $st -eq 3 ] && grep -q 'File exists' dup.err && pass "a taken handle: EEXIST (status $st)" || fail "a taken handle: EEXIST (status $st)"
kill -9 $slow
wait $slow 2>/dev/null
sleep 0.7
kill -0 $srv && "$UCOV" ls --pid $srv >/dev/null && pass "server survives a client killed mid-request" || fail "server survives a client killed mid-request"
./rcli $srv srv.sock 3 2 "$GET" >c.txt 2>/dev/null && [ -s c.txt ] && pass "the killed client's handle is free again" ||
  fail "the killed client's handle is free again"
# remote_buffer_shrunk_midway: a client that shrinks and seals its memfd
# while the target looks at it never kills the target. strace holds the
# target 0.2 s after its every fstat, and the client shrinks and seals its
# buffer meanwhile: read size-then-seals, the target mapped 1 MiB of a
# 16-byte file and died of SIGBUS at its first write past the first page.
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then

  UCOV_RUNTIME_DIR=$WORK/rt2 strace -f -qq -o /dev/null -e trace=newfstatat,fstat \
    -e inject=newfstatat:delay_exit=200000 -e inject=fstat:delay_exit=200000 ./rserv srv2.sock &
  traced=$!
  for _ in $(seq 500); do compgen -G "rt2/*.sock" >/dev/null && [ -S srv2.sock ] && break; sleep 0.02; done
  sock=$(compgen -G "rt2/*.sock" | head -1)
  took=$(python3 "$SRC/tests/e2e/hostile.py" remote-race "$sock" srv2.sock 3 0.05)
  sleep 0.3
  kill -0 $traced 2>/dev/null && [ -S "$sock" ] && pass "remote_buffer_shrunk_midway: the target survives (took $took of 3)" ||
    fail "remote_buffer_shrunk_midway: the target survives (took $took of 3)"
  tpid=${sock##*/}
  kill "${tpid%.sock}" 2>/dev/null # (strace ends with its tracee)
  wait $traced 2>/dev/null
else
  echo "remote_buffer_shrunk_midway skipped: strace cannot trace here"
fi
kill $srv
wait $srv 2>/dev/null
finish remote
