#!/usr/bin/env bash
# The whole test suite: the lint (clang-format, shellcheck), then gcc and clang
# builds, then ASan+UBSan and TSan builds, each configured, built and run with
# CTest. Exits non-zero if any fails. CI runs it so.
#   --fast  the development loop: the lint and the gcc build alone, without
#           the tests labelled slow or kernel (tests/CMakeLists.txt): about
#           2 minutes on 2 cores once built
set -euo pipefail
cd "$(dirname "$0")/.."
fast=
case "${1:-}" in
--fast) fast=1 ;;
"") ;;
*)
  echo "usage: scripts/check.sh [--fast]" >&2
  exit 2
  ;;
esac
# /dev/null must stay a character device: a guard watches it for the whole run
# (installing included) and records who replaced it, if anything does.
guard_log=$(mktemp)
bash scripts/devnull_guard.sh "$guard_log" &
guard=$!
trap 'kill $guard 2>/dev/null' EXIT
bash scripts/deps.sh

JOBS=${JOBS:-2}
# name:compiler:sanitizers:build type (gcc at -O3 too: it warns about more there)
configs=(
  "gcc:gcc::Release"
  "clang:clang::RelWithDebInfo"
  "asan-ubsan:gcc:address,undefined:RelWithDebInfo"
  "tsan:clang:thread:RelWithDebInfo"
)
ctest_args=()
if [ -n "$fast" ]; then
  configs=("gcc:gcc::Release")
  ctest_args=(-LE 'slow|kernel')
fi
failed=()
bash scripts/lint.sh || failed+=("lint")
for cfg in "${configs[@]}"; do
  IFS=: read -r name cc san type <<<"$cfg"
  dir=build/check-$name
  echo "=== $name (CC=$cc${san:+, -fsanitize=$san})"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_C_COMPILER="$cc" -DUCOV_SANITIZE="$san" \
    -DCMAKE_BUILD_TYPE="$type" >/dev/null
  if ! cmake --build "$dir" -j "$JOBS"; then
    failed+=("$name (build)")
    continue
  fi
  if ! ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    TSAN_OPTIONS=halt_on_error=1:die_after_fork=0 ctest --test-dir "$dir" -j "$JOBS" --timeout 600 \
    --output-on-failure "${ctest_args[@]}"; then
    failed+=("$name")
  fi
done
sleep 0.2
if [ -s "$guard_log" ] || [ ! -c /dev/null ]; then
  echo "/dev/null was replaced during the run; the processes running then:"
  cat "$guard_log"
  failed+=("/dev/null")
fi
if [ ${#failed[@]} -ne 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all configurations passed"
