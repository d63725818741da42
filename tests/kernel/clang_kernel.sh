#!/usr/bin/env bash
# The clang-built kernel of the kernel tests: build_kernel.sh's clang flavour
# (Debian's 6.1 source with LLVM=-19, cached).
# Usage: clang_kernel.sh CACHE; prints "KDIR BZIMAGE".
exec bash "$(dirname "$0")/build_kernel.sh" clang "$1"
