#!/usr/bin/env bash
# Profile-path benchmark: ucov's gcov runtime against libgcov on the same
# objects (Lua 5.4 from Debian's source package, and a generated program with
# 10,000 functions): run-time overhead, the time to write the .gcda files
# (__gcov_dump), and the time of a live pull over the control socket.
# Writes bench/RESULTS-profile.md.   bash bench/gcov_run.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work/gcov
rounds=${1:-10}
scale=${SCALE:-40}
mkdir -p "$work"
bash "$root/scripts/deps.sh"
command -v python3 >/dev/null || apt-get install -y -qq python3 >/dev/null
bash "$here/fetch_source.sh" lua5.4 "$here/work/lua"
cmake -S "$root" -B "$work/ucov" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
  -DBUILD_TESTING=OFF >/dev/null
cmake --build "$work/ucov" -j 2 >/dev/null
UCOV=$work/ucov/ucov

# Lua with --coverage: the objects once, linked with libgcov and with ucov.
mkdir -p "$work/lua"
for s in "$here"/work/lua/src/*.c; do
    case $s in */lua.c | */luac.c) continue ;; esac
  o=$work/lua/$(basename "${s%.c}").o
  [ -f "$o" ] || echo "gcc -O2 -DLUA_USE_POSIX '-Dluai_makeseed(L)=0' --coverage -c $s -o $o"
done | xargs -d '\n' -P 2 -I{} sh -c '{}'
gcc -O2 -I"$here/work/lua/src" -c "$here/gcov_driver.c" -o "$work/driver.o"
gcc --coverage "$work/driver.o" "$work"/lua/l*.o -lm -ldl -o "$work/lua_libgcov"
CC=gcc "$UCOV" cc --gcov "$work/driver.o" "$work"/lua/l*.o -lm -ldl -o "$work/lua_ucov"

# 10,000 functions in one unit.
python3 "$here/gen_functions.py" 10000 >"$work/f10k.c"
gcc -O1 --coverage -c "$work/f10k.c" -o "$work/f10k.o"
gcc --coverage "$work/f10k.o" -o "$work/f10k_libgcov"
CC=gcc "$UCOV" cc --gcov "$work/f10k.o" -o "$work/f10k_ucov"

gcc -O2 -I"$root/src" -I"$root/include" "$here/pull_timer.c" "$root/src/proto/client.c" \
  "$root/src/proto/protocol.c" "$root/src/proto/frame.c" -o "$work/pull_timer"

raw=$work/raw.txt
: >"$raw"
export UCOV_RUNTIME_DIR=$work/rt
for ((r = 0; r < rounds; r++)); do
  for v in libgcov ucov; do
    # Run-time overhead (same counters; only the runtime differs).
    echo "run $v $("$work/lua_$v" "$here/workload.lua" "$scale")" >>"$raw"
    # Writing the .gcda files, into an empty directory.
    for prog in lua f10k; do
      rm -rf "$work/out" && mkdir -p "$work/out"
      line=$(GCOV_PREFIX=$work/out BENCH_DUMP=1 UCOV_CONTROL=0 "$work/${prog}_$v" \
        "$here/workload.lua" 1 | grep '^dump')
      echo "dump-$prog $v $line" >>"$raw"
    done
  done
done
# Instruction counts of the workload (exact, unlike wall time on these VMs).
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
for v in libgcov ucov; do
  ir=$(UCOV_CONTROL=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/lua_$v" \
    "$here/workload.lua" 1 2>&1 >/dev/null | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
  echo "ir $v ir $ir" >>"$raw"
done
# Live pulls of running targets (50 pulls each).
for prog in lua f10k; do
  coproc TARGET { BENCH_HOLD=1 exec "$work/${prog}_ucov" "$here/workload.lua" 1; }
  while read -r line <&"${TARGET[0]}"; do [ "$line" = ready ] && break; done
  for _ in $(seq 100); do [ -S "$UCOV_RUNTIME_DIR/$TARGET_PID.sock" ] && break; sleep 0.02; done
  echo "pull-$prog ucov $("$work/pull_timer" "$TARGET_PID" 50)" >>"$raw"
  kill "$TARGET_PID"
  wait "$TARGET_PID" || true
done
python3 "$here/gcov_report.py" "$raw" "$rounds" "$scale" >"$here/RESULTS-profile.md"
cat "$here/RESULTS-profile.md"
