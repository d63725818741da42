#!/usr/bin/env bash
# Dormant builds (ucov cc --dormant) on Lua 5.4 (Debian source package), for
# gcc and clang: the workload of bench/run.sh (lua_driver, bench/workload.lua)
# uninstrumented, dormant with nobody tracing, today's trace build with nobody
# tracing, and both tracing, all in alternation; callgrind instruction counts
# and the hook calls they make (the NOPs a dormant build runs instead); the
# time of the first enable and of the last disable. Writes
# bench/RESULTS-dormant.md.     bash bench/dormant_run.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work
rounds=${1:-11}
scale=${SCALE:-40}
mkdir -p "$work/dormant"
bash "$root/scripts/deps.sh"
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
bash "$here/fetch_source.sh" lua5.4 "$work/lua"
# one ucov (and runtime) per compiler, as bench/run.sh builds them
# shellcheck source=bench/ucov_builds.sh
. "$here/ucov_builds.sh"
ucov_for_compilers "$root" "$work"
lua_srcs=$(find "$work"/lua/src -maxdepth 1 -name '*.c' ! -name lua.c ! -name luac.c | sort)
d=$work/dormant
objs() { # objs CC NAME FLAGS...: the interpreter's objects
  local cc=$1 name=$2
  shift 2
  lua_objects "$d/obj-$cc-$name" "$cc" "$@"
}
for cc in gcc clang; do
  U=$work/ucov-$cc/ucov
  objs $cc none
  objs $cc trace -fsanitize-coverage=trace-pc,trace-cmp
  $cc -O2 -I"$work/lua/src" -I"$root/include" -c "$here/lua_driver.c" -o "$d/driver-$cc.o"
  $cc -O2 -I"$root/include" -c "$here/backend_none.c" -o "$d/none-$cc.o"
  $cc -O2 -I"$root/include" -c "$here/backend_ucov.c" -o "$d/ucov-$cc.o"
  $cc -O2 -I"$root/include" -c "$here/dormant_timer.c" -o "$d/timer-$cc.o"
  $cc -o "$d/$cc-none" "$d/driver-$cc.o" "$d/none-$cc.o" "$d/obj-$cc-none"/*.o -lm -ldl
  # today's trace build and the dormant one: linked by ucov cc itself
  CC=$cc "$U" cc --trace -o "$d/$cc-trace" "$d/driver-$cc.o" "$d/ucov-$cc.o" \
    "$d/obj-$cc-trace"/*.o -lm
  CC=$cc "$U" cc --trace --dormant -v -o "$d/$cc-dormant" "$d/driver-$cc.o" "$d/ucov-$cc.o" \
    "$d/obj-$cc-trace"/*.o -lm 2>"$d/$cc-sites.txt"
  CC=$cc "$U" cc --trace --dormant -o "$d/$cc-timer" "$d/timer-$cc.o" "$d/obj-$cc-trace"/*.o -lm
done
# EXT alone, clang: XRay sleds (--ext --dormant) against -finstrument-functions (--ext today)
U=$work/ucov-clang/ucov
objs clang xray -Xclang -fxray-instrument -Xclang -fxray-instruction-threshold=1
objs clang cyg -finstrument-functions
CC=clang "$U" cc --ext --dormant -o "$d/clang-xray" "$d/driver-clang.o" "$d/ucov-clang.o" \
  "$d/obj-clang-xray"/*.o -lm
CC=clang "$U" cc --ext -o "$d/clang-cyg" "$d/driver-clang.o" "$d/ucov-clang.o" \
  "$d/obj-clang-cyg"/*.o -lm

variants=("gcc none off" "gcc dormant off" "gcc trace off" "gcc dormant on" "gcc trace on"
  "clang none off" "clang dormant off" "clang trace off" "clang dormant on" "clang trace on"
  "clang xray off" "clang cyg off")
raw=$d/raw.txt
: >"$raw"
awk '{print $1}' /proc/loadavg >"$d/load.txt"
for ((r = 0; r < rounds; r++)); do
  n=${#variants[@]}
  for ((k = 0; k < n; k++)); do # rotate the order every round
    v=${variants[$(((k + r) % n))]}
    read -r cc kind onoff <<<"$v"
    echo "$cc $kind $onoff $("$d/$cc-$kind" "$here/workload.lua" "$scale" "$onoff")" >>"$raw"
  done
  for cc in gcc clang; do # a fresh process each time: the first enable reads the table
    echo "$cc timer $("$d/$cc-timer" 21)" >>"$raw"
  done
done
awk '{print $1}' /proc/loadavg >>"$d/load.txt"
# Instructions (scale 1): the variants not tracing, and the hook calls of the
# trace build (each one a NOP in the dormant build)
cg=$d/callgrind.txt
: >"$cg"
for cc in gcc clang; do
  kinds=(none dormant trace)
  [ $cc = clang ] && kinds+=(xray)
  for kind in "${kinds[@]}"; do
    valgrind --tool=callgrind --callgrind-out-file="$d/cg-$cc-$kind.out" "$d/$cc-$kind" \
      "$here/workload.lua" 1 off >/dev/null 2>"$d/cg.err"
    ir=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$d/cg.err")
    echo "$cc $kind ir $ir" >>"$cg"
  done
done
python3 "$here/dormant_report.py" "$d" "$rounds" "$scale" >"$here/RESULTS-dormant.md"
cat "$here/RESULTS-dormant.md"
