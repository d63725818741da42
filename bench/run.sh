#!/usr/bin/env bash
# Trace-path benchmark: Lua 5.4 (Debian source package, fetched here) built with
# each instrumentation variant, one workload run on all of them in alternation,
# plus callgrind instruction counts. Writes bench/RESULTS.md.
#
#   bash bench/run.sh [ROUNDS]      (default 15 rounds of every variant)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$here/work
rounds=${1:-15}
scale=${SCALE:-40} # timed runs; callgrind runs use scale 1
mkdir -p "$work"
bash "$root/scripts/deps.sh"
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
command -v python3 >/dev/null || apt-get install -y -qq python3 >/dev/null

bash "$here/fetch_source.sh" lua5.4 "$work/lua"
# The runtime, built with each compiler so that every variant is one compiler's code.
# shellcheck source=bench/ucov_builds.sh
. "$here/ucov_builds.sh"
ucov_for_compilers "$root" "$work"

lua_srcs=$(find "$work"/lua/src -maxdepth 1 -name '*.c' ! -name lua.c ! -name luac.c | sort)
build_lua() { # build_lua CC NAME FLAGS...: objects of the interpreter
  local cc=$1 name=$2
  shift 2
  lua_objects "$work/obj/$cc-$name" "$cc" "$@"
}
link() { # link CC OUT OBJDIR BACKEND EXTRA...
  local cc=$1 out=$2 objs=$3 backend=$4
  shift 4
  $cc -O2 -I"$work/lua/src" -I"$root/include" -c "$here/lua_driver.c" -o "$work/obj/driver-$cc.o"
  $cc -O2 -I"$root/include" -c "$here/$backend.c" -o "$work/obj/$backend-$cc.o"
  $cc -o "$out" "$work/obj/driver-$cc.o" "$work/obj/$backend-$cc.o" "$work"/obj/"$cc"-"$objs"/*.o "$@" -lm -ldl
}
mkdir -p "$work/bin"
for cc in gcc clang; do
  build_lua $cc none
  build_lua $cc trace -fsanitize-coverage=trace-pc
  link $cc "$work/bin/$cc-none" none backend_none
  link $cc "$work/bin/$cc-ucov" trace backend_ucov -Wl,--whole-archive "$work/ucov-$cc/libucov.a" \
    -Wl,--no-whole-archive -lpthread
  link $cc "$work/bin/$cc-floor" trace backend_floor
done
build_lua gcc gcov --coverage
link gcc "$work/bin/gcc-gcov" gcov backend_none --coverage
build_lua clang guard -fsanitize-coverage=trace-pc-guard
link clang "$work/bin/clang-afl" guard backend_afl

variants=(
  "gcc none off" "gcc ucov off" "gcc ucov on" "gcc floor off" "gcc floor on" "gcc gcov off"
  "clang none off" "clang ucov off" "clang ucov on" "clang floor off" "clang floor on"
  "clang afl off"
)
raw=$work/raw.txt
: >"$raw"
export GCOV_PREFIX=$work/gcda GCOV_PREFIX_STRIP=20
echo "bench: $rounds rounds of ${#variants[@]} variants" >&2
for ((r = 0; r < rounds; r++)); do
  n=${#variants[@]}
  for ((k = 0; k < n; k++)); do # rotate the order every round
    v=${variants[$(((k + r) % n))]}
    read -r cc kind onoff <<<"$v"
    line=$("$work/bin/$cc-$kind" "$here/workload.lua" "$scale" "$onoff")
    echo "$cc $kind $onoff $line" >>"$raw"
  done
done
# Instruction counts: deterministic, whatever the machine is doing.
cg=$work/callgrind.txt
: >"$cg"
for v in "${variants[@]}"; do
  read -r cc kind onoff <<<"$v"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/bin/$cc-$kind" \
    "$here/workload.lua" 1 "$onoff" >"$work/cg.out" 2>"$work/cg.err"
  ir=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$work/cg.err")
  echo "$cc $kind $onoff ir $ir $(cat "$work/cg.out")" >>"$cg"
done
python3 "$here/report.py" "$raw" "$cg" "$rounds" >"$here/RESULTS.md"
cat "$here/RESULTS.md"
