#!/usr/bin/env bash
# cmake --install into a temporary prefix (and with DESTDIR): the command, the
# runtime, the shim, the headers, ucov.pc, the CMake package, the man pages
# and bash completion. A sample
# program builds against it with pkg-config and with find_package(ucov) and
# traces itself; the installed ucov cc finds its own runtime; UCOV_MODE picks
# the modes when a build passes only CC.
# Usage: install.sh UCOV SRCDIR WORKDIR BUILDDIR [SANITIZE]
set -u
_UCOV=$1 SRC=$2 WORK=$3 BUILD=$4 SAN=${5:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
P=$WORK/prefix
cmake --install "$BUILD" --prefix "$P" >install.log 2>&1 && pass "cmake --install" || fail "cmake --install: $(tail -3 install.log)"
for f in bin/ucov include/ucov/ucov.h include/ucov/kcov.h lib*/libucov.a lib*/libucov.so \
  lib*/libucov-kcov.so lib*/libucov-dso.a lib*/pkgconfig/ucov.pc lib*/cmake/ucov/ucovConfig.cmake \
  share/man/man1/ucov.1 share/man/man1/ucov-report.1 share/man/man1/ucov-cc.1 \
  share/bash-completion/completions/ucov; do
  compgen -G "$P/$f" >/dev/null || fail "installed: $f"
done
pass "every file is installed under the prefix"
DESTDIR=$WORK/dest cmake --install "$BUILD" --prefix /opt/ucov >/dev/null 2>&1 &&
  [ -x dest/opt/ucov/bin/ucov ] && ls dest/opt/ucov/lib*/pkgconfig/ucov.pc >/dev/null 2>&1 && pass "DESTDIR is honoured" ||
  fail "DESTDIR is honoured"
cat >app.c <<'C'
#include <stdio.h>
#include <sys/mman.h>
#include "ucov/kcov.h"
#include "ucov/ucov.h"
__attribute__((noinline)) static int work(int x) { return x > 3 ? x * 2 : x + 1; }
int main(void) {
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, 1024))
    return 1;
  unsigned long *cover = ucov_mmap(NULL, 1024 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED || ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    return 1;
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  int s = work(5) + work(1);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  printf("%lu pcs %d\n", cover[0], s);
  return cover[0] > 0 ? 0 : 1;
}
C
# pkg-config, the installed ucov cc (no UCOV_LIBDIR: it finds its runtime).
PKG_CONFIG_PATH=$(dirname "$(find "$P" -path '*/pkgconfig/ucov.pc' | head -1)")
export PKG_CONFIG_PATH
pkg-config --cflags --libs ucov | grep -q -- "-lucov" && pass "pkg-config knows ucov" || fail "pkg-config knows ucov"
read -ra pcflags < <(pkg-config --cflags ucov)
env -u UCOV_LIBDIR CC=gcc "$P/bin/ucov" cc --trace "${SANFLAGS[@]}" "${pcflags[@]}" app.c -o app1 &&
  ./app1 | grep -qE '^[1-9][0-9]* pcs' && pass "installed ucov cc with pkg-config flags" || fail "installed ucov cc with pkg-config flags: $(./app1 2>&1)"
# find_package(ucov): the sample links ucov::static, compiled with the hooks.
mkdir -p proj && cp app.c proj/ && cat >proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(app C)
find_package(ucov REQUIRED)
add_executable(app app.c)
target_compile_options(app PRIVATE -fsanitize-coverage=trace-pc)
target_link_libraries(app PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ucov::static>")
CM
SANCM=()
[ -n "$SAN" ] && SANCM=(-DCMAKE_C_FLAGS="-fsanitize=$SAN" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$SAN")
cmake -S proj -B proj/build -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER=gcc "${SANCM[@]}" >cm.log 2>&1 &&
  cmake --build proj/build >>cm.log 2>&1 && proj/build/app | grep -q 'pcs' && pass "find_package(ucov)" ||
  fail "find_package(ucov): $(tail -5 cm.log)"
# UCOV_MODE when a build passes only CC.
UCOV_MODE=gcov CC=gcc "$P/bin/ucov" cc "${SANFLAGS[@]}" -c app.c -o mode.o && nm mode.o | grep -q __gcov_init &&
  ! nm mode.o | grep -q __sanitizer_cov_trace_pc && pass "UCOV_MODE=gcov" || fail "UCOV_MODE=gcov"
UCOV_MODE=gcov,trace CC=gcc "$P/bin/ucov" cc -c app.c -o mode2.o && nm mode2.o | grep -q __gcov_init &&
  nm mode2.o | grep -q __sanitizer_cov_trace_pc && pass "UCOV_MODE=gcov,trace" || fail "UCOV_MODE=gcov,trace"
UCOV_MODE=bogus "$P/bin/ucov" cc -c app.c -o x.o 2>/dev/null
[ $? = 2 ] && pass "UCOV_MODE with an unknown mode: usage error" || fail "UCOV_MODE with an unknown mode: usage error"
# The installed ucov cc links a shared library against the installed libucov.so.
printf 'int lw(int x) { return x > 2 ? x : 1; }\n' >lw.c
printf 'int lw(int);\nint main(void) { return lw(3) != 3; }\n' >lm.c
env -u UCOV_LIBDIR CC=gcc "$P/bin/ucov" cc --gcov "${SANFLAGS[@]}" -fPIC -shared lw.c -o liblw.so &&
  gcc "${SANFLAGS[@]}" lm.c -L. -llw -Wl,-rpath,"$PWD" -o lm && ./lm &&
  ldd liblw.so | grep -q "$P/lib.*/libucov.so" && [ -f liblw.so-lw.gcda ] && pass "installed ucov cc -shared" ||
  fail "installed ucov cc -shared: $(ldd liblw.so | grep ucov)"
finish install
