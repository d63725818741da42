#!/usr/bin/env bash
# C++ beside C: ucov c++ drives g++ (clang++ with --cc clang) for compile and
# link; ucov cc takes C++ sources and links of C++ objects to the C++ driver;
# a CMake project with a C library and a C++ test builds with
# CC="ucov cc --gcov" CXX="ucov c++ --gcov" (and --trace, and clang's
# --pgo, its profile's functions demangled); every output names functions
# demangled, a constructor's variants one function, and --no-demangle gives
# the compiler's names back.
# Usage: cxx.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
command -v g++ >/dev/null || { fail "g++ is not installed (scripts/deps.sh installs it)"; finish cxx; }
cat >a.cpp <<'CPP'
#include <cstdio>
namespace ns {
int add(int a, int b) { return a + b; }
}
struct A {
  int v;
  A() : v(1) {}
  ~A() { std::printf("%d\n", v); }
};
template <typename T> T twice(T x) { return x + x; }
int main() {
  A a;
  int s = 0;
  for (int x = 1; x <= 3; x++)
    s = ns::add(s, twice(x));
  return s == 12 ? 0 : 1;
}
CPP
fns() { grep '^FN:' "$1" | cut -d, -f2- | sort; }
# 1. ucov c++ compiles and links through g++
"$UCOV" c++ --gcov "${SANFLAGS[@]}" a.cpp -o a 2>err.txt && ./a >/dev/null &&
  pass "ucov c++ --gcov builds and runs a C++ program" || fail "ucov c++ --gcov: $(cat err.txt)"
"$UCOV" report . --lcov a.info 2>/dev/null
want=$(printf '%s\n' 'A::A()' 'A::~A()' 'int twice<int>(int)' 'main' 'ns::add(int, int)')
[ "$(fns a.info)" = "$want" ] && pass "lcov: functions demangled, A's constructor variants one" ||
  fail "lcov functions: $(fns a.info | tr '\n' ';')"
grep -q '^FNDA:1,A::A()$' a.info && grep -q '^FNDA:3,ns::add(int, int)$' a.info &&
  pass "lcov: the demangled functions' counts" || fail "lcov counts: $(grep FNDA a.info | tr '\n' ' ')"
"$UCOV" report . --json a.json 2>/dev/null
grep -q '"ns::add(int, int)"' a.json && ! grep -q '_ZN' a.json && pass "JSON: names demangled" ||
  fail "JSON names"
"$UCOV" report . --cobertura a.xml 2>/dev/null
grep -q 'name="ns::add(int, int)"' a.xml && pass "Cobertura: names demangled" || fail "Cobertura names"
"$UCOV" report . --no-demangle --lcov raw.info 2>/dev/null
grep -q '^FN:3,_ZN2ns3addEii$' raw.info && grep -q '_ZN1AC2Ev' raw.info &&
  pass "--no-demangle: the compiler's names" || fail "--no-demangle: $(fns raw.info | tr '\n' ';')"
"$UCOV" merge --no-demangle a.info -o m.info 2>/dev/null && grep -q 'ns::add(int, int)' m.info &&
  pass "merge keeps demangled input names" || fail "merge"
# 2. ucov cc: a C++ source, and a link of C++ objects, go to the C++ driver
rm -f ./*.gcda
"$UCOV" cc --gcov "${SANFLAGS[@]}" a.cpp -o b 2>err.txt && ./b >/dev/null && pass "ucov cc: a C++ source links" ||
  fail "ucov cc a.cpp: $(cat err.txt)"
"$UCOV" c++ --gcov "${SANFLAGS[@]}" -c a.cpp -o a.o && "$UCOV" cc --gcov "${SANFLAGS[@]}" a.o -o c 2>err.txt && ./c >/dev/null &&
  pass "ucov cc: a link of C++ objects links" || fail "ucov cc a.o: $(cat err.txt)"
printf 'int c_only(void) { return 7; }\nint main(void) { return c_only() - 7; }\n' >c.c
# (-v: the first line is the command ucov runs)
"$UCOV" cc --gcov -v "${SANFLAGS[@]}" c.c -o cprog 2>v.txt && ./cprog && head -1 v.txt | grep -q '^cc ' &&
  pass "ucov cc: C stays with the C driver" || fail "ucov cc c.c: $(head -1 v.txt)"
# 3. a CMake project: a C library and a C++ test
if command -v cmake >/dev/null; then
  mkdir -p proj/src proj/test
  cat >proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(mixed C CXX)
add_library(calc STATIC src/calc.c)
target_include_directories(calc PUBLIC src)
add_executable(calc_test test/calc_test.cpp)
target_link_libraries(calc_test PRIVATE calc)
CM
  printf 'int calc_sq(int x) { return x * x; }\n' >proj/src/calc.c
  printf '#ifdef __cplusplus\nextern "C" {\n#endif\nint calc_sq(int x);\n#ifdef __cplusplus\n}\n#endif\n' >proj/src/calc.h
  cat >proj/test/calc_test.cpp <<'CPP'
#include "calc.h"
#include <string>
namespace t {
bool check(const std::string &what, int got, int want) { return what.size() && got == want; }
}
int main() { return t::check("sq", calc_sq(3), 9) ? 0 : 1; }
CPP
  if CFLAGS="${SANFLAGS[*]}" CXXFLAGS="${SANFLAGS[*]}" LDFLAGS="${SANFLAGS[*]}" \
    CC="$UCOV cc --gcov" CXX="$UCOV c++ --gcov" cmake -S proj -B proj/build >cmake.txt 2>&1 &&
    cmake --build proj/build >>cmake.txt 2>&1 && proj/build/calc_test; then
    pass "CMake: CC=\"ucov cc --gcov\" CXX=\"ucov c++ --gcov\" builds a C and C++ project"
    "$UCOV" report proj/build --lcov p.info 2>/dev/null
    grep -q '^FN:[0-9]*,t::check(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, int, int)$' p.info &&
      grep -q '^FNDA:1,calc_sq$' p.info && pass "CMake project: C and C++ functions, demangled" ||
      fail "CMake project functions: $(fns p.info | head -5 | tr '\n' ';')"
  else
    fail "CMake build: $(tail -5 cmake.txt)"
  fi
  # the same project under --trace, and under --pgo (clang's: --cc clang)
  if CFLAGS="${SANFLAGS[*]}" CXXFLAGS="${SANFLAGS[*]}" LDFLAGS="${SANFLAGS[*]}" \
    CC="$UCOV cc --trace" CXX="$UCOV c++ --trace" cmake -S proj -B proj/trace >tcmake.txt 2>&1 &&
    cmake --build proj/trace >>tcmake.txt 2>&1 && proj/trace/calc_test &&
    nm proj/trace/calc_test | grep -q ' U __sanitizer_cov_trace_pc\| T __sanitizer_cov_trace_pc'; then
    pass "CMake: CC=\"ucov cc --trace\" CXX=\"ucov c++ --trace\" builds it, traced"
  else
    fail "CMake --trace build: $(tail -5 tcmake.txt)"
  fi
  if command -v clang >/dev/null && command -v clang++ >/dev/null; then
    if CFLAGS="${SANFLAGS[*]}" CXXFLAGS="${SANFLAGS[*]}" LDFLAGS="${SANFLAGS[*]}" \
      CC="$UCOV cc --cc clang --pgo" CXX="$UCOV c++ --cc clang --pgo" cmake -S proj -B proj/pgo >pcmake.txt 2>&1 &&
      cmake --build proj/pgo >>pcmake.txt 2>&1 && (cd proj/pgo && LLVM_PROFILE_FILE=p.profraw ./calc_test) &&
      "$UCOV" report proj/pgo/p.profraw --binary proj/pgo/calc_test --lcov pp.info 2>/dev/null &&
      grep -q '^FN:[0-9]*,t::check(std::__cxx11::basic_string<char' pp.info && grep -q '^FNDA:1,calc_sq$' pp.info; then
      pass "CMake: CC/CXX ucov --cc clang --pgo builds it; its profile's functions demangled"
    else
      fail "CMake --pgo build: $(tail -5 pcmake.txt) $(fns pp.info 2>/dev/null | tr '\n' ';')"
    fi
  fi
fi
"$UCOV" report . --html a.html 2>/dev/null
grep -q 'ns::add(int, int)' a.html && ! grep -q '_ZN2ns3addEii' a.html && pass "HTML: names demangled" ||
  fail "HTML names"
# 4. clang: ucov c++ --cc clang drives clang++; --pgo's functions demangled too
if command -v clang++ >/dev/null; then
  rm -f ./*.gcda ./*.gcno
  "$UCOV" c++ --cc clang --pgo "${SANFLAGS[@]}" a.cpp -o p 2>err.txt && LLVM_PROFILE_FILE=p.profraw ./p >/dev/null &&
    pass "ucov c++ --cc clang --pgo builds" || fail "clang++ --pgo: $(cat err.txt)"
  "$UCOV" report p.profraw --binary p --lcov pgo.info 2>err.txt
  grep -q '^FN:[0-9]*,ns::add(int, int)$' pgo.info && pass "--pgo: llvm-cov's names demangled" ||
    fail "--pgo names: $(fns pgo.info | tr '\n' ';') $(cat err.txt)"
fi
finish cxx
