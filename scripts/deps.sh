#!/usr/bin/env bash
# Install what ucov's build, tests and demo need on Debian 12, only what is missing.
# Runs apt-get as root (directly, or through sudo when available).
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have cmake || need+=(cmake)
have ninja || need+=(ninja-build)
have gcc || need+=(gcc libc6-dev)
have g++ || need+=(g++) # C++ projects (ucov c++; clang++ uses its libstdc++ too)
have clang || need+=(clang)
# gcc's plugin headers: ucov-twins-gcc.so (src/plugins/gcc_twins.cc), for Debian 12's gcc 12.
[ -f "$(gcc -print-file-name=plugin 2>/dev/null)/include/gcc-plugin.h" ] || need+=(gcc-12-plugin-dev)
# LLVM's headers: ucov-twins-clang-N.so (src/plugins/clang_twins.cpp), a pass plugin,
# one for each clang the suite runs (14, and Debian's 16 and 19).
for v in 14 16 19; do
  [ -f /usr/lib/llvm-$v/include/llvm/Passes/PassPlugin.h ] || need+=("llvm-$v-dev")
done
have objdump && have nm && have readelf || need+=(binutils)
# More clangs for the LLVM profile tests: raw profile v8 (clang 14 to 17) and
# v10 with MC/DC bitmaps and vtable values (clang 19, in Debian 12's main archive).
for v in 16 19; do
  have clang-$v && have llvm-profdata-$v && have llvm-cov-$v || need+=("clang-$v" "llvm-$v" "libclang-rt-$v-dev")
done
# lld: the kernels built by clang (LLVM=-19; LLVM=-16 for CONFIG_PGO_CLANG's compile check)
for v in 16 19; do
  have ld.lld-$v || need+=("lld-$v")
done
[ -f /usr/include/linux/kcov.h ] || need+=(linux-libc-dev)
# The report tests' oracles: lcov/genhtml, gcovr, xmllint.
have lcov && have genhtml || need+=(lcov)
have gcovr || need+=(gcovr)
have diff-cover || need+=(diff-cover) # the patch coverage oracle
have afl-fuzz && have afl-clang-fast || need+=(afl++) # tests/e2e/afl.sh's fuzzer
# lcov 2.x and gcovr 7.x are Debian 13's (tests/fetch_tool.sh unpacks them,
# nothing installed): their dependencies are Debian 12's.
for p in libcapture-tiny-perl libdatetime-perl libtimedate-perl libjson-perl libperlio-gzip-perl \
  python3-colorlog python3-tomli python3-jinja2 python3-lxml python3-pygments; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
have xmllint || need+=(libxml2-utils)
# Headless Chromium opens the HTML report in the tests.
have chromium || need+=(chromium)
# The coverage store's engines (SQLite embedded, PostgreSQL through libpq), and a
# PostgreSQL server for tests/e2e/store.sh (tests/pg.sh starts its own).
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
[ -f /usr/include/postgresql/libpq-fe.h ] || need+=(libpq-dev)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
# git makes the diffs of tests/e2e/diffcov.sh; man and groff render the man pages.
have git || need+=(git)
have man || need+=(man-db)
have groff || need+=(groff-base)
# The symbolizer reads DWARF with elfutils' libdw.
[ -f /usr/include/elfutils/libdw.h ] || need+=(libdw-dev libelf-dev)
have eu-addr2line || need+=(elfutils)
# ucov mount: libfuse3, and fusermount3 to leave a mount.
[ -f /usr/include/fuse3/fuse.h ] || need+=(libfuse3-dev)
have pkg-config || need+=(pkg-config)
have fusermount3 || need+=(fuse3)
# SQLite's own build (tests/e2e/builds.sh) makes its amalgamation with tclsh;
# Lua's and SQLite's make; apt-get source needs dpkg-source.
have tclsh || need+=(tcl)
have make || need+=(make)
have dpkg-source || need+=(dpkg-dev)
# The bare-metal example kernel boots under QEMU (tests, demo); python3 sends bad frames.
have qemu-system-i386 || need+=(qemu-system-x86)
# ucov.ko (kernel/linux) builds against Debian's kernel headers; its test boots
# that kernel's image (downloaded by the test) with a busybox initramfs.
if [ "$(uname -m)" = x86_64 ]; then
  compgen -G '/usr/src/linux-headers-*-amd64/Module.symvers' >/dev/null || need+=(linux-headers-amd64)
  dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || need+=(busybox-static)
  have cpio || need+=(cpio)
  # bookworm-backports' 6.12 headers (tests/kernel/fetch_kernel.sh unpacks
  # them) generate BTF for modules with pahole.
  have pahole || need+=(dwarves)
  [ -f /usr/lib/x86_64-linux-gnu/libc.a ] || need+=(libc6-dev)
  # tests/kernel/clang.sh builds Debian's own kernel source with LLVM=-19
  # (clang 19 and lld 19) once, and caches it.
  [ -f /usr/src/linux-source-6.1.tar.xz ] || need+=(linux-source-6.1)
  have ld.lld-19 || need+=(lld-19)
  have flex && have bison && have bc || need+=(flex bison bc)
  [ -f /usr/include/openssl/ssl.h ] || need+=(libssl-dev)
  have xz || need+=(xz-utils)
  # apply.sh --series, applied with patch and checked by checkpatch.pl
  have patch && have perl || need+=(patch perl)
fi
have python3 || need+=(python3)
# tests/e2e/recovery.sh and remote.sh inject faults and delays with strace.
have strace || need+=(strace)
# tests/e2e/dormant.sh runs dormant builds under gdb, and compares with objdump.
have gdb || need+=(gdb)
have objdump || need+=(binutils)
# scripts/lint.sh (run by check.sh): the C files' form and the scripts' hygiene.
have clang-format || need+=(clang-format)
have shellcheck || need+=(shellcheck)

# clang's sanitizer runtimes come in their own package (libclang-rt-N-dev).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int main(void) { return 0; }' >"$probe/p.c"
if have clang && ! clang -fsanitize=thread "$probe/p.c" -o "$probe/p" 2>/dev/null; then
  major=$(clang -dumpversion | cut -d. -f1)
  need+=("libclang-rt-$major-dev")
fi

for v in 16 19; do
  if have clang-$v && ! clang-$v -fprofile-instr-generate "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    need+=("libclang-rt-$v-dev")
  fi
done

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "deps: installing ${need[*]}" >&2
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# A clang installed just now may still lack its sanitizer runtime.
if ! clang -fsanitize=thread "$probe/p.c" -o "$probe/p" 2>/dev/null; then
  major=$(clang -dumpversion | cut -d. -f1)
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "libclang-rt-$major-dev" >/dev/null
fi
