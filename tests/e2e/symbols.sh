#!/usr/bin/env bash
# The runtime's global names: every symbol libucov.a and libucov.so define
# starts with ucov_ or is one of the ABI names compilers call, so a program
# may define any other name. names.c defines names the runtime once used
# (parse_pid, ctl_open, mem_sink_init, ...) and is built with every ucov cc
# mode, by gcc and clang: it links, runs its own functions, and is measured.
# Usage: symbols.sh UCOV SRCDIR WORKDIR LIBDIR [SANITIZE [CC]]
set -u
UCOV=$1 SRC=$2 WORK=$3 LIBDIR=$4 SAN=${5:-} RTCC=${6:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
allowed='^(ucov_|__sanitizer_cov_|__cyg_profile_|__gcov_|llvm_gcov_|llvm_gcda_|__llvm_profile_|__llvm_prf_)'
# The linker's own marks in a shared object (its version nodes too), and what
# sanitizers add.
linker='^(_init|_fini|_edata|_end|__bss_start|UCOV_0|UCOV_PRIVATE_0|__odr_asan[._].*|__asan_.*|__tsan_.*|__ubsan_.*)$'
for lib in libucov.a libucov.so; do
  [ -e "$LIBDIR/$lib" ] || { fail "$lib not in $LIBDIR"; continue; }
  other=$(nm -g --defined-only "$LIBDIR/$lib" 2>/dev/null | awk 'NF >= 3 { print $3 }' |
    sed 's/@.*//' | grep -Ev "$allowed" | grep -Ev "$linker" | sort -u | tr '\n' ' ')
  [ -z "$other" ] && pass "$lib defines names outside ucov_ and the ABI: $other" || fail "$lib defines names outside ucov_ and the ABI: $other"
  # and it defines the runtime at all (the filter would pass an empty file)
  nm -g --defined-only "$LIBDIR/$lib" 2>/dev/null | grep -q ' T ucov_open$' && pass "$lib defines ucov_open" ||
    fail "$lib defines ucov_open"
done

export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  # Sanitizer builds link the runtime's compiler only: one sanitizer runtime.
  [ -n "$SAN" ] && [ -n "$RTCC" ] && [ "$cc" != "$RTCC" ] && continue
  modes=(--trace --ext --unique --gcov)
  [ $cc = clang ] && modes+=(--pgo)
  for mode in "${modes[@]}"; do
    out=names-$cc${mode#-}
    if ! CC=$cc "$UCOV" cc "$mode" -O1 -pthread "${SANFLAGS[@]}" -I"$SRC/include" \
      "$SRC/tests/e2e/names.c" -o "$out" 2>"$out.err"; then
      fail "$cc $mode: a program defining parse_pid, ctl_open, mem_sink_init links ($(head -3 "$out.err"))"
      continue
    fi
    pass "$cc $mode: a program defining parse_pid, ctl_open, mem_sink_init links"
    rm -rf "$out.d" && mkdir "$out.d"
    case $mode in
    --gcov) got=$(cd "$out.d" && GCOV_PREFIX=$PWD "../$out") ;;
    --pgo) got=$(cd "$out.d" && LLVM_PROFILE_FILE=$PWD/p.profraw "../$out") ;;
    *) got=$(cd "$out.d" && UCOV_TRACE_SELF=1 "../$out") ;;
    esac
    grep -qx "own 600" <<<"$got" && pass "$cc $mode: runs its own functions ($got)" || fail "$cc $mode: runs its own functions ($got)"
    case $mode in
    --gcov) [ -n "$(find "$out.d" -name '*.gcda')" ] && pass "$cc $mode: wrote its .gcda" || fail "$cc $mode: wrote its .gcda" ;;
    --pgo) [ -s "$out.d/p.profraw" ] && pass "$cc $mode: wrote its profile" || fail "$cc $mode: wrote its profile" ;;
    *) n=$(sed -n 's/^pcs //p' <<<"$got")
       [ "${n:-0}" -gt 0 ] && pass "$cc $mode: traced itself (${n:-no} PCs)" || fail "$cc $mode: traced itself (${n:-no} PCs)" ;;
    esac
  done
done

finish symbols
