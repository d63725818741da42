# shellcheck shell=bash
# Sourced by the benchmarks: ucov_for_compilers ROOT WORK builds ucov (Release,
# no tests) once per compiler, gcc and clang, into WORK/ucov-CC, so that each
# variant's runtime is its own compiler's code; lua_objects builds the Lua
# interpreter's objects for one variant.
ucov_for_compilers() {
  local cc
  for cc in gcc clang; do
    cmake -S "$1" -B "$2/ucov-$cc" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=$cc \
      -DBUILD_TESTING=OFF >/dev/null
    cmake --build "$2/ucov-$cc" -j 2 >/dev/null
  done
}

# lua_objects OUT CC FLAGS...: the objects of $lua_srcs (the interpreter, no
# main) at -O2 with FLAGS into OUT, unless OUT already holds them for these
# flags and this version of the calling script.
lua_objects() {
  local out=$1 cc=$2 stamp s
  shift 2
  stamp="$cc $* $(sha1sum "$0" | cut -c1-12)"
  [ "$(cat "$out/.done" 2>/dev/null)" = "$stamp" ] && return 0
  rm -rf "$out" && mkdir -p "$out"
  # shellcheck disable=SC2154 # ($lua_srcs is the caller's)
  for s in $lua_srcs; do
    # A fixed string-hash seed makes every run execute the same blocks.
    echo "$cc -O2 -DLUA_USE_POSIX '-Dluai_makeseed(L)=0' $* -c $s -o $out/$(basename "${s%.c}").o"
  done | xargs -d '\n' -P 2 -I{} sh -c '{}'
  echo "$stamp" >"$out/.done"
}

# bench_ucovs ROOT [[NAME=]UCOV...]: the ucov commands a benchmark compares,
# into the arrays ucovs and names, each given as NAME=PATH or PATH (another
# checkout's build is the anchor); none given: this tree's, built (Release,
# no tests) into ROOT/build/bench and brought up to date.
bench_ucovs() {
  local root=$1 a
  shift
  ucovs=() names=()
  for a in "$@"; do
    case $a in
    *=*) names+=("${a%%=*}") ucovs+=("${a#*=}") ;;
    *) names+=("$a") ucovs+=("$a") ;;
    esac
  done
  [ ${#ucovs[@]} -eq 0 ] || return 0
  cmake -S "$root" -B "$root/build/bench" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$root/build/bench" -j 2 >/dev/null
  ucovs=("$root/build/bench/ucov") names=("this build")
}
