# shellcheck shell=bash
# Sourced by the benchmarks: ucov_for_compilers ROOT WORK builds ucov (Release,
# no tests) once per compiler, gcc and clang, into WORK/ucov-CC, so that each
# variant's runtime is its own compiler's code.
ucov_for_compilers() {
  local cc
  for cc in gcc clang; do
    cmake -S "$1" -B "$2/ucov-$cc" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=$cc \
      -DBUILD_TESTING=OFF >/dev/null
    cmake --build "$2/ucov-$cc" -j 2 >/dev/null
  done
}
