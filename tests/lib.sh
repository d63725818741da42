# shellcheck shell=bash
# Helpers for the shell tests: counted checks and the sanitizer flags.
# Source it, then call pass NAME / fail NAME (or expect NAME CMD...), NAME
# the behaviour the check proves, and finish with `finish NAME`. Each check
# prints "ok N - NAME" or "not ok N - NAME", as the kernel's selftests do,
# so that a failing run says which behaviour broke.
fails=0 checks=0
pass() {
  checks=$((checks + 1))
  if [ $# -gt 0 ]; then echo "ok $checks - $*"; fi
  return 0
}
fail() {
  checks=$((checks + 1)) fails=$((fails + 1))
  echo "not ok $checks - $*"
  echo "FAIL: $*" >&2
}
expect() { # expect DESCRIPTION COMMAND...: the command must succeed
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
# SANFLAGS: -fsanitize=$1 for everything the test compiles, when set.
# shellcheck disable=SC2034 # used by the scripts that source this file
sanflags() {
  SANFLAGS=()
  [ -n "${1:-}" ] && SANFLAGS=(-fsanitize="$1")
}
# fnda INFO FUNC: the function's hit count in an lcov file (empty if absent;
# llvm-cov names a static function FILE:FUNC).
fnda() { sed -n "s/^FNDA:\([0-9]*\),\([a-z_]*\.c:\)\?$2\$/\1/p" "$1" | head -1; }
# counted INFO FUNC: the function ran (a count above 0).
counted() { local n; n=$(fnda "$1" "$2"); [ -n "$n" ] && [ "$n" -gt 0 ]; }
# wait_sock PATH: until a socket is there (5 s at most).
# An AFL++ campaign's live pulls (afl.sh, aflserver.sh): afl_live_pulls UCOV
# AFL_PID OBJECT_RE TO finds the fork server of afl-fuzz AFL_PID (./target)
# once it serves an object matching OBJECT_RE (its pid in fs), pulls it twice,
# two seconds apart, into TO-p1 and TO-p2, and reports them (./target as the
# binary) to p1.info and p2.info.
afl_live_pulls() {
  local tool=$1 afl=$2 obj=$3 to=$4
  fs=
  for _ in $(seq 100); do
    fs=$(pgrep -P "$afl" -x target | head -1)
    [ -n "$fs" ] && "$tool" ls --pid "$fs" 2>/dev/null | grep -q "$obj" && break
    sleep 0.1
  done
  sleep 2
  "$tool" pull --pid "$fs" -o "$to-p1" >/dev/null 2>&1 && sleep 2 &&
    "$tool" pull --pid "$fs" -o "$to-p2" >/dev/null 2>&1 &&
    "$tool" report "$to-p1" --binary ./target --lcov p1.info 2>/dev/null &&
    "$tool" report "$to-p2" --binary ./target --lcov p2.info 2>/dev/null
}
# afl_wait_keeper: the campaign's keeper (./target) has written and gone.
afl_wait_keeper() { for _ in $(seq 100); do pgrep -x target >/dev/null || break; sleep 0.1; done; }
wait_sock() { for _ in $(seq 250); do [ -S "$1" ] && return 0; sleep 0.02; done; return 1; }
# target_start EXITDIR CMD...: a ucov target in the background, its exit
# files in EXITDIR (UCOV_EXIT_DIR), reading a pipe that target_stop closes
# (a "linger" target stays until then); pid is its pid, and it returns once
# the target's control socket is up in $UCOV_RUNTIME_DIR.
target_start() {
  local exitdir=$1
  shift
  exec {target_in}> >(UCOV_EXIT_DIR=$exitdir exec "$@")
  pid=$!
  wait_sock "$UCOV_RUNTIME_DIR/$pid.sock"
}
# target_stop: close the target's input, and wait until it has exited.
target_stop() {
  exec {target_in}>&-
  while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
}
# fresh_workdir: an empty $WORK, entered, its path made physical.
fresh_workdir() {
  rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
  WORK=$(pwd -P)
}
# fault_setup NAME: for the fault-injection tests (strace -e inject): skip
# (a pass) where strace cannot trace, else a runtime directory and ./hammer
# (tests/integration/gcov_hammer.c, exact counts) built in $WORK.
fault_setup() {
  if ! command -v strace >/dev/null || ! strace -qq -o /dev/null true 2>/dev/null; then
    echo "$1: skipped, strace cannot trace here"
    finish "$1"
    exit
  fi
  export UCOV_RUNTIME_DIR=$WORK/rt
  CC=gcc "$UCOV" cc --gcov -O1 -pthread -fprofile-update=atomic "${SANFLAGS[@]}" \
    "$SRC/tests/integration/gcov_hammer.c" -o hammer || exit 1
}
# guest_ucov UCOV IR: the ucov command into an initramfs tree IR, with the
# libraries it loads, where it finds them.
guest_ucov() {
  local lib
  cp "$1" "$2/bin/ucov" || return 1
  for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
    mkdir -p "$2$(dirname "$lib")" && cp -L "$lib" "$2$lib" || return 1
  done
}
finish() {
  echo "$1: $checks checks, $fails failed"
  [ "$fails" -eq 0 ]
}
# need_chromium: BROWSER set to headless Chromium, or the test skipped (exit 0).
need_chromium() {
  BROWSER=$(command -v chromium || command -v chromium-browser || true)
  if [ -z "$BROWSER" ]; then
    echo "skip: chromium not installed"
    exit 0
  fi
}
# headless ARGS... URL: Chromium run once on URL with a profile of its own
# under $WORK (a browser of the call before may still hold the last one's
# lock) and nothing in the background; the page gets 10 s of virtual time.
headless() {
  timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$(mktemp -d "$WORK/chromium.XXXXXX")" --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --disable-quic --disable-breakpad \
    --window-size=1200,900 --virtual-time-budget=10000 "$@" 2>/dev/null
}
