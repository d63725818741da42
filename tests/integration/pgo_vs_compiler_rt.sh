#!/usr/bin/env bash
# clang -fprofile-instr-generate: ucov's raw profiles against compiler-rt's for
# the same objects and runs (llvm-profdata and llvm-cov must read the same
# counts), LLVM_PROFILE_FILE, and the live object pgo/<program>.profraw.
# Usage: pgo_vs_compiler_rt.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
command -v clang >/dev/null && command -v llvm-profdata >/dev/null || {
  echo "skip: clang or llvm-profdata missing"
  exit 0
}
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
R1='GET / HTTP/1.1\r\nHost: a\r\n\r\n'
R2='POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n'
PGO=(-O1 -fprofile-instr-generate -fcoverage-mapping)
# Every clang present with its own llvm-profdata and llvm-cov (clang 14, 16
# and 19 here: raw profile versions 8 and 10).
for v in "" -16 -19; do
  CLANG=clang$v PROFDATA=llvm-profdata$v LLVMCOV=llvm-cov$v
  command -v $CLANG >/dev/null && command -v $PROFDATA >/dev/null || {
    echo "skip $CLANG: not installed"
    continue
  }
  mkdir -p "c$v" && cd "c$v" || exit 1
  $CLANG "${PGO[@]}" "${SANFLAGS[@]}" -c "$SRC/examples/demo/httpreq.c" -o httpreq.o
  $CLANG "${PGO[@]}" "${SANFLAGS[@]}" -c "$SRC/tests/integration/gcov_main.c" -o main.o
  $CLANG -fprofile-instr-generate "${SANFLAGS[@]}" httpreq.o main.o -o prog_rt
  CC=$CLANG "$UCOV" cc --pgo "${SANFLAGS[@]}" httpreq.o main.o -o prog_ucov
  ! nm prog_ucov | grep -q 'lprofWriteData\|__llvm_profile_initialize' && pass "$CLANG: compiler-rt's profile runtime is not linked" ||
    fail "$CLANG: compiler-rt's profile runtime is not linked"
  LLVM_PROFILE_FILE=rt.profraw ./prog_rt "$R1" "$R2" "$R1" >/dev/null
  LLVM_PROFILE_FILE=ucov.profraw ./prog_ucov "$R1" "$R2" "$R1" >/dev/null
  $PROFDATA merge -o rt.profdata rt.profraw && $PROFDATA merge -o ucov.profdata ucov.profraw &&
    pass "$CLANG: llvm-profdata merge accepts the raw profile" || fail "$CLANG: llvm-profdata merge accepts the raw profile"
  $PROFDATA show --all-functions --counts rt.profdata >rt.show
  $PROFDATA show --all-functions --counts ucov.profdata >ucov.show
  cmp -s rt.show ucov.show && grep -q 'http_parse' ucov.show && pass "$CLANG: the same functions, hashes and counts as compiler-rt's" ||
    fail "$CLANG: the same functions, hashes and counts as compiler-rt's"
  $LLVMCOV report ./prog_rt -instr-profile=rt.profdata | sed 's/prog_rt//' >rt.report
  $LLVMCOV report ./prog_ucov -instr-profile=ucov.profdata | sed 's/prog_ucov//' >ucov.report
  cmp -s rt.report ucov.report && grep -q 'httpreq.c' ucov.report && pass "$CLANG: llvm-cov report equals compiler-rt's" ||
    fail "$CLANG: llvm-cov report equals compiler-rt's"
  # compiler-rt's API: set_filename, reset_counters, dump (nothing more at exit).
  cat >api.c <<'C'
int __llvm_profile_dump(void);
void __llvm_profile_reset_counters(void);
void __llvm_profile_set_filename(const char *);
__attribute__((noinline)) int before(int x) { return x * 3; }
__attribute__((noinline)) int after(int x) { return x + 1; }
int main(int argc, char **argv) {
  (void)argv;
  int s = 0;
  __llvm_profile_set_filename(argc > 1 ? "api-ucov.profraw" : "api-rt.profraw");
  for (int i = 0; i < 5; i++) s += before(i);
  __llvm_profile_reset_counters();
  for (int i = 0; i < 7; i++) s += after(i);
  __llvm_profile_dump();
  for (int i = 0; i < 9; i++) s += after(i);
  return s & 0;
}
C
  $CLANG "${PGO[@]}" "${SANFLAGS[@]}" -c api.c -o api.o
  $CLANG -fprofile-instr-generate "${SANFLAGS[@]}" api.o -o api_rt
  CC=$CLANG "$UCOV" cc --pgo "${SANFLAGS[@]}" api.o -o api_ucov
  ./api_rt && ./api_ucov x
  $PROFDATA merge -o a-rt.profdata api-rt.profraw && $PROFDATA merge -o a-u.profdata api-ucov.profraw &&
    $PROFDATA show --all-functions --counts a-rt.profdata >a-rt.show &&
    $PROFDATA show --all-functions --counts a-u.profdata >a-u.show && cmp -s a-rt.show a-u.show &&
    grep -A3 'after' a-u.show | grep -q 'Function count: 7' && pass "$CLANG: __llvm_profile_set_filename/reset_counters/dump as compiler-rt" ||
    fail "$CLANG: __llvm_profile_set_filename/reset_counters/dump as compiler-rt"
  cd .. || exit 1
done
cd c || exit 1
LLVM_PROFILE_FILE=run-%p.profraw ./prog_ucov "$R1" >/dev/null
ls run-[0-9]*.profraw >/dev/null 2>&1 && pass "LLVM_PROFILE_FILE %p" || fail "LLVM_PROFILE_FILE %p"
(mkdir -p sub && cd sub && ../prog_ucov "$R1" >/dev/null && [ -s default.profraw ]) &&
  pass "default.profraw" || fail "default.profraw"
# %m: runs merge into one pool file; a corrupt or truncated pool is replaced, with a message.
parse_count() { llvm-profdata merge -o pool.profdata "$1" 2>/dev/null &&
  llvm-profdata show --function=http_parse --counts pool.profdata | sed -n 's/.*Function count: //p'; }
mkdir -p pool && (cd pool && for _ in 1 2 3; do LLVM_PROFILE_FILE=p-%m.profraw ../prog_ucov "$R1" >/dev/null; done)
[ "$(find pool -mindepth 1 -maxdepth 1 | wc -l)" = 1 ] && [ "$(parse_count pool/p-*.profraw)" = 3 ] && pass "%m: three runs merged in one pool file" ||
  fail "%m: three runs merged in one pool file"
pf=$(ls pool/p-*.profraw)
truncate -s 50 "$pf"
(cd pool && LLVM_PROFILE_FILE=p-%m.profraw ../prog_ucov "$R1" >/dev/null 2>../err.txt)
grep -q 'not a profile of this program' err.txt && [ "$(parse_count "$pf")" = 1 ] && pass "%m: a truncated pool file is replaced, with a message" ||
  fail "%m: a truncated pool file is replaced, with a message"
printf 'garbage' >"$pf"
(cd pool && LLVM_PROFILE_FILE=p-%m.profraw ../prog_ucov "$R1" >/dev/null 2>/dev/null)
[ "$(parse_count "$pf")" = 1 ] && pass "%m: a corrupt pool file is replaced" || fail "%m: a corrupt pool file is replaced"
cd .. || exit 1

# Live: pgo/<program>.profraw, reset, only the second phase.
CC=clang "$UCOV" cc --pgo -O0 "${SANFLAGS[@]}" -c "$SRC/examples/daemon/kvd.c" -o kvd.o
CC=clang "$UCOV" cc --pgo "${SANFLAGS[@]}" kvd.o -o kvd
gcc -O1 "$SRC/examples/daemon/kvd.c" -o client
export UCOV_RUNTIME_DIR=$WORK/rt
./kvd kvd.sock &
pid=$!
for _ in $(seq 200); do [ -S kvd.sock ] && [ -S "rt/$pid.sock" ] && break; sleep 0.02; done
./client --client kvd.sock "SET a 1" "GET a" >/dev/null
"$UCOV" ls --pid $pid | grep -qP '^\d+\tpgo/kvd.profraw$' && pass "ls shows pgo/kvd.profraw" || fail "ls shows pgo/kvd.profraw"
"$UCOV" reset --pid $pid pgo/kvd.profraw && pass "reset pgo/kvd.profraw" || fail "reset pgo/kvd.profraw"
./client --client kvd.sock "DEL a" "DEL b" >/dev/null
"$UCOV" pull --pid $pid -o L pgo/kvd.profraw 2>/dev/null
"$UCOV" pull --pid $pid -o LA >/dev/null 2>&1
kill $pid
wait $pid
llvm-profdata merge -o live.profdata L/pgo/kvd.profraw &&
  llvm-profdata show --function=cmd_del --counts live.profdata | grep -q 'Function count: 2' &&
  llvm-profdata show --function=cmd_set --counts live.profdata | grep -q 'Function count: 0' &&
  pass "live pull after reset: only the second phase" || fail "live pull after reset: only the second phase"
# ucov report of the whole pulled tree: the program is the module map's first module.
"$UCOV" report LA --lcov la.info 2>la.err && grep -q "^SF:$SRC/examples/daemon/kvd.c$" la.info &&
  grep -q '^FNDA:2,\(kvd.c:\)\?cmd_del$' la.info && pass "report of a pulled tree with a profile" || fail "report of a pulled tree with a profile: $(head -2 la.err)"
finish pgo
