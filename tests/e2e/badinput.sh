#!/usr/bin/env bash
# ucov report and symbolize on bad input: a gcov that hangs is killed after
# UCOV_TOOL_TIMEOUT with the input named, errors about a corrupt .gcda name the
# user's file (never a temporary path), a binary without symbols is no crash;
# a huge .gcda is read in bounded memory, a malformed one is an error.
# Usage: badinput.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_CONTROL=0
cat >p.c <<'C'
int f(int x) { return x > 2 ? x * 2 : x + 1; }
int main(int argc, char **argv) { (void)argv; return f(argc) == 99; }
C
gcc --coverage -O0 -c p.c -o p.o && gcc --coverage p.o -o p && ./p || exit 1
"$UCOV" report -q p.gcda --lcov ok.info && grep -q '^DA:1,1$' ok.info && pass "the good .gcda reads" ||
  fail "the good .gcda reads"

# A gcov that hangs: killed after UCOV_TOOL_TIMEOUT seconds, the input named.
printf '#!/bin/sh\nexec sleep 600\n' >hang && chmod +x hang # (relative: ucov resolves it)
start=$(date +%s)
UCOV_TOOL_TIMEOUT=2 timeout 60 "$UCOV" report -q p.gcda --gcov-tool ./hang --lcov h.info 2>err.txt
st=$?
took=$(($(date +%s) - start))
[ $st -eq 1 ] && [ $took -lt 10 ] && grep -q "ran longer than 2 s on p.gcda" err.txt && pass "a hanging gcov is killed (status $st after $took s" ||
  fail "a hanging gcov is killed (status $st after $took s: $(cat err.txt))"
pgrep -f 'sleep 600' >/dev/null && fail "the hung tool is left running" ||
  pass "the hung tool is not left running"
# A --gcov-tool that cannot run is said once, however many batches of .gcda
# (600 here: three batches), status 1.
mkdir -p many && for i in $(seq 600); do
  mkdir -p "many/$i" && cp p.gcda p.gcno "many/$i/"
done
"$UCOV" report -q many --gcov-tool /nonexistent/gcov >/dev/null 2>gt.err
[ $? = 1 ] && [ "$(grep -c 'cannot run /nonexistent/gcov' gt.err)" = 1 ] &&
  grep -q '600 .gcda not read' gt.err && pass "a --gcov-tool that cannot run" || fail "a --gcov-tool that cannot run: $(head -3 gt.err)"

# A corrupt .gcda: gcov's own complaint, naming the user's file.
mkdir -p bad && cp p.gcno bad/p.gcno &&
  python3 -c "b = open('p.gcda', 'rb').read(); open('bad/p.gcda', 'wb').write(b[:4] + bytes(4) + b[8:])"
"$UCOV" report -q bad/p.gcda --gcov-tool gcov --lcov b.info 2>err.txt
grep -q 'bad/p.gcda:version' err.txt && ! grep -q 'ucov-report' err.txt && pass "errors name the user's file, not a temporary one" ||
  fail "errors name the user's file, not a temporary one ($(cat err.txt))"
# The same .gcda read natively: refused, the user's file named.
"$UCOV" report -q bad/p.gcda --lcov b.info 2>err.txt
[ $? = 1 ] && grep -q 'bad/p.gcda: version mismatch' err.txt && pass "native: a .gcda of another version" ||
  fail "native: a .gcda of another version ($(cat err.txt))"
# A negative counter (no arc runs -16 times): refused as the corrupt file it
# is, never read as 0.
mkdir -p neg && cp p.gcno neg/p.gcno && python3 - <<'PY'
import struct
b = bytearray(open("p.gcda", "rb").read())
at = b.find(struct.pack("<I", 0x01A10000))
assert at > 0
struct.pack_into("<q", b, at + 8, -16)
open("neg/p.gcda", "wb").write(b)
PY
"$UCOV" report -q neg/p.gcda --lcov n.info 2>err.txt
[ $? = 1 ] && grep -q "neg/p.gcda.*negative counter -16 in 'main'\|neg/p.gcda.*negative counter -16 in 'f'" err.txt &&
  pass "a negative counter is an error" || fail "a negative counter is an error ($(cat err.txt))"
# The same in a Xen blob (xencov read): its records are read from a
# temporary tree, but the messages name the blob and the record.
python3 - "$WORK" <<'PY'
import struct, sys
w = sys.argv[1]
bad = open(w + "/bad/p.gcda", "rb").read()
good = open(w + "/p.gcda", "rb").read()
recs = [(w + "/p.gcda", bad), (w + "/nonotes/q.gcda", good)]
out = struct.pack("<I", 0x58434F56) + b"".join(n.encode() + b"\0" + struct.pack("<I", len(d)) + d for n, d in recs)
open(w + "/blob.xcov", "wb").write(out)
PY
"$UCOV" report -q blob.xcov --lcov x.info 2>err.txt
[ $? = 1 ] && grep -q "blob.xcov: record $WORK/p.gcda: version mismatch" err.txt &&
  grep -q "blob.xcov: record $WORK/nonotes/q.gcda: no .gcno" err.txt && ! grep -q 'ucov-xencov' err.txt &&
  pass "a Xen blob's bad records are named as such" || fail "a Xen blob's bad records are named as such ($(cat err.txt))"

# Binaries with nothing to sort: a stripped one (no symbol table, no line
# table), and a library with debug information but no function. No crash,
# and under UBSan no qsort of a NULL array.
cp p stripped && strip -s stripped
echo 'int x = 1;' >d.c && gcc -g -shared -nostdlib d.c -o d.so
for what in "stripped" "stripped --lines" "d.so --lines" "d.so"; do
  read -ra words <<<"$what"
  set -- "${words[@]}"
  echo 0x1000 | "$UCOV" symbolize --binary "$@" >sym.txt 2>err.txt
  st=$?
  [ $st -le 1 ] && grep -q '^0x1000 ' sym.txt && ! grep -q 'runtime error' err.txt && pass "symbolize $what (status $st" ||
    fail "symbolize $what (status $st: $(cat err.txt))"
done
echo 0x1000 >pcs.txt
"$UCOV" report -q pcs.txt --binary stripped --lcov s.info 2>err.txt
st=$?
[ $st -le 1 ] && ! grep -q 'runtime error' err.txt && pass "report a trace against a stripped binary (status $st" ||
  fail "report a trace against a stripped binary (status $st: $(cat err.txt))"

# A FIFO never blocks a report: given, it is refused; found in a tree (as a
# .gcda, a .gcno beside a .gcda, an .info), it is skipped, each with a message.
mkfifo given.info
timeout 20 "$UCOV" report -q given.info --lcov f.info 2>err.txt
st=$?
[ $st = 1 ] && grep -q 'given.info: not a regular file' err.txt && pass "report refuses a FIFO given as input (status $st" ||
  fail "report refuses a FIFO given as input (status $st: $(cat err.txt))"
timeout 20 "$UCOV" merge given.info ok.info -o m.info 2>err.txt
st=$?
[ $st = 1 ] && grep -q 'given.info: not a regular file' err.txt && pass "merge refuses a FIFO given as input (status $st" ||
  fail "merge refuses a FIFO given as input (status $st: $(cat err.txt))"
mkdir -p tree/sub && cp p.gcda p.gcno tree/ && mkfifo tree/sub/q.gcda tree/sub/t.info tree/sub/q.gcno
timeout 20 "$UCOV" report -q tree --lcov t.info 2>err.txt
st=$?
[ $st -ne 124 ] && grep -q 'tree/sub/q.gcda: not a regular file: skipped' err.txt &&
  grep -q 'tree/sub/t.info: not a regular file: skipped' err.txt && grep -q '^DA:1,1$' t.info &&
  pass "a tree's FIFOs are skipped, its files read (status $st" || fail "a tree's FIFOs are skipped, its files read (status $st: $(cat err.txt))"
# A notes file that is a FIFO beside a good .gcda: no hang, the unit named.
mkdir -p fifonotes && cp p.gcda fifonotes/ && mkfifo fifonotes/p.gcno
timeout 20 "$UCOV" report -q fifonotes/p.gcda --lcov n.info 2>err.txt
st=$?
[ $st = 1 ] && grep -q 'not a regular file' err.txt && pass "a FIFO for a .gcda's notes is an error, not a hang" ||
  fail "a FIFO for a .gcda's notes is an error, not a hang (status $st: $(cat err.txt))"

# Bounded input: a .gcda that ends in a 1 GiB record (a sparse file) is read
# record by record (under a 512 MiB address-space limit the report still
# reads it; not under a sanitizer), and a counter record that belongs to no
# function is an error.
mkdir -p big && cp p.gcno big/ && python3 - p.gcda big/p.gcda <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
assert struct.unpack_from("<I", b, len(b) - 4)[0] == 0  # the end marker goes
with open(sys.argv[2], "wb") as f:
    f.write(b[:-4] + struct.pack("<II", 0x01A50000, 1 << 30))
    f.truncate(len(b) - 4 + 8 + (1 << 30))
PY
limit=524288
[ -n "$SAN" ] && limit=unlimited # (a sanitizer's shadow memory is address space)
(ulimit -v $limit && "$UCOV" report -q big/p.gcda --lcov big.info 2>big.err) && grep -q '^DA:1,1$' big.info &&
  pass "a 1 GiB .gcda in bounded memory" || fail "a 1 GiB .gcda in bounded memory: $(cat big.err)"
mkdir -p orphan && cp p.gcno orphan/ && python3 - p.gcda orphan/p.gcda <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
# header (4 words), then OBJECT_SUMMARY (tag, length 8, 2 words): a counter
# record before any function record
at = 16 + 16
open(sys.argv[2], "wb").write(b[:at] + struct.pack("<IIq", 0x01A10000, 8, 5) + b[at:])
PY
"$UCOV" report -q orphan/p.gcda --lcov orphan.info 2>orphan.err
[ $? = 1 ] && grep -q 'orphan/p.gcda.*counter record before any function' orphan.err &&
  pass "a counter record of no function is an error" || fail "a counter record of no function: $(cat orphan.err)"
finish badinput
