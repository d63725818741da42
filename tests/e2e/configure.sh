#!/usr/bin/env bash
# Configure-time dependency checks: a tree whose libdw/libelf or libfuse3
# cannot be found stops at configure with a message naming the Debian
# packages and scripts/deps.sh, not with a compile error halfway through.
# Usage: configure.sh SRCDIR WORKDIR
set -u
SRC=$1 WORK=$2
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
hidden="/usr/include;/usr/include/x86_64-linux-gnu;/usr/lib;/usr/lib/x86_64-linux-gnu;/lib;/lib/x86_64-linux-gnu"
if cmake -S "$SRC" -B noelf "${gen[@]}" -DCMAKE_IGNORE_PATH="$hidden" >noelf.out 2>&1; then
  fail "configure without libdw/libelf succeeded"
else
  grep -q 'libdw-dev' noelf.out && grep -q 'libelf-dev' noelf.out && grep -q 'scripts/deps.sh' noelf.out &&
    pass "configure without libdw/libelf names the packages" || fail "configure without libdw/libelf names the packages: $(grep -A3 'CMake Error' noelf.out)"
fi
if cmake -S "$SRC" -B nofuse "${gen[@]}" -DPKG_CONFIG_EXECUTABLE=/bin/false >nofuse.out 2>&1; then
  fail "configure without libfuse3 succeeded"
else
  grep -q 'libfuse3-dev' nofuse.out && grep -q 'UCOV_WITH_FUSE=OFF' nofuse.out && pass "configure without libfuse3 names the package" ||
    fail "configure without libfuse3 names the package: $(grep -A3 'CMake Error' nofuse.out)"
fi
cmake -S "$SRC" -B offuse "${gen[@]}" -DPKG_CONFIG_EXECUTABLE=/bin/false -DUCOV_WITH_FUSE=OFF \
  >offuse.out 2>&1 && pass "UCOV_WITH_FUSE=OFF configures without libfuse3" || fail "UCOV_WITH_FUSE=OFF configures without libfuse3: $(tail -3 offuse.out)"
rm -rf noelf nofuse offuse
finish configure
