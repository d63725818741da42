#!/usr/bin/env bash
# The ucov command end to end: ucov cc with gcc and clang on the demo target,
# trace in every mode, symbolize. Usage: cli.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
sanflags "$SAN"

# Usage and exit statuses.
"$UCOV" --help | grep -q 'ucov COMMAND' && pass "ucov --help" || fail "ucov --help"
"$UCOV" bogus 2>/dev/null; [ $? -eq 2 ] && pass "unknown command exits 2" || fail "unknown command exits 2"
"$UCOV" 2>/dev/null; [ $? -eq 2 ] && pass "no command exits 2" || fail "no command exits 2"
"$UCOV" cc --help | grep -q -- '--ext' && pass "ucov cc --help" || fail "ucov cc --help"
"$UCOV" symbolize --help | grep -q -- '--modules' && pass "ucov symbolize --help" || fail "ucov symbolize --help"
"$UCOV" symbolize 2>/dev/null </dev/null; [ $? -eq 2 ] && pass "symbolize without map exits 2" || fail "symbolize without map exits 2"
"$UCOV" symbolize --bogus 2>/dev/null </dev/null; [ $? -eq 2 ] && pass "bad option exits 2" || fail "bad option exits 2"
"$UCOV" symbolize --modules /nonexistent 2>/dev/null </dev/null; [ $? -eq 1 ] && pass "missing module map exits 1" ||
  fail "missing module map exits 1"
printf 'garbage\n' >bad.map
"$UCOV" symbolize --modules bad.map 2>err.txt </dev/null; [ $? -eq 1 ] && grep -q 'bad.map:1' err.txt &&
  pass "corrupt module map: clear error" || fail "corrupt module map: clear error"

# Invocations that do not link get no runtime; --version passes through.
printf 'int main(void) { return 0; }\n' >m.c
CC=gcc "$UCOV" cc --version | grep -q 'gcc' && pass "--version passes through" || fail "--version passes through"
for mode in -E -S -c -M; do
  CC=gcc "$UCOV" cc -v $mode m.c -o m.out 2>cmd.txt >/dev/null
  ! grep -q 'libucov.a' cmd.txt && pass "ucov cc $mode links no runtime" || fail "ucov cc $mode links no runtime"
done
CC="gcc -m64" "$UCOV" cc -v "${SANFLAGS[@]}" m.c -o m 2>cmd.txt && grep -q '^gcc -m64 .*libucov.a' cmd.txt && ./m &&
  pass "CC with arguments, linking adds the runtime" || fail "CC with arguments, linking adds the runtime"
# --show-command: the one command ucov runs, not the compiler's -v output
CC=gcc "$UCOV" cc --show-command -c m.c -o m.o 2>show.txt && [ "$(wc -l <show.txt)" = 1 ] &&
  grep -q '^gcc .*-fsanitize-coverage=trace-pc,trace-cmp' show.txt && ! grep -q 'COLLECT_GCC' show.txt &&
  pass "--show-command prints the command alone" || fail "--show-command: $(head -3 show.txt)"

REQ='GET /index.html HTTP/1.1\r\nHost: example\r\nX-Ucov-Magic: 0xdeadbeef\r\nContent-Length: 0\r\n\r\n'
for cc in gcc clang; do
  command -v "$cc" >/dev/null || { echo "skip $cc: not installed"; continue; }
  mkdir -p "$cc" && cd "$cc" || exit 1
  # -v prints the exact command, with the instrumentation flags for the mode.
  CC=$cc "$UCOV" cc -v -O1 -fno-inline -g "${SANFLAGS[@]}" -c "$SRC/examples/demo/httpreq.c" -o httpreq.o 2>cmd.txt
  expect "$cc: ucov cc compiles" test -s httpreq.o
  expect "$cc: -v prints the command" grep -q "^$cc .*-fsanitize-coverage=trace-pc,trace-cmp" cmd.txt
  CC=$cc "$UCOV" cc --ext -v -O1 -c "$SRC/examples/demo/httpreq.c" -o ext.o 2>cmd.txt
  expect "$cc: --ext adds -finstrument-functions" grep -q -- '-finstrument-functions' cmd.txt
  expect "$cc: --ext object calls the entry hook" sh -c "nm ext.o | grep -q 'U __cyg_profile_func_enter'"
  expect "$cc: object calls trace_pc" sh -c "nm httpreq.o | grep -q 'U __sanitizer_cov_trace_pc$'"
  expect "$cc: object calls trace_cmp" sh -c "nm httpreq.o | grep -q 'U __sanitizer_cov_trace_const_cmp'"
  # The driver is built plainly; ucov cc links the runtime.
  $cc -O1 -g "${SANFLAGS[@]}" -I"$SRC/include" -c "$SRC/examples/demo/trace_one.c" -o trace_one.o
  CC=$cc "$UCOV" cc "${SANFLAGS[@]}" trace_one.o httpreq.o -o trace_one
  expect "$cc: ucov cc links" test -x trace_one
  # CC="ucov cc" in the environment does not make ucov call itself.
  CC="$UCOV cc" UCOV_CC=$cc "$UCOV" cc "${SANFLAGS[@]}" trace_one.o httpreq.o -o t2 &&
    CC="$UCOV cc" "$UCOV" cc --help >/dev/null && pass "$cc: CC=ucov does not recurse" || fail "$cc: CC=ucov does not recurse"

  ./trace_one --mode pc --modules mods.txt "$REQ" >pcs.txt 2>run.txt
  expect "$cc: parse ok with magic" grep -q 'http_parse: ok (magic!)' run.txt
  "$UCOV" symbolize --modules mods.txt pcs.txt >sym.txt
  for f in http_parse parse_method parse_target parse_version parse_headers apply_header parse_hex32; do
    expect "$cc: pc trace has $f" grep -q " $f+0x" sym.txt
  done
  expect "$cc: only the parser's code" sh -c "! grep -qE ' (main|unescape)\\+| \\?\\? ' sym.txt"
  expect "$cc: module named" grep -q '\[trace_one\]' sym.txt

  ./trace_one --mode cmp --modules mods.txt "$REQ" >cmp.txt 2>/dev/null
  "$UCOV" symbolize --modules mods.txt cmp.txt >cmpsym.txt
  expect "$cc: cmp sees the magic constant" grep -q ' apply_header+0x[0-9a-f]* \[trace_one\] cmp32 const 0xdeadbeef 0xdeadbeef' cmpsym.txt
  ./trace_one --mode ext --modules mods.txt "$REQ" >ext.txt 2>/dev/null
  "$UCOV" symbolize --modules mods.txt ext.txt >extsym.txt
  cd .. || exit 1
done

# --ext: entry/exit records when the parser is built with --ext.
for cc in gcc clang; do
  command -v "$cc" >/dev/null || continue
  cd "$cc" || exit 1
  CC=$cc "$UCOV" cc --ext -O1 -fno-inline "${SANFLAGS[@]}" -c "$SRC/examples/demo/httpreq.c" -o httpreq_ext.o
  CC=$cc "$UCOV" cc "${SANFLAGS[@]}" trace_one.o httpreq_ext.o -o trace_ext
  ./trace_ext --mode ext --modules mods_ext.txt "$REQ" >ext.txt 2>/dev/null
  "$UCOV" symbolize --modules mods_ext.txt ext.txt >extsym.txt
  expect "$cc: ext entry of http_parse" grep -q ' http_parse+0x[0-9a-f]* \[trace_ext\] entry' extsym.txt
  expect "$cc: ext exit of http_parse" grep -q ' http_parse+0x[0-9a-f]* \[trace_ext\] exit' extsym.txt
  n_entry=$(grep -c ' entry$' ext.txt); n_exit=$(grep -c ' exit$' ext.txt)
  [ "$n_entry" -gt 3 ] && [ "$n_entry" -eq "$n_exit" ] && pass "$cc: entries ($n_entry) balance exits ($n_exit)" || fail "$cc: entries ($n_entry) balance exits ($n_exit)"
  cd .. || exit 1
done

finish e2e
