#!/usr/bin/env bash
# The DWARF symbolizer against addr2line and llvm-symbolizer on every
# trace-pc call site of the demo parser built with gcc and clang, -O0 and
# -O2, DWARF 4 and 5: the call sites are the ones objdump shows; the inline
# chains equal `addr2line -f -i` (on DWARF 5, binutils 2.40 misreads some file
# indexes and inline ranges: there ucov must agree with llvm-symbolizer, and
# differ from addr2line only where llvm-symbolizer does too). Missing debug
# info, split DWARF and non-ELF input give clear messages.
# Usage: symbolizer.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
D=$SRC/examples/demo
SYM=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || command -v llvm-symbolizer-16 || true)
command -v addr2line >/dev/null && command -v objdump >/dev/null || {
  echo "skip: binutils missing"
  exit 0
}
for cc in gcc clang; do
  for o in O0 O2; do
    for dw in 4 5; do
      b=p_${cc}_${o}_$dw
      # (Compiled without the sanitizers, whose synthetic code is not what is
      # tested; linked with them, as the runtime of a sanitizer build needs.)
      CC=$cc "$UCOV" cc --trace -gdwarf-$dw -$o -I"$D" -c "$D/httpreq.c" -o $b-1.o &&
        CC=$cc "$UCOV" cc --trace -gdwarf-$dw -$o -c "$SRC/tests/integration/gcov_main.c" -o $b-2.o &&
        CC=$cc "$UCOV" cc --trace "${SANFLAGS[@]}" $b-1.o $b-2.o -o $b || {
        fail "$b: build"
        continue
      }
      "$UCOV" symbolize --call-sites --binary $b >$b.sites
      objdump -d $b | grep -E '(call|j[a-z]+) +[0-9a-f]+ <__sanitizer_cov_trace_pc(@plt)?>$' |
        awk '{sub(":", "", $1); print "0x" $1}' >$b.objdump
      [ -s $b.sites ] && cmp -s <(sort $b.sites) <(sort $b.objdump) && pass "$b: call sites" ||
        fail "$b: call sites ($(wc -l <$b.sites)) are objdump's ($(wc -l <$b.objdump))"
      "$UCOV" symbolize --addr2line --binary $b $b.sites >$b.ucov
      xargs addr2line -f -i -e "$b" <"$b.sites" | sed 's/ (discriminator [0-9]*)//' >$b.a2l
      if [ $dw = 4 ]; then
        cmp -s $b.ucov $b.a2l && pass "$b: equals addr2line -f -i" || fail "$b: equals addr2line -f -i: $(diff $b.ucov $b.a2l | head -4)"
        continue
      fi
      [ -n "$SYM" ] || {
        echo "skip $b: llvm-symbolizer missing"
        continue
      }
      # Per site: ucov must equal addr2line, or else llvm-symbolizer where that
      # disagrees with addr2line too. (One run of each tool; address 0 between
      # sites separates their answers.)
      awk '{print; print "0x0"}' $b.sites >$b.split
      "$UCOV" symbolize --addr2line --binary $b $b.split >$b.u2
      xargs addr2line -f -i -e "$b" <"$b.split" | sed 's/ (discriminator [0-9]*)//' >$b.a2
      xargs "$SYM" --obj="$b" -i --functions=short <"$b.split" | sed '/^$/d; s/:[0-9]*$//; s/:0$/:?/' >$b.l2
      read -r bad odd < <(python3 - $b.u2 $b.a2 $b.l2 <<'PY'
import sys
def sites(path):
    out, cur = [], []
    lines = open(path).read().split("\n")
    i = 0
    while i + 1 < len(lines):
        pair = lines[i:i + 2]
        i += 2
        if pair in (["??", "??:0"], ["??", "??:?"]):
            out.append(cur)
            cur = []
        else:
            cur.append(tuple(pair))
    return out
u, a, l = (sites(p) for p in sys.argv[1:4])
bad = odd = 0
for x, y, z in zip(u, a, l):
    if x == y:
        continue
    if x == z and z != y:
        odd += 1
    else:
        bad += 1
bad += abs(len(u) - len(a)) + abs(len(u) - len(l))
print(bad, odd)
PY
      )
      [ "$bad" = 0 ] && pass "$b: every site agrees with addr2line or llvm-symbolizer" || fail "$b: $bad sites differ from both addr2line and llvm-symbolizer"
      echo "$b: $(wc -l <$b.sites) sites, $odd where addr2line alone differs"
    done
  done
done
# --lines: a trace PC (a return address) is looked up at pc-1.
b=p_gcc_O0_5
site=$(head -1 $b.sites)
ret=$(printf '0x%x' $((site + 5)))
"$UCOV" symbolize --lines --binary $b <<<"$ret" >lines.txt
want=$("$UCOV" symbolize --addr2line --binary $b <<<"$site" | sed -n 2p)
grep -q "^$ret ${want}:[0-9]* " lines.txt && pass "--lines" || fail "--lines: $(cat lines.txt) (want $want)"
# No debug info, split DWARF without its .dwo, not ELF.
printf '#include "httpreq.h"\nint main(int c, char **v) { (void)c; struct http_request r;\n  return http_parse(v[0], 1, &r) != 0; }\n' >small.c
gcc -O0 -I"$D" "$D/httpreq.c" small.c -o nodebug
"$UCOV" symbolize --lines --binary nodebug <<<0x1000 >nd.out 2>nd.err
grep -q 'no DWARF debug info' nd.err && grep -q '??' nd.out && pass "no debug info is said" || fail "no debug info: $(cat nd.err)"
mkdir -p split && (cd split && gcc -g -gsplit-dwarf -O0 -I"$D" -c "$D/httpreq.c" -o h.o &&
  gcc h.o ../small.c -I"$D" -o prog && rm -f ./*.dwo)
"$UCOV" symbolize --lines --binary split/prog <<<0x1000 >/dev/null 2>split.err
grep -q 'split DWARF' split.err && pass "split DWARF without .dwo" || fail "split DWARF without .dwo: $(cat split.err)"
# A unit's line table ending on a row at its end-of-sequence address (a row
# of no byte): the code linked after it, without debug info, has no line.
L=$SRC/tests/e2e/lines
gcc -c "$L/endrow.s" -o endrow.o && gcc -O1 -c "$L/nolines.c" -o nolines.o &&
  gcc endrow.o nolines.o -o endrow
a=$(nm endrow | awk '/ no_lines$/{print "0x" $1}') w=$(nm endrow | awk '/ with_lines$/{print "0x" $1}')
printf '%s\n%s\n%x\n' "$a" "$w" $((w + 4)) | "$UCOV" symbolize --addr2line --binary endrow >endrow.txt
[ "$(tr '\n' ' ' <endrow.txt)" = "no_lines ??:0 with_lines /src/endrow.c:10 with_lines /src/endrow.c:11 " ] &&
  pass "code after a line table's last row" || fail "code after a line table's last row: $(tr '\n' ' ' <endrow.txt)"
# gcc -O2 ends maybe()'s two paths with tail jumps to the hook: they are sites,
# and a traced PC returning from maybe() counts at the jump of the path taken.
CC=gcc "$UCOV" cc --trace -g -O2 -c "$L/tail.c" -o tail.o &&
  gcc -O1 -I"$SRC/include" -c "$L/tail_main.c" -o tail_main.o &&
  CC=gcc "$UCOV" cc --trace "${SANFLAGS[@]}" tail.o tail_main.o -o tailp || fail "tail: build"
objdump -d tailp | grep -E '(call|j[a-z]+) +[0-9a-f]+ <__sanitizer_cov_trace_pc>$' |
  awk '{sub(":", "", $1); print "0x" $1}' >tail.objdump
"$UCOV" symbolize --call-sites --binary tailp >tail.sites
grep -q jmp <(objdump -d tailp | grep -E 'jmp +[0-9a-f]+ <__sanitizer_cov_trace_pc>$') &&
  cmp -s tail.sites tail.objdump && pass "tail jumps are sites" ||
  fail "tail jumps are sites: $(tr '\n' ' ' <tail.sites) objdump: $(tr '\n' ' ' <tail.objdump)"
for arg in 1 5; do
  ./tailp tail$arg.mods $arg >tail$arg.pcs &&
    "$UCOV" report tail$arg.pcs --modules tail$arg.mods --lcov tail$arg.info 2>tail$arg.err
done
./tailp taili.mods 1 indirect >taili.pcs &&
  "$UCOV" report taili.pcs --modules taili.mods --lcov taili.info 2>taili.err
[ ! -s taili.err ] && grep -q '^DA:16,1$' taili.info && pass "a tail jump after an indirect call" ||
  fail "a tail jump after an indirect call: $(cat taili.err; grep '^DA' taili.info | tr '\n' ' ')"
[ ! -s tail1.err ] && grep -q '^DA:16,1$' tail1.info && grep -q '^DA:10,0$' tail1.info &&
  grep -q '^FNDA:1,maybe$' tail1.info && [ ! -s tail5.err ] && grep -q '^DA:16,1$' tail5.info &&
  grep -q '^DA:10,1$' tail5.info && pass "tail jumps counted" ||
  fail "tail jumps counted: $(cat tail1.err tail5.err; grep -h '^DA' tail1.info tail5.info | tr '\n' ' ')"
printf 'not elf' >junk
"$UCOV" symbolize --lines --binary junk <<<0x1000 >/dev/null 2>junk.err
grep -q 'not an ELF file' junk.err && pass "a file that is not ELF is refused" || fail "not ELF: $(cat junk.err)"
finish symbolizer
