#!/usr/bin/env bash
# A real C++ project's suite, counted by ucov and by libgcov: Debian's
# libjsoncpp 1.9.5 (the source package, fetched once and cached in
# bench/work or $UCOV_SOURCE_CACHE), built by its own CMake as a shared
# library with its tests, once with CXX="ucov c++ --gcov" and once with
# g++ --coverage, and its ctest suite run in each (hundreds of
# jsontestrunner processes, and test_lib_json). Every line count of the
# library's sources, as gcov reads each tree, is the same: no count the
# processes make before they end is missed, Value's move constructor and
# destructor in the globals' destruction included.
# Exit 77 (skipped) only when the source package cannot be fetched.
# Usage: jsoncpp.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
CACHE=${UCOV_SOURCE_CACHE:-$SRC/bench/work}
fresh_workdir
export UCOV_CONTROL=0
if ! bash "$SRC/bench/fetch_source.sh" libjsoncpp "$CACHE/jsoncpp" >fetch.log 2>&1; then
  echo "SKIP: cannot fetch the Debian source package libjsoncpp: $(tail -1 fetch.log)"
  exit 77
fi
# build NAME CXX...: the library and its tests built in NAME, the suite run.
build() {
  local name=$1
  shift
  CXX="$*" cmake -S "$CACHE/jsoncpp" -B "$name" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF -DBUILD_OBJECT_LIBS=OFF \
    -DJSONCPP_WITH_TESTS=ON -DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF \
    -DJSONCPP_WITH_PKGCONFIG_SUPPORT=OFF -DJSONCPP_WITH_CMAKE_PACKAGE=OFF >"$name.log" 2>&1 &&
    cmake --build "$name" -j2 >>"$name.log" 2>&1 &&
    ctest --test-dir "$name" >"$name.ctest" 2>&1
}
build ucov "$UCOV" c++ --gcov && pass "built and tested with ucov c++ --gcov ($(tail -1 ucov.ctest))" ||
  fail "ucov c++ --gcov: $(grep -m3 -i 'error\|fail' ucov.log ucov.ctest)"
build libgcov g++ --coverage && pass "built and tested with g++ --coverage ($(tail -1 libgcov.ctest))" ||
  fail "g++ --coverage: $(grep -m3 -i 'error\|fail' libgcov.log libgcov.ctest)"
# lines TREE: every counted line of the library's sources, "file:line count".
lines() {
  find "$1/src/lib_json" -name '*.gcda' | sort | while read -r g; do
    (cd "$(dirname "$g")" && gcov -t "$(basename "$g")" 2>/dev/null) |
      awk -v f="$(basename "$g" .gcda)" -F: '$1 ~ /^ *[0-9]+$/ { gsub(/ /, "", $1); gsub(/ /, "", $2); print f ":" $2 " " $1 }'
  done
}
lines ucov >ucov.lines
lines libgcov >libgcov.lines
n=$(wc -l <libgcov.lines)
[ "$n" -gt 1000 ] && cmp -s ucov.lines libgcov.lines &&
  pass "every counted line of the library ($n) is libgcov's count" ||
  fail "line counts differ from libgcov's ($n lines): $(diff ucov.lines libgcov.lines | head -6 | tr '\n' ' ')"
finish jsoncpp
