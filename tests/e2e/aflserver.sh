#!/usr/bin/env bash
# ucov cc --afl: a target that afl-fuzz drives with no AFL++ compiler, gcc's
# and clang's. Checked:
# - a KCOV device of the process records exactly what a plain trace build's
#   does (gcc: --trace; clang: --unique, the same trace-pc-guard code): PCs
#   and comparison operands;
# - afl-showmap sees the edge map: inputs that stop at different stages of
#   the target's chain of magic values give different maps;
# - afl-fuzz takes the handshake (the map size the target asks for) and,
#   with cmplog from the same binary (-c 0), reaches the planted crash
#   behind three magic values within the campaign's bound; the crash it saved
#   aborts a plain build; without cmplog it does not get there;
# - the same with the target in the form AFL++'s docs recommend: deferred
#   fork server, persistent mode, input in shared memory (include/ucov/afl.h);
# - with --gcov (counters shared across fork, the default), in forkserver
#   mode (gcc) and persistent mode (clang), and with --pgo (clang's LLVM
#   profile, forkserver mode), live pulls from the fork server
#   grow while it runs; then `ucov collect --every 1` moves its counts into
#   a store, round after round (each round resets what it took); afl-fuzz
#   stops the fork server with SIGKILL, and the keeper writes what no round
#   took: the store's harness count plus the .gcda's (.profraw's) is exactly one per
#   logged execution (execs_done, or one more: see afl.sh), crashes and
#   timeouts included.
# Usage: aflserver.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
command -v afl-fuzz >/dev/null && command -v afl-showmap >/dev/null || {
  fail "afl-fuzz and afl-showmap (Debian's afl++; scripts/deps.sh installs it)"
  finish aflserver
  exit 1
}
unset ASAN_OPTIONS UBSAN_OPTIONS MSAN_OPTIONS
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
M=$SRC/tests/e2e/aflserver/magic.c
printf 'AAAAAAAAAAAAAAAA' >stage0 && printf 'CUFLAAAAAAAAAAAA' >stage1 &&
  printf 'CUFL\x88\x77\x66\x55\x44\x33\x22\x11AAAA' >stage2 && printf 'CUFL\x88\x77\x66\x55\x44\x33\x22\x11\xef\xbe\xed\xfe' >crash

for cc in gcc clang; do
  ref=--trace && [ $cc = clang ] && ref=--unique
  "$UCOV" cc --afl --cc $cc -O2 "$M" -o afl-$cc >cc.log 2>&1 && "$UCOV" cc $ref --cc $cc -O2 "$M" -o ref-$cc >>cc.log 2>&1 ||
    fail "$cc: ucov cc --afl: $(tail -3 cc.log)"
  # KCOV in the --afl build
  for m in pc cmp; do
    a=$(SELF_TRACE=$m ./afl-$cc <stage2) r=$(SELF_TRACE=$m ./ref-$cc <stage2)
    n=$(echo "$a" | sed -n "s/^$m records: //p")
    [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$a" = "$r" ] &&
      pass "$cc: a KCOV device of the --afl build: $n ${m^^} records, equal to the $ref build's" ||
      fail "$cc: $m records of the --afl build '$a', of the $ref build '$r'"
  done
  # afl-fuzz's variables that name no map, and no afl-fuzz: said, and the program runs
  if [ $cc = gcc ]; then
    out=$(__AFL_SHM_ID=999999999 __AFL_CMPLOG_SHM_ID=x SELF_TRACE=pc ./afl-$cc <stage1 2>bad.err)
    grep -q '^ucov: afl: cannot attach __AFL_SHM_ID$' bad.err && grep -q '__AFL_CMPLOG_SHM_ID' bad.err &&
      [ "$out" = "$(SELF_TRACE=pc ./afl-$cc <stage1)" ] &&
      pass "gcc: maps that cannot be attached, run alone: said, and the program runs as it would" ||
      fail "gcc: bad map ids: '$out'; $(cat bad.err)"
  fi
  # the edge map
  for s in 0 1 2; do afl-showmap -q -o map$s-$cc -- ./afl-$cc <stage$s; done
  [ -s map0-$cc ] && ! cmp -s map0-$cc map1-$cc && ! cmp -s map1-$cc map2-$cc && ! cmp -s map0-$cc map2-$cc &&
    pass "$cc: afl-showmap: the three stages give three edge maps ($(wc -l <map0-$cc), $(wc -l <map1-$cc), $(wc -l <map2-$cc) edges)" ||
    fail "$cc: afl-showmap maps: $(cat map0-$cc map1-$cc map2-$cc | tr '\n' ' ')"
  # a campaign with cmplog: the planted crash
  mkdir -p in-$cc && cp stage0 in-$cc/seed
  AFL_BENCH_UNTIL_CRASH=1 timeout 150 afl-fuzz -i in-$cc -o out-$cc -c 0 -V 60 -- ./afl-$cc >fuzz-$cc.log 2>&1
  crash=$(compgen -G "out-$cc/default/crashes/id*" | head -1)
  t=$(awk '$1 == "run_time" {print $3}' out-$cc/default/fuzzer_stats 2>/dev/null)
  size=$(sed -n 's/.*Target map size: \([0-9]*\).*/\1/p' fuzz-$cc.log | head -1)
  [ -n "$crash" ] && grep -q "cmplog forkserver" fuzz-$cc.log && [ "$(sh -c '"$1" <"$2" >/dev/null 2>&1; echo $?' _ ./ref-$cc "$crash" 2>/dev/null)" = 134 ] &&
    pass "$cc: afl-fuzz -c 0 reached the planted crash in ${t}s (map size $size); the input aborts the target" ||
    fail "$cc: no crash in the cmplog campaign ($(grep -E 'execs_done|saved_crashes' out-$cc/default/fuzzer_stats 2>/dev/null | tr -s ' ' | tr '\n' ' '); $(tail -3 fuzz-$cc.log))"
  if [ $cc = gcc ]; then
    [ "$size" = 65536 ] && pass "gcc: the handshake asks for the hashed edges' map (65536 bytes)" ||
      fail "gcc: map size '$size'"
  else
    [ -n "$size" ] && [ $((size % 64)) -eq 0 ] && [ "$size" -lt 65536 ] &&
      pass "clang: the handshake asks for a map of its guards ($size bytes)" || fail "clang: map size '$size'"
    # without cmplog, the same bound gets nowhere near it
    mkdir -p in-plain && cp stage0 in-plain/seed
    AFL_BENCH_UNTIL_CRASH=1 timeout 60 afl-fuzz -i in-plain -o out-plain -V 8 -- ./afl-$cc >fuzz-plain.log 2>&1
    e=$(awk '$1 == "execs_done" {print $3}' out-plain/default/fuzzer_stats 2>/dev/null)
    [ -n "$e" ] && [ "$e" -gt 1000 ] && ! compgen -G 'out-plain/default/crashes/id*' >/dev/null &&
      pass "clang: without cmplog, $e executions found no crash: cmplog found it" ||
      fail "clang: the campaign without cmplog: '$e' executions; $(ls out-plain/default/crashes 2>&1)"
  fi
done

# the form AFL++'s docs recommend: __AFL_INIT, __AFL_LOOP, shared memory
"$UCOV" cc --afl --cc clang -O2 -DSHMEM "$M" -o shmem >cc.log 2>&1 || fail "-DSHMEM: ucov cc --afl: $(tail -3 cc.log)"
mkdir -p in-shmem && cp stage0 in-shmem/seed
[ "$(printf CUFLAAAAAAAAAAAA | ./shmem; echo $?)" = 0 ] || fail "-DSHMEM: the target alone on stdin"
AFL_BENCH_UNTIL_CRASH=1 timeout 150 afl-fuzz -i in-shmem -o out-shmem -c 0 -V 60 -- ./shmem >fuzz-shmem.log 2>&1
crash=$(compgen -G "out-shmem/default/crashes/id*" | head -1)
modes=$(grep -c -e 'Persistent mode binary detected' -e 'Deferred forkserver binary detected' \
  -e 'Using SHARED MEMORY FUZZING' fuzz-shmem.log)
[ -n "$crash" ] && [ "$modes" -ge 3 ] && [ "$(sh -c '"$1" <"$2" >/dev/null 2>&1; echo $?' _ ./ref-clang "$crash" 2>/dev/null)" = 134 ] &&
  pass "deferred, persistent, shared-memory input: afl-fuzz took all three and reached the crash" ||
  fail "-DSHMEM campaign: crash '$crash', modes seen $modes; $(tail -3 fuzz-shmem.log)"

# --afl --gcov: the campaign's counts, live and exact
T=$SRC/tests/e2e/afl/target.c
for mode in forkserver persistent pgo; do
  # forkserver: gcc's gcov; persistent: clang's gcov; pgo: clang's LLVM profile
  cc=gcc prof=--gcov obj='target\.gcda' what=.gcda flags=()
  [ $mode = persistent ] && cc=clang flags=(-DPERSISTENT)
  [ $mode = pgo ] && cc=clang prof=--pgo obj='target\.profraw' what=.profraw
  mkdir -p exact-$mode/in && cd exact-$mode || exit 1
  printf 'hello' >in/a && printf 'FUY!' >in/b && printf 'HAN!' >in/c && printf 'FUZ!' >in/d
  "$UCOV" cc --afl $prof --cc $cc "${flags[@]}" -O0 "$T" -o target >cc.log 2>&1 ||
    fail "$mode: ucov cc --afl $prof: $(tail -2 cc.log)"
  LLVM_PROFILE_FILE=$PWD/target.profraw AFL_SKIP_CRASHES=1 TARGET_LOG=$PWD/runs.log \
    afl-fuzz -i in -o out -t 100 -V 10 -- ./target >afl.log 2>&1 &
  afl=$!
  afl_live_pulls "$UCOV" $afl "$obj" ../$mode
  a=$(fnda p1.info ran) b=$(fnda p2.info ran)
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ] && [ "$b" -gt "$a" ] && ! compgen -G '*.gcda' >/dev/null &&
    ! [ -s target.profraw ] &&
    pass "$mode --afl $prof: live pulls from the fork server: the harness at $a, then $b; no $what per execution" ||
    fail "$mode --afl $prof: live pulls from '$fs': '$a' then '$b'; $(ls)"
  # (after the pulls, whose counts a round would reset between them)
  "$UCOV" collect --pid "$fs" --every 1 --test camp --binary ./target --store "$PWD/k.db" -q 2>collect.err &
  col=$!
  wait $afl
  wait $col # (it ends when the fork server is gone)
  afl_wait_keeper
  if [ $mode = pgo ]; then
    "$UCOV" report target.profraw --binary ./target --lcov final.info 2>/dev/null
  else
    "$UCOV" report . --lcov final.info 2>/dev/null
  fi
  "$UCOV" report --store "$PWD/k.db" --lcov store.info 2>/dev/null
  hf=$(fnda final.info ran) hs=$(fnda store.info ran) runs=$(wc -l <runs.log)
  h=$((${hs:-0} + ${hf:-0}))
  e=$(awk '$1 == "execs_done" {print $3}' out/default/fuzzer_stats)
  c=$(awk '$1 == "saved_crashes" {print $3}' out/default/fuzzer_stats)
  [ -n "$hs" ] && [ -n "$hf" ] && [ "$hs" -gt 0 ] && [ "$hf" -gt 0 ] && [ "$h" = "$runs" ] &&
    [ "$((h - e))" -ge 0 ] && [ "$((h - e))" -le 1 ] && grep -q '^FUZ!$' runs.log &&
    pass "$mode --afl $prof: after afl-fuzz stopped: the harness ran $h times, every logged execution: $hs collected into the store, $hf in the keeper's $what (execs_done $e; $c crashes saved)" ||
    fail "$mode --afl $prof: harness $hs in the store + $hf in the $what, logged $runs, execs_done $e; $(cat collect.err)"
  cd .. || exit 1
done
# What the running afl-fuzz speaks (fakefuzz.c plays it): a comparison log
# of AFL++ 4.0-4.10c's size is written; 4.20c's and later layouts (their
# segments' sizes) are refused before the fork server starts, with afl-fuzz's
# code for cmplog it cannot read and a message; a library loaded in each
# execution, its guards past the map the handshake asked for, is said once.
A=$SRC/tests/e2e/aflserver
mkdir -p layouts && (cd layouts &&
  gcc -O1 "$A/fakefuzz.c" -o fakefuzz &&
  "$UCOV" cc --cc clang --afl -O1 -fPIC -shared "$A/late_lib.c" -o late_lib.so &&
  "$UCOV" cc --cc clang --afl -O1 "$A/late.c" -o late -ldl) >layouts.log 2>&1 ||
  fail "layouts: build: $(tail -3 layouts.log)"
(cd layouts && ./fakefuzz 65536 67633152 ./late >old.out 2>old.err)
grep -q '^hello c2.* status 0$' layouts/old.out && pass "a 4.0-4.10c comparison log: the handshake, one execution" ||
  fail "a 4.0-4.10c comparison log: $(cat layouts/old.out layouts/old.err)"
[ "$(grep -c "guards past afl-fuzz's map" layouts/old.err)" = 1 ] &&
  pass "guards of a library loaded after the fork server started, past the map: said once" ||
  fail "late guards past the map: $(cat layouts/old.err)"
for bytes in 88211456 151126016; do
  (cd layouts && ./fakefuzz 65536 $bytes ./late >new.out 2>new.err)
  grep -qx 'error 32' layouts/new.out && grep -q "is $bytes bytes, not the 67633152 .*refused" layouts/new.err &&
    pass "a comparison log of $bytes bytes (a newer afl-fuzz's layout) is refused, with a message" ||
    fail "a comparison log of $bytes bytes: $(cat layouts/new.out layouts/new.err)"
done
finish aflserver
