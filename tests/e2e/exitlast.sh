#!/usr/bin/env bash
# The exit write comes last: no count made before the process ends is
# missed, whatever order its constructors, atexit and __cxa_atexit
# registrations ran in. exitlast/late.cc: f() 6 times (main, a global
# constructed before the runtime, a later global, exit handlers registered
# early and late, a destructor); exitlast/lib.cc: lib_g() 3 times, two of
# them in the library's own unload; exitlast/cexit.c: the C forms, f() 4.
# gcc's --gcov against libgcov (g++ --coverage), clang's --gcov against
# compiler-rt's (llvm-cov gcov), clang's --pgo against the program's own
# count (compiler-rt's profile runtime writes from an exit handler and
# misses some: printed, not asserted); the runtime in the program
# (libucov.a), and in libucov.so for a program built without ucov.
# Usage: exitlast.sh UCOV SRCDIR WORKDIR [SANITIZE [CC]]
# (a sanitizer build tests only CC's builds, the runtime's compiler: one
# sanitizer runtime per process)
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-} RTCC=$(basename "${5:-gcc}")
[ "$RTCC" = cc ] && RTCC=gcc
compilers=(gcc clang)
[ -n "$SAN" ] && compilers=("$RTCC")
. "$SRC/tests/lib.sh"
sanflags "$SAN"
fresh_workdir
export UCOV_CONTROL=0
E=$SRC/tests/e2e/exitlast
# opening TOOL GCDA FUNC: gcov's count of the line that opens FUNC.
opening() {
  if [ "$1" = gcov ]; then gcov -t "$2"; else llvm-cov gcov -t "$2"; fi 2>/dev/null |
    sed -n "s/^ *\([0-9#-]*\): *[0-9]*:.*int $3(int x) {\$/\1/p"
}
# build DIR CC CXX...: in DIR, lib.so and late (C++) with the C++ driver
# CXX..., cexit (C) with CC.
build() {
  local d=$1 cc=$2
  shift 2
  mkdir -p "$d" && (cd "$d" &&
    "$@" -O1 -fPIC -shared "$E/lib.cc" -o lib.so &&
    "$@" -O1 -DWITH_LIB "$E/late.cc" ./lib.so -o late -Wl,-rpath,"\$ORIGIN" &&
    $cc -O1 "$E/cexit.c" -o cexit && ./late && LLVM_PROFILE_FILE=c.profraw ./cexit) >"$d.log" 2>&1 ||
    fail "$d: build and run: $(tail -3 "$d.log")"
}
# counts DIR TOOL PREFIX: f in late, lib_g in lib, f in cexit, as gcov reads
# the .gcda files (PREFIX: gcc's "<output>-" before the name of a unit linked
# with other inputs).
counts() {
  local p=${3:+yes}
  echo "$(opening "$2" "$1/${p:+late-}late.gcda" f) $(opening "$2" "$1/${p:+lib.so-}lib.gcda" lib_g)" \
    "$(opening "$2" "$1/cexit.gcda" f)"
}

for cc in "${compilers[@]}"; do
  if [ "$cc" = clang ] && ! command -v clang++ >/dev/null; then
    fail "clang++ is not installed (scripts/deps.sh installs it)"
    continue
  fi
  cxx=g++ tool=gcov prefix=1
  [ "$cc" = clang ] && cxx=clang++ tool=llvm-cov prefix=
  build ref-"$cc" "$cc --coverage" "$cxx" --coverage
  build ucov-"$cc" "$UCOV cc --cc $cc --gcov ${SANFLAGS[*]}" "$UCOV" c++ --cc "$cc" --gcov "${SANFLAGS[@]}"
  ref=$(counts ref-"$cc" "$tool" "$prefix") got=$(counts ucov-"$cc" "$tool" "$prefix")
  [ "$ref" = "6 3 4" ] && pass "$cc: its own runtime counts every call (6 3 4)" ||
    fail "$cc: its own runtime counts '$ref', not 6 3 4"
  [ "$got" = "$ref" ] && pass "$cc --gcov: ucov counts as $cxx --coverage does ($got)" ||
    fail "$cc --gcov: ucov counts '$got', $cxx --coverage '$ref'"
done

# clang's LLVM profiles: the program's own count; compiler-rt's for the record.
# fcount PROFRAW FUNC: llvm-profdata's entry count of FUNC, the file merged
# (profiles appended to one file add up).
fcount() {
  llvm-profdata merge -o "$1.profdata" "$1" 2>/dev/null &&
    llvm-profdata show --counts --all-functions "$1.profdata" 2>/dev/null |
    awk -v f="$2:" '$1 == f { found = 1 } found && $1 == "Function" { print $3; exit }'
}
pgo_counts() {
  echo "$(fcount "$1/p.profraw" _Z1fi) $(fcount "$1/p.profraw" _Z5lib_gi) $(fcount "$1/c.profraw" f)"
}
export LLVM_PROFILE_FILE=p.profraw
if [[ " ${compilers[*]} " == *" clang "* ]]; then
  build pgo-ref "clang -fprofile-instr-generate" clang++ -fprofile-instr-generate
  build pgo-ucov "$UCOV cc --cc clang --pgo ${SANFLAGS[*]}" "$UCOV" c++ --cc clang --pgo "${SANFLAGS[@]}"
  echo "compiler-rt's profile runtime counts f, lib_g, C f: $(pgo_counts pgo-ref)"
  got=$(pgo_counts pgo-ucov)
  [ "$got" = "6 3 4" ] && pass "clang --pgo: ucov's profile counts every call (6 3 4)" ||
    fail "clang --pgo: ucov's profile counts '$got', not 6 3 4"
fi

# The runtime in libucov.so: a program built without ucov, its library with
# it (gcc: its gcov; clang: its gcov and its profile).
kinds=(gcov) cxx=g++ tool=gcov gcda=lib.so-lib.gcda
[ "${compilers[-1]}" = clang ] && kinds=(gcov pgo) cxx=clang++ tool=llvm-cov gcda=lib.gcda
for kind in "${kinds[@]}"; do
  d=shared-"$kind"
  mkdir -p "$d" && (cd "$d" &&
    "$UCOV" c++ --cc "${compilers[-1]}" --"$kind" "${SANFLAGS[@]}" -O1 -fPIC -shared "$E/lib.cc" -o lib.so &&
    "$cxx" "${SANFLAGS[@]}" -O1 -DWITH_LIB "$E/late.cc" ./lib.so -o late -Wl,-rpath,"\$ORIGIN" &&
    ./late) >"$d.log" 2>&1 || fail "$d: build and run: $(tail -3 "$d.log")"
  if [ "$kind" = gcov ]; then got=$(opening "$tool" "$d/$gcda" lib_g); else got=$(fcount "$d/p.profraw" _Z5lib_gi); fi
  [ "$got" = 3 ] && pass "$kind, the runtime in libucov.so: the library's 3 calls" ||
    fail "$kind, the runtime in libucov.so: the library's calls '$got', not 3"
done
finish exitlast
