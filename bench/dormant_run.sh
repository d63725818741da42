#!/usr/bin/env bash
# Dormant builds (ucov cc --dormant), gcc and clang, on two workloads nobody
# here wrote: Lua 5.4 (the workload of bench/run.sh: lua_driver,
# bench/workload.lua) and zlib (bench/zlib_driver.c: deflate and inflate, a
# block-dense code). Variants: uninstrumented; twins (ucov cc --trace
# --dormant with the twins plugin: plain bodies until someone traces);
# call sites (objects compiled without the plugin, linked --dormant: each
# hook call a NOP); today's trace build; the last three also tracing. All
# in alternation, minimum and median; callgrind instruction counts and the
# hook calls (the NOPs the call-site build runs instead); the time of the
# first enable and the last disable, on Lua and on 10,000 generated
# functions with a thread calling them meanwhile; clang's XRay sleds for
# --ext; then the idle cost again, twins and uninstrumented back to back. Writes bench/RESULTS-dormant.md.   bash bench/dormant_run.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work
rounds=${1:-11}
scale=${SCALE:-40}
zscale=${ZSCALE:-5}
nfns=10000
mkdir -p "$work/dormant"
bash "$root/scripts/deps.sh"
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
bash "$here/fetch_source.sh" lua5.4 "$work/lua"
bash "$here/fetch_source.sh" zlib "$work/zlib"
# one ucov (and runtime, and plugins) per compiler, as bench/run.sh builds them
# shellcheck source=bench/ucov_builds.sh
. "$here/ucov_builds.sh"
ucov_for_compilers "$root" "$work"
lua_srcs=$(find "$work"/lua/src -maxdepth 1 -name '*.c' ! -name lua.c ! -name luac.c | sort)
d=$work/dormant
# zlib_objects OUT CC FLAGS...: zlib's library objects at -O2
zlib_objects() {
  local out=$1 cc=$2 stamp s
  shift 2
  stamp="$cc $* $(sha1sum "$0" | cut -c1-12)"
  [ "$(cat "$out/.done" 2>/dev/null)" = "$stamp" ] && return 0
  rm -rf "$out" && mkdir -p "$out"
  for s in adler32 compress crc32 deflate infback inffast inflate inftrees trees uncompr zutil; do
    echo "$cc -O2 $* -I$work/zlib -c $work/zlib/$s.c -o $out/$s.o"
  done | xargs -d '\n' -P 2 -I{} sh -c '{}'
  echo "$stamp" >"$out/.done"
}
# fns_objects OUT CC FLAGS...: nfns small functions in units of 1,000, and
# their table (bench_fns, which dormant_timer's threads call)
fns_objects() {
  local out=$1 cc=$2 stamp
  shift 2
  stamp="$cc $* $(sha1sum "$0" | cut -c1-12)"
  [ "$(cat "$out/.done" 2>/dev/null)" = "$stamp" ] && return 0
  rm -rf "$out" && mkdir -p "$out"
  python3 - "$out" "$nfns" <<'PY'
import sys
out, n = sys.argv[1], int(sys.argv[2])
for u in range(n // 1000):
    src = ["extern volatile int bench_fns_sink;"]
    for i in range(u * 1000, (u + 1) * 1000):
        src.append(f"__attribute__((noinline)) int f{i}(int x) {{ if (x & {1 + i % 7}) "
                   f"return x + {i}; for (int k = 0; k < (x & 3); k++) bench_fns_sink += k; "
                   f"return x - {i}; }}")
    open(f"{out}/fns{u}.c", "w").write("\n".join(src) + "\n")
tab = [f"int f{i}(int);" for i in range(n)]
tab.append("volatile int bench_fns_sink;")
tab.append("int (*const bench_fns[])(int) = {" + ", ".join(f"f{i}" for i in range(n)) + "};")
tab.append(f"const int bench_fns_count = {n};")
open(f"{out}/table.c", "w").write("\n".join(tab) + "\n")
PY
  for s in "$out"/fns*.c; do echo "$cc -O2 $* -c $s -o ${s%.c}.o"; done | xargs -d '\n' -P 2 -I{} sh -c '{}'
  echo "$stamp" >"$out/.done"
}
SANCOV=-fsanitize-coverage=trace-pc,trace-cmp
for cc in gcc clang; do
  U=$work/ucov-$cc/ucov
  TW="CC=$cc $U cc --trace --dormant" # (compiles with the twins plugin)
  lua_objects "$d/obj-$cc-none" "$cc"
  lua_objects "$d/obj-$cc-trace" "$cc" $SANCOV
  lua_objects "$d/obj-$cc-twins" "$TW"
  zlib_objects "$d/zobj-$cc-none" "$cc"
  zlib_objects "$d/zobj-$cc-trace" "$cc" $SANCOV
  zlib_objects "$d/zobj-$cc-twins" "$TW"
  fns_objects "$d/fns-$cc" "$TW"
  $cc -O2 -c "$d/fns-$cc/table.c" -o "$d/fns-$cc/table.o"
  $cc -O2 -I"$work/lua/src" -I"$root/include" -c "$here/lua_driver.c" -o "$d/driver-$cc.o"
  $cc -O2 -I"$work/zlib" -I"$root/include" -c "$here/zlib_driver.c" -o "$d/zdriver-$cc.o"
  $cc -O2 -I"$root/include" -c "$here/backend_none.c" -o "$d/none-$cc.o"
  $cc -O2 -I"$root/include" -c "$here/backend_ucov.c" -o "$d/ucov-$cc.o"
  $cc -O2 -I"$root/include" -c "$here/dormant_timer.c" -o "$d/timer-$cc.o"
  $cc -o "$d/lua-$cc-none" "$d/driver-$cc.o" "$d/none-$cc.o" "$d/obj-$cc-none"/*.o -lm -ldl
  $cc -o "$d/zlib-$cc-none" "$d/zdriver-$cc.o" "$d/none-$cc.o" "$d/zobj-$cc-none"/*.o
  # today's trace build, the call-site build and the twins: linked by ucov cc itself
  for w in lua zlib; do
    drv=$d/driver-$cc.o objs=$d/obj-$cc
    [ $w = zlib ] && drv=$d/zdriver-$cc.o objs=$d/zobj-$cc
    CC=$cc "$U" cc --trace -o "$d/$w-$cc-trace" "$drv" "$d/ucov-$cc.o" "$objs-trace"/*.o -lm
    CC=$cc "$U" cc --trace --dormant -v -o "$d/$w-$cc-calls" "$drv" "$d/ucov-$cc.o" \
      "$objs-trace"/*.o -lm 2>"$d/$w-$cc-calls-sites.txt"
    CC=$cc "$U" cc --trace --dormant -v -o "$d/$w-$cc-twins" "$drv" "$d/ucov-$cc.o" \
      "$objs-twins"/*.o -lm 2>"$d/$w-$cc-twins-sites.txt"
  done
  # the trace build with its objects linked in reverse order: what the layout alone changes
  # shellcheck disable=SC2046 # (the object files, reversed)
  CC=$cc "$U" cc --trace -o "$d/lua-$cc-tracerev" "$d/driver-$cc.o" "$d/ucov-$cc.o" \
    $(printf '%s\n' "$d/obj-$cc-trace"/*.o | sort -r) -lm
  CC=$cc "$U" cc --trace --dormant -o "$d/lua-$cc-timer-calls" "$d/timer-$cc.o" \
    "$d/obj-$cc-trace"/*.o -lm
  CC=$cc "$U" cc --trace --dormant -o "$d/lua-$cc-timer-twins" "$d/timer-$cc.o" \
    "$d/obj-$cc-twins"/*.o -lm
  CC=$cc "$U" cc --trace --dormant -v -pthread -o "$d/fns-$cc-timer" "$d/timer-$cc.o" \
    "$d/fns-$cc"/*.o 2>"$d/fns-$cc-sites.txt"
done
# EXT alone, clang: XRay sleds (--ext --dormant) against -finstrument-functions (--ext today)
U=$work/ucov-clang/ucov
lua_objects "$d/obj-clang-xray" clang -Xclang -fxray-instrument -Xclang -fxray-instruction-threshold=1
lua_objects "$d/obj-clang-cyg" clang -finstrument-functions
CC=clang "$U" cc --ext --dormant -o "$d/lua-clang-xray" "$d/driver-clang.o" "$d/ucov-clang.o" \
  "$d/obj-clang-xray"/*.o -lm
CC=clang "$U" cc --ext -o "$d/lua-clang-cyg" "$d/driver-clang.o" "$d/ucov-clang.o" \
  "$d/obj-clang-cyg"/*.o -lm

variants=()
for w in lua zlib; do
  for cc in gcc clang; do
    variants+=("$w $cc none off" "$w $cc twins off" "$w $cc calls off" "$w $cc trace off"
      "$w $cc twins on" "$w $cc calls on" "$w $cc trace on")
  done
done
variants+=("lua clang xray off" "lua clang cyg off")
raw=$d/raw.txt
: >"$raw"
: >"$d/idle.txt"
awk '{print $1}' /proc/loadavg >"$d/load.txt"
for ((r = 0; r < rounds; r++)); do
  n=${#variants[@]}
  for ((k = 0; k < n; k++)); do # rotate the order every round
    v=${variants[$(((k + r) % n))]}
    read -r w cc kind onoff <<<"$v"
    if [ "$w" = lua ]; then
      out=$("$d/$w-$cc-$kind" "$here/workload.lua" "$scale" "$onoff")
    else
      out=$("$d/$w-$cc-$kind" "$zscale" "$onoff")
    fi
    echo "$w $cc $kind $onoff $out" >>"$raw"
  done
  for cc in gcc clang; do # a fresh process each time: the first enable reads the table
    {
      echo "timer lua-$cc-calls $("$d/lua-$cc-timer-calls" 21)"
      echo "timer lua-$cc-twins $("$d/lua-$cc-timer-twins" 21)"
      echo "timer fns-$cc $("$d/fns-$cc-timer" 21 1)"
    } >>"$raw"
  done
done
# Lua's records at scale 1 by three links of the same code (see the report)
for cc in gcc clang; do
  for kind in trace tracerev twins; do
    echo "layout $cc $kind $("$d/lua-$cc-$kind" "$here/workload.lua" 1 on)" >>"$raw"
  done
done
# UNIQUE mode once (records: the distinct PCs)
for w in lua zlib; do
  for cc in gcc clang; do
    for kind in twins calls trace; do
      if [ "$w" = lua ]; then
        out=$("$d/$w-$cc-$kind" "$here/workload.lua" 1 unique)
      else
        out=$("$d/$w-$cc-$kind" 1 unique)
      fi
      echo "$w $cc $kind unique $out" >>"$raw"
    done
  done
done
# Idle cost, back to back: twins and uninstrumented alternate, IDLE_ROUNDS
# pairs (the CPU's speed here drifts by a third from minute to minute: a
# pair's ratio, and many minimums, see through it)
idle_rounds=${IDLE_ROUNDS:-41}
for ((r = 0; r < idle_rounds; r++)); do
  for w in lua zlib; do
    for cc in gcc clang; do
      pair=(none twins)
      ((r % 2)) && pair=(twins none)
      for kind in "${pair[@]}"; do
        if [ "$w" = lua ]; then
          out=$("$d/$w-$cc-$kind" "$here/workload.lua" "$scale" off)
        else
          out=$("$d/$w-$cc-$kind" "$zscale" off)
        fi
        echo "idle-$r $w $cc $kind $out" >>"$d/idle.txt"
      done
    done
  done
done
awk '{print $1}' /proc/loadavg >>"$d/load.txt"
# Instructions (scale 1): the variants not tracing, and the hook calls of the
# trace build (each one a NOP in the call-site build)
cg=$d/callgrind.txt
: >"$cg"
for w in lua zlib; do
  for cc in gcc clang; do
    kinds=(none twins calls trace)
    [ $w = lua ] && [ $cc = clang ] && kinds+=(xray)
    for kind in "${kinds[@]}"; do
      args=("$here/workload.lua" 1 off)
      [ $w = zlib ] && args=(1 off)
      valgrind --tool=callgrind --callgrind-out-file="$d/cg-$w-$cc-$kind.out" "$d/$w-$cc-$kind" \
        "${args[@]}" >/dev/null 2>"$d/cg.err"
      ir=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$d/cg.err")
      echo "$w $cc $kind ir $ir" >>"$cg"
    done
  done
done
python3 "$here/dormant_report.py" "$d" "$rounds" "$scale" "$zscale" "$nfns" >"$here/RESULTS-dormant.md"
cat "$here/RESULTS-dormant.md"
