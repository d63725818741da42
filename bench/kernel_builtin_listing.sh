#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# __sanitizer_cov_trace_pc as built into vmlinux from one tree: ucov's (the
# tree apply.sh made, as built: vmlinux) and kcov.c's (kernel/kcov.c of the
# same tree, compiled with kcov.o's own flags from kernel/Makefile as
# released, and not profiled by gcov, as kernel/ucov is not; the same
# .config and compiler; the object is removed after).
# Prints both listings as markdown, for bench/RESULTS-kernel.md, where the
# two paths are counted.
# Usage: kernel_builtin_listing.sh [KTREE]  (default: build_kernel.sh builtin's tree)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
KTREE=${1:-$(bash "$HERE/../tests/kernel/build_kernel.sh" builtin "${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}" | cut -d' ' -f1)}
cd "$KTREE"
listing() { # OBJECT FUNCTION
  objdump -d --no-show-raw-insn "$1" --disassemble="$2" | sed -n '/^[0-9a-f]* </,$p' | sed '/^$/d'
}
# kcov.o's flags (kernel/Makefile of the released tree), given on the command line
make -s KCOV_INSTRUMENT_kcov.o=n GCOV_PROFILE_kcov.o=n KASAN_SANITIZE_kcov.o=n KCSAN_SANITIZE_kcov.o=n UBSAN_SANITIZE_kcov.o=n \
  "CFLAGS_kcov.o=-fno-conserve-stack -fno-stack-protector" kernel/kcov.o
tmp=$(mktemp -d)
mv kernel/kcov.o "$tmp/kcov.o" && rm -f kernel/.kcov.o.cmd
trap 'rm -rf "$tmp"' EXIT
echo "gcc: $(gcc --version | head -1); $(grep -o 'CONFIG_CC_OPTIMIZE_FOR_[A-Z]*=y' .config)"
echo
echo "kcov.c (kernel/kcov.o of the same tree):"
echo '```'
listing "$tmp/kcov.o" __sanitizer_cov_trace_pc
if objdump -d "$tmp/kcov.o" | grep -q 'call.*<check_kcov_mode>'; then
  listing "$tmp/kcov.o" check_kcov_mode
fi
echo '```'
echo
echo "ucov (vmlinux, kernel/ucov/core/trace.o):"
echo '```'
listing vmlinux __sanitizer_cov_trace_pc
echo '```'
