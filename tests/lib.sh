# Helpers for the shell tests: counted checks and the sanitizer flags.
# Source it, then call pass/fail (or expect), and finish with `finish NAME`.
fails=0 checks=0
pass() { checks=$((checks + 1)); }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }
expect() { # expect DESCRIPTION COMMAND...: the command must succeed
  local what=$1
  shift
  if "$@"; then pass; else fail "$what"; fi
}
# SANFLAGS: -fsanitize=$1 for everything the test compiles, when set.
sanflags() {
  SANFLAGS=()
  [ -n "${1:-}" ] && SANFLAGS=(-fsanitize="$1")
}
finish() {
  echo "$1: $checks checks, $fails failed"
  [ "$fails" -eq 0 ]
}
