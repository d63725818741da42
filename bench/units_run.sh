#!/usr/bin/env bash
# units_run.sh [ROUNDS] [[NAME=]UCOV...]: the control plane at scale. For each
# ucov given (default: this build's; another checkout's build is the anchor)
# a live target of N gcov units (many_units.c: one small function each,
# registered as N translation units would be, linked with that ucov's
# runtime), N = 1,000, 4,000, 20,000 and 100,000; then `ucov ls`, `ucov
# pull`, `ucov pull --reset` and `ucov collect --once` (into a new SQLite
# store) of it, each build and size in turn, round by round. Wall time of the whole command; the client's peak RSS; the target's
# peak RSS after all rounds. A command that runs past LIMIT seconds (default
# 120) is stopped and said so, and that build is not run at larger sizes.
# Writes its section of RESULTS-pull.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-3}
shift || true
LIMIT=${LIMIT:-120}
# shellcheck source=bench/ucov_builds.sh
. "$here/ucov_builds.sh"
bench_ucovs "$root" "$@"
read -r -a sizes <<<"${SIZES:-1000 4000 20000 100000}"
# Everything (the pulls, the collect's waiting room and store) on a tmpfs where
# there is one: the disk's own time to create thousands of files varies
# several times over between runs, which is not what is measured.
work=$(mktemp -d -p /dev/shm 2>/dev/null) || work=$(mktemp -d)
mkdir -m 700 "$work/collect"
export UCOV_COLLECT_DIR=$work/collect
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
export UCOV_RUNTIME_DIR=$work/rt
gcc -O1 --coverage -fprofile-info-section=many_units_info -I"$root/include" -c "$here/many_units.c" -o "$work/mu.o"
for u in "${!ucovs[@]}"; do
  "${ucovs[$u]}" cc --gcov "$work/mu.o" -o "$work/mu$u"
done
raw=$work/raw
: >"$raw"
declare -A stopped
# timed U N WHAT CMD...: one run; its wall ms and the client's peak KiB into raw.
timed() {
  local u=$1 n=$2 what=$3
  shift 3
  [ -z "${stopped[$u]:-}" ] || return 0
  local t0 t1 kib
  t0=$(date +%s%N)
  if timeout "$LIMIT" /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>&1; then
    t1=$(date +%s%N)
    kib=$(tail -1 "$work/rss")
    echo "$u $n $what $(((t1 - t0) / 1000)) $kib" >>"$raw"
  else
    echo "$u $n $what stopped 0" >>"$raw"
    stopped[$u]=$n
  fi
}
for n in "${sizes[@]}"; do
  declare -A pid=() hold=()
  # each unit's notes: this file's own (a collect pushes the units it pulls)
  python3 -c 'import os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
for i in range(n):
    os.symlink(sys.argv[3], f"{d}/u{i:07d}.gcno")' "$work/g$n" "$n" "$work/mu.gcno"
  for u in "${!ucovs[@]}"; do
    [ -z "${stopped[$u]:-}" ] || continue
    mkfifo "$work/hold-$u-$n"
    "$work/mu$u" "$n" "$work/g$n" <"$work/hold-$u-$n" >"$work/ready-$u-$n" &
    exec {fd}>"$work/hold-$u-$n"
    hold[$u]=$fd
    pid[$u]=$!
    t0=$(date +%s)
    until grep -q ready "$work/ready-$u-$n"; do
      if [ $(($(date +%s) - t0)) -gt "$LIMIT" ]; then
        echo "$u $n start stopped 0" >>"$raw"
        stopped[$u]=$n
        break
      fi
      sleep 0.05
    done
  done
  for _ in $(seq "$rounds"); do
    for u in "${!ucovs[@]}"; do
      [ -n "${pid[$u]:-}" ] && [ -z "${stopped[$u]:-}" ] || continue
      p=${pid[$u]}
      timed "$u" "$n" ls "${ucovs[$u]}" ls --pid "$p"
      timed "$u" "$n" pull "${ucovs[$u]}" pull --pid "$p" -o "$work/out"
      rm -rf "$work/out"
      timed "$u" "$n" reset "${ucovs[$u]}" pull --reset --pid "$p" -o "$work/out"
      rm -rf "$work/out"
      timed "$u" "$n" collect "${ucovs[$u]}" collect --pid "$p" --once --store "$work/s.db" --test t
      rm -f "$work/s.db"*
    done
  done
  for u in "${!pid[@]}"; do
    echo "$u $n target 0 $(awk '/VmHWM/ {print $2}' "/proc/${pid[$u]}/status")" >>"$raw"
    eval "exec ${hold[$u]}>&-"
  done
  for u in "${!pid[@]}"; do wait "${pid[$u]}" 2>/dev/null || true; done
  unset pid hold
done
section=$work/section
{
  echo "<!-- units_run.sh -->"
  echo "## A live target of N gcov units"
  echo
  echo "$(date -u +%F), $(nproc) cores, $(uname -r); $rounds rounds, builds interleaved (bench/units_run.sh)."
  echo "A target of N units (bench/many_units.c: one function of 4 arcs each); wall time of the"
  echo "whole command, minimum and median; the client's peak RSS (median) and the target's after"
  echo "all rounds. \"stopped\": past ${LIMIT} s. Files on $(df --output=fstype "$work" | tail -1) ($work)."
  echo
  echo "| build | units | ls ms | pull ms | pull --reset ms | collect --once ms | client MiB | target MiB |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for u in "${!ucovs[@]}"; do
    for n in "${sizes[@]}"; do
      grep -q "^$u $n " "$raw" || continue
      row="| ${names[$u]} | $n"
      for what in ls pull reset collect; do
        if grep -q "^$u $n \($what\|start\) stopped" "$raw"; then
          row="$row | stopped"
          continue
        fi
        ts=$(awk -v u="$u" -v n="$n" -v w="$what" '$1 == u && $2 == n && $3 == w { print $4 }' "$raw" | sort -n)
        c=$(echo "$ts" | grep -c . || true)
        [ "$c" -gt 0 ] || {
          row="$row | -"
          continue
        }
        row="$row | $(awk -v a="$(echo "$ts" | head -1)" -v b="$(echo "$ts" | sed -n "$(((c + 1) / 2))p")" 'BEGIN { printf "%.0f / %.0f", a / 1000, b / 1000 }')"
      done
      rss=$(awk -v u="$u" -v n="$n" '$1 == u && $2 == n && $3 != "target" && $4 != "stopped" { print $5 }' "$raw" | sort -n)
      c=$(echo "$rss" | grep -c . || true)
      tgt=$(awk -v u="$u" -v n="$n" '$1 == u && $2 == n && $3 == "target" { print $5 }' "$raw")
      row="$row | $(awk -v r="$(echo "$rss" | sed -n "$(((c + 1) / 2))p")" 'BEGIN { printf "%.1f", r / 1024 }') | $(awk -v r="${tgt:-0}" 'BEGIN { printf "%.1f", r / 1024 }') |"
      echo "$row"
    done
  done
  # The slope: k in time ~ units^k between successive sizes, from the minimums
  # (1.0: linear; 2.0: quadratic).
  echo
  echo "Slope k (time grows as units^k) between successive sizes, from the minimums:"
  echo
  printf '%s\n' "${names[@]}" >"$work/names"
  python3 - "$raw" "$work/names" <<'PY'
import math, sys
t = {}
for l in open(sys.argv[1]):
    u, n, what, us = l.split()[:4]
    if what in ("ls", "pull", "reset", "collect") and us != "stopped":
        k = (int(u), what, int(n))
        t[k] = min(t.get(k, float("inf")), int(us))
names = open(sys.argv[2]).read().splitlines()
print("| build | units | ls | pull | pull --reset | collect --once |")
print("|---|---|---:|---:|---:|---:|")
for u, name in enumerate(names):
    sizes = sorted({k[2] for k in t if k[0] == u})
    for a, b in zip(sizes, sizes[1:]):
        row = [f"{name}", f"{a:,} to {b:,}"]
        for what in ("ls", "pull", "reset", "collect"):
            x, y = t.get((u, what, a)), t.get((u, what, b))
            row.append(f"{math.log(y / x) / math.log(b / a):.2f}" if x and y else "-")
        print("| " + " | ".join(row) + " |")
PY
  echo "<!-- /units_run.sh -->"
} >"$section"
# Replace this script's section of RESULTS-pull.md (or append it).
python3 - "$here/RESULTS-pull.md" "$section" <<'PY'
import re, sys
path, sec = sys.argv[1], open(sys.argv[2]).read()
try:
    old = open(path).read()
except FileNotFoundError:
    old = ""
pat = re.compile(r"<!-- units_run.sh -->.*?<!-- /units_run.sh -->\n?", re.S)
new = pat.sub(lambda m: sec, old) if pat.search(old) else old.rstrip("\n") + "\n\n" + sec
open(path, "w").write(new)
PY
cat "$section"
