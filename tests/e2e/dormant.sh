#!/usr/bin/env bash
# Dormant builds (ucov cc --dormant): the site table is exactly objdump's
# hook calls and tail jumps, each NOPed (a tail jump a ret) in the file; the
# traces of a dormant build, once a device is enabled, are those of a plain
# build in PC, CMP, EXT and UNIQUE modes; the sites are live between the
# first enable and the last disable and dormant outside (read in the running
# process's memory); 4 threads run the code while another enables and
# disables 1,000 times (nothing crashes, no record is lost), also with the
# program's own SIGTRAP handler (its own traps reach it, and only those) and
# with threads that trace for themselves, and with the site table replaced
# (the module registered again) 1,000 times; without membarrier's SYNC_CORE
# the enable is refused with a message; a shared library made live when
# loaded while tracing, and after a dlclose, and 70 of them; runs under gdb; ucov report
# finds the trace's lines through the table. With the twins plugins (gcc 12,
# clang 14, 16, 19) the table is checked against the dormant file itself (each plain
# entry a site jumping to its twin, every hook call outside the twins a site)
# and the traces by source line; without a plugin (a library directory
# without one) ucov cc says so and patches call by call.
# The stress runs twice: twins' entries, and every call and tail jump.
# gcov's and clang's profile counters count as without --dormant.
# Usage: dormant.sh UCOV SRCDIR WORKDIR [SANITIZE [CC]]
# (CC gcc: gcc's builds; clang: clang 14, 16 and 19's; sanitizer builds test
# only CC, the runtime's compiler.)
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-} RTCC=$(basename "${5:-gcc}")
[ "$RTCC" = cc ] && RTCC=gcc
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
export UCOV_RUNTIME_DIR=$WORK/rt
D=$SRC/examples/demo T=$SRC/tests/e2e/dormant
REQ='POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nHost: a\r\n\r\n1\r\na\r\n0\r\n\r\n'
BASE=0x555555554000 # a PIE's load address with ASLR off (setarch -R, gdb)

# pcs BINARY < trace: each record as its PC less the load address, then the
# rest of its line, into BINARY.pcs.
pcs() {
  python3 -c '
import sys
base = int(sys.argv[1], 16)
for line in sys.stdin:
    f = line.split(None, 1)
    print(hex(int(f[0], 16) - base), f[1].strip() if len(f) > 1 else "")' "$BASE" >"$1.pcs"
}

# symf BINARY < trace: each record's PC as function+offset in BINARY, the
# rest of its line kept (xray_trace.py's input).
symf() {
  pcs "$1"
  cut -d' ' -f1 "$1.pcs" | "$UCOV" symbolize --binary "$1" 2>/dev/null | sed 's/^0x[0-9a-f]* //; s/ \[.*\]$//' |
    paste -d' ' - <(cut -d' ' -f2- "$1.pcs")
}

# sym BINARY < trace: each record's PC as the source line, column and
# function in BINARY (with those it was inlined into), the function's name
# without the suffixes of gcc's and the twins plugin's versions of it (a
# twin, "f.ucov_twin.0", traces f's lines); then the rest of each record's
# line (CMP operands, EXT kinds): what two builds of the same code share.
sym() {
  pcs "$1"
  cut -d' ' -f1 "$1.pcs" | "$UCOV" symbolize --lines --binary "$1" 2>/dev/null |
    sed -E 's/^0x[0-9a-f]+ //; s/[.](ucov_twin|isra|constprop|part|cold)([.][0-9]+)?//g'
  cut -d' ' -s -f2- "$1.pcs" | cmp_pairs
}

# A comparison of two variables as an unordered pair: which comes first is
# gcc's choice by the numbers of their SSA names, which its copy of a body
# (a twin) numbers anew (seen under ASan). A constant comes second always.
cmp_pairs() {
  awk '$1 ~ /^cmp[0-9]+$/ && NF == 3 && $2 > $3 { t = $2; $2 = $3; $3 = t } { print }'
}

# The build's compiler family only (check.sh runs this under gcc and under
# clang: each covers its own); a sanitizer build its compiler alone.
compilers=(gcc)
[ "${RTCC#clang}" != "$RTCC" ] && compilers=(clang clang-16 clang-19)
[ -n "$SAN" ] && compilers=("$RTCC")
for cc in "${compilers[@]}"; do
  command -v "$cc" >/dev/null || continue
  mkdir -p "$cc" && cd "$cc" || exit 1
  # the demo's tracer, plain and dormant, at -O2 (gcc makes tail jumps there)
  CC=$cc "$UCOV" cc --trace -g -O2 "${SANFLAGS[@]}" -I"$D" "$D/trace_one.c" "$D/httpreq.c" \
    -o plain &&
    CC=$cc "$UCOV" cc --trace --dormant -v -g -O2 "${SANFLAGS[@]}" -I"$D" "$D/trace_one.c" \
      "$D/httpreq.c" -o dormant 2>cc.err || fail "$cc: builds: $(tail -2 cc.err)"
  grep -q 'sites (' cc.err && pass "$cc: -v says how many sites" || fail "$cc: -v says how many sites: $(tail -1 cc.err)"
  # twins: ucov builds a plugin for gcc 12 and for clang 14, 16 and 19
  grep -q ' [1-9][0-9]* twin entries)' cc.err && pass "$cc: twins" || fail "$cc: twins: $(grep -E 'sites \(|plugin' cc.err)"
  python3 "$SRC/tests/e2e/dormant_sites.py" plain dormant >sites.txt 2>&1 && pass "$cc: the table is objdump's sites" ||
    fail "$cc: the table is objdump's sites: $(head -5 sites.txt)"
  for mode in pc cmp ext unique; do
    setarch -R ./plain --mode $mode "$REQ" 2>/dev/null | sym plain >"p.$mode"
    setarch -R ./dormant --mode $mode "$REQ" 2>/dev/null | sym dormant >"d.$mode"
    [ -s "p.$mode" ] && cmp -s "p.$mode" "d.$mode" && pass "$cc $mode: the dormant build's trace is the plain build's" ||
      fail "$cc $mode: the dormant build's trace is the plain build's: $(diff "p.$mode" "d.$mode" | head -4)"
  done
  # --ext: the entry and exit records too
  CC=$cc "$UCOV" cc --ext -g -O2 "${SANFLAGS[@]}" -I"$D" "$D/trace_one.c" "$D/httpreq.c" -o plain_ext &&
    CC=$cc "$UCOV" cc --ext --dormant -g -O2 "${SANFLAGS[@]}" -I"$D" "$D/trace_one.c" \
      "$D/httpreq.c" -o dormant_ext || fail "$cc: --ext builds"
  setarch -R ./plain_ext --mode ext "$REQ" 2>/dev/null | sym plain_ext >p.ext2
  setarch -R ./dormant_ext --mode ext "$REQ" 2>/dev/null | sym dormant_ext >d.ext2
  if [ "${cc#clang}" = "$cc" ]; then # gcc: the same -finstrument-functions calls, in the twins
    # (file and line: a twin's entry call is at its function's name, not at
    # the brace after it, as gcc's copy of the body places it)
    nocol() { sed -E 's/^([^ ]*:[0-9]+):[0-9]+ /\1 /' "$1"; }
    grep -qx 'entry' p.ext2 && cmp -s <(nocol p.ext2) <(nocol d.ext2) && pass "$cc --ext: the dormant build's entry/exit trace" ||
      fail "$cc --ext: the dormant build's entry/exit trace: $(diff <(nocol p.ext2) <(nocol d.ext2) | head -4)"
  else # clang: XRay sleds, one per function (no records for inlined calls)
    setarch -R ./dormant_ext --mode ext "$REQ" 2>/dev/null | symf dormant_ext >d.ext2f
    setarch -R ./plain --mode pc "$REQ" 2>/dev/null | symf plain >p.pcf
    python3 "$T/xray_trace.py" d.ext2f p.pcf >x.txt 2>&1 && pass "$cc --ext: XRay entry/exit records" ||
      fail "$cc --ext: XRay entry/exit records: $(head -3 x.txt)"
    grep -q -- '-fxray-instrument' <(CC=$cc "$UCOV" cc --ext --dormant -v -c -x c /dev/null \
      -o /dev/null 2>&1) && pass "$cc --ext --dormant compiles with XRay sleds" || fail "$cc --ext --dormant compiles with XRay sleds"
  fi
  # ucov report through the table: the lines of a dormant build's trace
  ./plain --modules pm.txt "$REQ" >pp.txt 2>/dev/null && ./dormant --modules dm.txt "$REQ" >dp.txt 2>/dev/null
  "$UCOV" report pp.txt --modules pm.txt --lcov p.info 2>/dev/null
  "$UCOV" report dp.txt --modules dm.txt --lcov d.info 2>rep.err
  grep -q '^DA:' d.info && cmp -s <(grep -E '^(SF|DA|FNDA):' p.info) <(grep -E '^(SF|DA|FNDA):' d.info) &&
    pass "$cc: report of a dormant trace" || fail "$cc: report of a dormant trace: $(head -2 rep.err)"
  cd .. || exit 1
done

# gcov's and LLVM's counters in a twins build: the same calls before the
# enable (plain bodies), traced (twins) and after the disable count as in a
# build without --dormant (the twin updates the plain body's counters)
cc=${compilers[0]}
if [ "$cc" = gcc ] || [ "$cc" = clang ]; then
  gcov=(gcov)
  [ "$cc" = clang ] && gcov=(llvm-cov-14 gcov)
  for mode in gcov pgo; do
    [ $mode = pgo ] && [ "$cc" = gcc ] && continue
    for v in ref twins; do
      f=()
      [ $v = twins ] && f=(--dormant)
      mkdir -p "counters/$mode-$v" && cd "counters/$mode-$v" || exit 1
      CC=$cc "$UCOV" cc --$mode --trace "${f[@]}" -O2 "${SANFLAGS[@]}" -I"$SRC/include" -I"$T" \
        "$T/counted.c" "$T/work.c" -o prog 2>cc.err && LLVM_PROFILE_FILE=p.profraw ./prog 1000 >out.txt 2>&1 ||
        fail "$mode $v: counted: $(cat cc.err out.txt | tail -2)"
      if [ $mode = gcov ]; then
        "${gcov[@]}" -t ./*work.gcda 2>/dev/null | grep -v ':    0:' >counts.txt
      else
        llvm-profdata-14 merge -o p.profdata p.profraw && llvm-profdata-14 show \
          --all-functions --counts p.profdata >counts.txt
      fi
      cd ../.. || exit 1
    done
    c=counters/$mode
    grep -q 'counted: .*, [1-9][0-9]* records' "$c-twins/out.txt" && [ -s "$c-ref/counts.txt" ] &&
      cmp -s "$c-ref/counts.txt" "$c-twins/counts.txt" && pass "$cc --$mode --trace --dormant: the counters of a build without --dormant" ||
      fail "$cc --$mode --trace --dormant: the counters of a build without --dormant: $(diff "$c-ref/counts.txt" "$c-twins/counts.txt" | head -4)"
  done
  grep -Eq '^ +3000: +[0-9]+: +bump\(i\);' counters/gcov-twins/counts.txt && pass "$cc: gcov counts 3,000 calls of step()" ||
    fail "$cc: gcov counts 3,000 calls of step(): $(grep 'bump(i)' counters/gcov-twins/counts.txt)"
fi

# --gc-sections: the twins stay (their table is retained, SHF_GNU_RETAIN:
# nothing else refers to a twin), and trace as the plain build does
mkdir -p gc && cd gc || exit 1
CC=$cc "$UCOV" cc --trace --dormant -v -g -O2 -ffunction-sections -Wl,--gc-sections "${SANFLAGS[@]}" \
  -I"$D" "$D/trace_one.c" "$D/httpreq.c" -o dormant 2>cc.err || fail "--gc-sections: builds: $(tail -2 cc.err)"
setarch -R ./dormant --mode pc "$REQ" 2>/dev/null | sym dormant >d.pc
grep -q ' [1-9][0-9]* twin entries)' cc.err && cmp -s "../$cc/p.pc" d.pc && pass "--gc-sections: twins, and the plain build's trace" ||
  fail "--gc-sections: twins, and the plain build's trace: $(grep 'sites (' cc.err) $(diff "../$cc/p.pc" d.pc | head -3)"
cd .. || exit 1

# without a twins plugin (ucov built where the headers were missing): ucov cc
# says so and patches the hook calls one by one, as objdump finds them
cc=${compilers[0]}
NOPLUGIN=$WORK/noplugin/lib
mkdir -p noplugin/lib && cd noplugin || exit 1
for f in "$(dirname "$UCOV")"/*.a "$(dirname "$UCOV")"/*.so* "$(dirname "$UCOV")"/*.ld; do
  case $f in */ucov-twins-*) ;; *) ln -sf "$f" lib/ ;; esac
done
UCOV_LIBDIR=$PWD/lib CC=$cc "$UCOV" cc --trace -g -O2 "${SANFLAGS[@]}" -I"$D" "$D/trace_one.c" \
  "$D/httpreq.c" -o plain && UCOV_LIBDIR=$PWD/lib CC=$cc "$UCOV" cc --trace --dormant -v -g -O2 \
  "${SANFLAGS[@]}" -I"$D" "$D/trace_one.c" "$D/httpreq.c" -o dormant 2>cc.err || fail "no plugin: builds: $(tail -2 cc.err)"
grep -q -- '--dormant: no twins plugin for' cc.err && grep -q ' 0 twin entries)' cc.err &&
  pass "no plugin: ucov cc says so" || fail "no plugin: ucov cc says so: $(head -2 cc.err)"
python3 "$SRC/tests/e2e/dormant_sites.py" plain dormant >sites.txt 2>&1 && grep -q '^same [1-9]' sites.txt &&
  pass "no plugin: the table is objdump's sites" || fail "no plugin: the table is objdump's sites: $(head -5 sites.txt)"
setarch -R ./plain --mode pc "$REQ" 2>/dev/null | sym plain >p.pc
setarch -R ./dormant --mode pc "$REQ" 2>/dev/null | sym dormant >d.pc
[ -s p.pc ] && cmp -s p.pc d.pc && pass "no plugin: the dormant build's trace" ||
  fail "no plugin: the dormant build's trace: $(diff p.pc d.pc | head -4)"
cd .. || exit 1

mkdir -p stress && cd stress || exit 1
# stress: twins (their entries patched); stress_calls: no plugin, every hook
# call and tail jump patched
CC=$cc "$UCOV" cc --trace --dormant -v -O2 -pthread "${SANFLAGS[@]}" -I"$SRC/include" -I"$T" \
  "$T/stress.c" "$T/work.c" -o stress 2>cc.err && CC=$cc "$UCOV" cc --trace -O2 -pthread \
  "${SANFLAGS[@]}" -I"$SRC/include" -I"$T" "$T/stress.c" "$T/work.c" -o plain &&
  UCOV_LIBDIR=$NOPLUGIN CC=$cc "$UCOV" cc --trace --dormant -v -O2 -pthread "${SANFLAGS[@]}" \
    -I"$SRC/include" -I"$T" "$T/stress.c" "$T/work.c" -o stress_calls 2>cc2.err ||
  fail "stress build: $(tail -2 cc.err) $(tail -2 cc2.err)"
# (gcc ends functions with a jump to the hook; clang never does)
if [ "$cc" = gcc ]; then
  grep -q '[1-9][0-9]* tail jumps' cc2.err && pass "work.c has tail jumps" || fail "work.c has tail jumps: $(tail -1 cc2.err)"
fi
for b in stress stress_calls; do
  python3 "$SRC/tests/e2e/dormant_sites.py" plain $b >sites.txt 2>&1 && pass "$b: the table is objdump's sites" ||
    fail "$b: the table is objdump's sites: $(head -5 sites.txt)"
  # 4 threads run the code; the main thread enables and disables 1,000 times
  # and checks every traced call's records against the first one's
  ./$b 1000 4 remote >s1.$b.txt 2>&1 && grep -q '^stress: 1000 cycles, [1-9][0-9]* records each, 4 workers' s1.$b.txt &&
    pass "$b: 1,000 enables and disables under 4 threads" || fail "$b: 1,000 enables and disables under 4 threads: $(tail -3 s1.$b.txt)"
done
cp s1.stress.txt s1.txt
# KCOV_REMOTE_ENABLE makes the sites live too: a worker's section records
# what the plain build's does
./plain 2 0 remote >s0.txt 2>&1
grep -q '^remote: [1-9][0-9]* records$' s1.txt && [ "$(grep '^remote:' s1.txt)" = "$(grep '^remote:' s0.txt)" ] &&
  pass "a REMOTE section in a dormant build" || fail "a REMOTE section in a dormant build: $(grep '^remote' s1.txt) / plain $(grep '^remote' s0.txt)"
./stress 1000 4 own-trap >s2.txt 2>&1 && grep -q ' 126 own traps$' s2.txt && pass "the program's own SIGTRAP handler" ||
  fail "the program's own SIGTRAP handler: $(tail -3 s2.txt)"
./stress 400 4 own-trap worker-trace >s3.txt 2>&1 && grep -q '^stress: 400 cycles' s3.txt && pass "threads that trace for themselves meanwhile" ||
  fail "threads that trace for themselves meanwhile: $(tail -3 s3.txt)"
# The site table read anew and replaced 1,000 times, live and dormant, while
# 4 threads trap (a table freed under a trap handler: ASan's use after free)
for b in stress stress_calls; do
  ./$b 1000 4 reload >s5.$b.txt 2>&1 && grep -q '^stress: 1000 cycles, [1-9]' s5.$b.txt &&
    pass "$b: tables replaced 1,000 times under 4 trapping threads" ||
    fail "$b: tables replaced 1,000 times under 4 trapping threads: $(tail -3 s5.$b.txt)"
done
# No core-serialising barrier (membarrier fails): nothing is patched, the
# enable fails with EOPNOTSUPP and says why, and the program runs on.
if strace -qq -o /dev/null true 2>/dev/null; then
  strace -qq -f -o /dev/null -e trace=membarrier -e inject=membarrier:error=EINVAL ./stress 1 2 >s6.txt 2>&1
  grep -q 'no membarrier SYNC_CORE.*tracing is refused' s6.txt && grep -q '^KCOV_ENABLE: Operation not supported' s6.txt &&
    pass "without membarrier SYNC_CORE the enable is refused, with a message" ||
    fail "without membarrier SYNC_CORE the enable is refused, with a message: $(tail -3 s6.txt)"
fi
# clang --ext --dormant: XRay sleds patched too, under the same load
if [ "${cc#clang}" != "$cc" ]; then
  CC=$cc "$UCOV" cc --ext --dormant -O2 -pthread "${SANFLAGS[@]}" -I"$SRC/include" -I"$T" \
    "$T/stress.c" "$T/work.c" -o stress_xray 2>cc.err || fail "stress --ext build: $(tail -2 cc.err)"
  ./stress_xray 1000 4 own-trap >s4.txt 2>&1 && grep -q ' 126 own traps$' s4.txt && pass "XRay sleds patched under 4 threads" ||
    fail "XRay sleds patched under 4 threads: $(tail -3 s4.txt)"
fi
# the sites in the running process: live while a device is enabled, dormant after
coproc S { exec ./stress 2 0 pause; }
spid=$S_PID
read -r -t 30 word <&"${S[0]}"
python3 "$SRC/tests/e2e/dormant_sites.py" --mem "$spid" stress live >mem1.txt 2>&1
# (patched through a PROT_WRITE that is taken back: no writable code stays)
grep -E '^[0-9a-f-]+ .wx' /proc/"$spid"/maps >wx.txt
[ ! -s wx.txt ] && pass "a writable and executable mapping stays" || fail "a writable and executable mapping stays: $(head -2 wx.txt)"
[ -n "${S[1]:-}" ] && echo >&"${S[1]}"
read -r -t 30 word2 <&"${S[0]}"
python3 "$SRC/tests/e2e/dormant_sites.py" --mem "$spid" stress dormant >mem2.txt 2>&1
[ -n "${S[1]:-}" ] && echo >&"${S[1]}"
wait "$spid"
[ "$word" = live ] && grep -q '^live [1-9]' mem1.txt && pass "sites live in memory while enabled: $word" ||
  fail "sites live in memory while enabled: $word $(head -3 mem1.txt)"
[ "$word2" = dormant ] && grep -q '^dormant [1-9]' mem2.txt && pass "sites dormant in memory after the last device went with its thread: $word2" ||
  fail "sites dormant in memory after the last device went with its thread: $word2 $(head -3 mem2.txt)"
# under gdb: a single thread never meets a patch in progress
if command -v gdb >/dev/null && [ -z "$SAN" ]; then
  gdb -batch -ex run --args ./stress 50 0 >g1.txt 2>&1
  grep -q 'stress: 50 cycles' g1.txt && grep -q 'exited normally' g1.txt && pass "under gdb" ||
    fail "under gdb: $(tail -3 g1.txt)"
  # shellcheck disable=SC2016 # (gdb expands them)
  # a thread that meets a site mid-patch stops gdb with a SIGTRAP there;
  # `signal SIGTRAP` hands it to the runtime, which runs the site's new form
  printf '%s\n' run 'while $_isvoid($_exitcode)' ' if $_siginfo.si_signo == 5' '  signal SIGTRAP' \
    ' else' '  continue' ' end' end >cont.gdb
  timeout 300 gdb -batch -x cont.gdb --args ./stress 200 4 >g2.txt 2>&1
  grep -q 'stress: 200 cycles' g2.txt && grep -q 'exited normally' g2.txt && pass "under gdb with threads, each SIGTRAP handed on" ||
    fail "under gdb with threads, each SIGTRAP handed on: $(tail -3 g2.txt)"
  (cd "../$cc" && gdb -batch -ex run --args ./dormant --mode pc "$REQ" 2>/dev/null | grep '^0x' |
    sym dormant) >g3.txt
  cmp -s g3.txt "../$cc/d.pc" && pass "the demo's trace under gdb" || fail "the demo's trace under gdb: $(diff g3.txt "../$cc/d.pc" | head -3)"
fi
cd .. || exit 1

# a dormant shared library: live when loaded while tracing, and loaded again
mkdir -p dl && cd dl || exit 1
for v in plain dormant; do
  f=()
  [ $v = dormant ] && f=(--dormant)
  CC=$cc "$UCOV" cc --trace "${f[@]}" -O2 -fPIC -shared "${SANFLAGS[@]}" "$T/dl_lib.c" -o "lib$v.so" &&
    CC=$cc "$UCOV" cc --trace "${f[@]}" -O2 "${SANFLAGS[@]}" -I"$SRC/include" "$T/dl_main.c" -ldl \
      -o "main_$v" || fail "dl $v: build"
done
want=$(./main_plain "$PWD/libplain.so" before)
for when in before during; do
  got=$(./main_dormant "$PWD/libdormant.so" $when)
  [ -n "$want" ] && [ "$got" = "$want" ] && pass "a dormant library loaded $when tracing: '$got', the plain one '$want'" ||
    fail "a dormant library loaded $when tracing: '$got', the plain one '$want'"
done
python3 "$SRC/tests/e2e/dormant_sites.py" libplain.so libdormant.so >sites.txt 2>&1 && pass "library: the table is objdump's sites" ||
  fail "library: the table is objdump's sites: $(head -5 sites.txt)"
# 70 dormant modules (copies of one library): every one made live
mkdir -p many && CC=$cc "$UCOV" cc --trace --dormant -O1 -fPIC -shared "${SANFLAGS[@]}" "$T/many_lib.c" \
  -o many/lib0.so && for i in $(seq 1 69); do cp many/lib0.so "many/lib$i.so"; done &&
  CC=$cc "$UCOV" cc --trace -O1 "${SANFLAGS[@]}" -I"$SRC/include" "$T/many.c" -ldl -o many_main ||
  fail "many modules: build"
./many_main 70 >many.txt 2>&1 && grep -qx 'many: 70 modules, 70 traced' many.txt &&
  pass "70 dormant modules, every one live while tracing" || fail "70 dormant modules: $(tail -3 many.txt)"
cd .. || exit 1

finish dormant
