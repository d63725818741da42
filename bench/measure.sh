# shellcheck shell=bash disable=SC2154 # ($work and $raw are the caller's)
# Sourced by the benchmarks: measure NAME COMMAND... runs COMMAND once and
# appends "NAME SECONDS PEAK_KIB" (GNU time) to $raw; a failure is said and
# not recorded. Needs $work (a scratch directory) and $raw.
measure() {
  local name=$1
  shift
  /usr/bin/time -f "$name %e %M" -o "$work/t.txt" "$@" >/dev/null 2>&1 || {
    echo "bench: $name failed" >&2
    return 0
  }
  cat "$work/t.txt" >>"$raw"
}
