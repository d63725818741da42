#!/usr/bin/env bash
# The .gcda files a program merges into at exit are input from anyone: junk,
# links to devices, hostile lengths and counters, a full disk. The program
# keeps its old data safe, says what is wrong, and never hangs or aborts.
# Usage: exitfiles.sh UCOV SRCDIR WORKDIR [SANITIZE]
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
CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" p.c -o p || exit 1
ms() { date +%s%3N; }
./p && cp p.gcda good.gcda

# 1 GiB of junk: refused from its first word, at once, and left as it was.
head -c 4096 /dev/urandom >p.gcda && truncate -s 1G p.gcda
t0=$(ms)
./p 2>err.txt
st=$?
t1=$(ms)
[ $st -eq 0 ] && [ $((t1 - t0)) -lt 1000 ] && grep -q 'not a gcov data file' err.txt &&
  [ "$(stat -c %s p.gcda)" = 1073741824 ] && pass "a 1 GiB junk .gcda is refused at once" ||
  fail "a 1 GiB junk .gcda is refused at once ($((t1 - t0)) ms, status $st: $(cat err.txt))"
# A 1 GiB file that starts like a .gcda: refused by its size, not read.
{ head -c 16 good.gcda; } >p.gcda && truncate -s 1G p.gcda
t0=$(ms)
./p 2>err.txt
t1=$(ms)
[ $((t1 - t0)) -lt 1000 ] && grep -q 'larger than any .gcda' err.txt && pass "a huge file with a .gcda header is not read" ||
  fail "a huge file with a .gcda header is not read ($((t1 - t0)) ms: $(cat err.txt))"
# A link (here to /dev/zero, which never ends: a link is never followed) or
# a FIFO: not a regular file.
rm -f p.gcda && ln -s /dev/zero p.gcda
timeout 5 ./p 2>err.txt
st=$?
[ $st -eq 0 ] && grep -q 'a link: left alone' err.txt && [ -L p.gcda ] && pass "a link to /dev/zero is refused (status $st" ||
  fail "a link to /dev/zero is refused (status $st: $(cat err.txt))"
rm -f p.gcda && mkfifo p.gcda
timeout 5 ./p 2>err.txt
st=$?
[ $st -eq 0 ] && grep -q 'not a regular file' err.txt && pass "a FIFO is refused (status $st)" || fail "a FIFO is refused (status $st)"
rm -f p.gcda

# Hostile lengths and counters: a counter record of length 0x80000000, and
# counters near INT64_MAX (saturated, no signed overflow under UBSan).
python3 - good.gcda <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, recs = 16, []
while off + 8 <= len(b):
    tag, length = struct.unpack_from("<Ii", b, off)
    if tag == 0:
        break
    recs.append((off, tag, length))
    off += 8 + max(length, 0)
arcs = [r for r in recs if r[1] == 0x01A10000]
neg = bytearray(b)
struct.pack_into("<I", neg, arcs[0][0] + 4, 0x80000000)
open("neg.gcda", "wb").write(neg)
big = bytearray(b)
for o, t, n in arcs:
    for i in range(n // 8):
        struct.pack_into("<q", big, o + 8 + 8 * i, 0x7FFFFFFFFFFFFFFF)
open("big.gcda", "wb").write(big)
PY
cp neg.gcda p.gcda
./p 2>err.txt
st=$?
[ $st -eq 0 ] && grep -q 'merge mismatch' err.txt && cmp -s p.gcda neg.gcda && pass "a counter length of 0x80000000 is refused, the file left alone (status $st" ||
  fail "a counter length of 0x80000000 is refused, the file left alone (status $st: $(cat err.txt))"
cp big.gcda p.gcda
./p 2>err.txt
st=$?
# Every arc this run took stays at INT64_MAX (saturated), none wrapped negative.
python3 - p.gcda <<'PY' && [ $st -eq 0 ] && pass "counters near INT64_MAX saturate" ||
import struct, sys
b = open(sys.argv[1], "rb").read()
off, vals = 16, []
while off + 8 <= len(b):
    tag, length = struct.unpack_from("<Ii", b, off)
    if tag == 0:
        break
    if tag == 0x01A10000 and length > 0:
        vals += struct.unpack_from("<%dq" % (length // 8), b, off + 8)
    off += 8 + max(length, 0)
sys.exit(0 if vals and all(v == 0x7FFFFFFFFFFFFFFF for v in vals) else 1)
PY
  fail "counters near INT64_MAX saturate (status $st: $(cat err.txt))"

# A full disk: the old file survives a rewrite that cannot be written.
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
  mkdir -p full
  unshare -m --propagation private bash -c "
    mount -t tmpfs -o size=16k tmpfs full && cp good.gcda full/p.gcda &&
    head -c 12288 /dev/zero >full/fill 2>/dev/null; head -c 4096 /dev/zero >>full/fill 2>/dev/null
    GCOV_PREFIX=$WORK/full GCOV_PREFIX_STRIP=99 ./p 2>'$WORK/full.err'
    cmp -s full/p.gcda good.gcda && echo same >'$WORK/full.cmp'"
  [ -f full.cmp ] && grep -q 'No space left' full.err && pass "a full disk keeps the old .gcda" ||
    fail "a full disk keeps the old .gcda ($(cat full.err))"
  # The same for an LLVM profile pool (%m), which every run merges into.
  if command -v clang >/dev/null; then
    CC=clang "$UCOV" cc --pgo -O0 "${SANFLAGS[@]}" p.c -o pp &&
      LLVM_PROFILE_FILE=$WORK/pool-%m.profraw ./pp && cp pool-*.profraw pool.good
    pool=$(basename pool-*.profraw)
    mkdir -p fullp
    unshare -m --propagation private bash -c "
      mount -t tmpfs -o size=16k tmpfs fullp && cp pool.good fullp/$pool &&
      head -c 16384 /dev/zero >fullp/fill 2>/dev/null
      LLVM_PROFILE_FILE=$WORK/fullp/pool-%m.profraw ./pp 2>'$WORK/fullp.err'
      [ \$(ls fullp | wc -l) = 2 ] && cmp -s fullp/$pool pool.good && echo same >'$WORK/fullp.cmp'"
    [ -s pool.good ] && [ -f fullp.cmp ] && grep -q 'No space left' fullp.err && pass "a full disk keeps the old profile pool" ||
      fail "a full disk keeps the old profile pool ($(cat fullp.err))"
  fi
else
  echo "full-disk check skipped: needs root and unshare -m"
fi

# profile_dirs_created: a GCOV_PREFIX or an LLVM_PROFILE_FILE naming
# directories nobody made gets them, as libgcov and compiler-rt make them;
# the profile is there and the real tools read it.
GCOV_PREFIX=$WORK/gp/a/b GCOV_PREFIX_STRIP=99 ./p 2>gp.err
[ -s gp/a/b/p.gcda ] && gcov-dump gp/a/b/p.gcda >/dev/null 2>&1 && pass "GCOV_PREFIX's missing directories are made" ||
  fail "GCOV_PREFIX's missing directories are made ($(cat gp.err))"
if command -v clang >/dev/null; then
  [ -x pp ] || CC=clang "$UCOV" cc --pgo -O0 "${SANFLAGS[@]}" p.c -o pp
  profdata=$(command -v llvm-profdata || command -v llvm-profdata-14 || command -v llvm-profdata-16 ||
    command -v llvm-profdata-19)
  for pattern in "lp/one/two/p.profraw" "lp/%p/p-%p.profraw" "lpm/x/y/pool-%m.profraw"; do
    rm -rf lp lpm
    LLVM_PROFILE_FILE=$WORK/$pattern ./pp 2>lp.err
    f=$(find lp lpm -name '*.profraw' 2>/dev/null | head -1)
    [ -n "$f" ] && [ -s "$f" ] && "$profdata" show "$f" >/dev/null 2>&1 &&
      pass "LLVM_PROFILE_FILE=$pattern: its directories are made" ||
      fail "LLVM_PROFILE_FILE=$pattern: its directories are made (${f:-no profile}: $(cat lp.err))"
  done
fi

finish exitfiles
