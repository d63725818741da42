#!/usr/bin/env bash
# pull_run.sh [ROUNDS] [[NAME=]UCOV...]: the time of `ucov pull` of one KCOV
# trace object of 16 to 256 MiB from a running target, and the page faults it
# costs the target, for each ucov given (default: this build's; another
# checkout's build is the anchor), the sizes and ucovs interleaved round by
# round. Writes RESULTS-pull.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-15}
shift || true
# shellcheck source=bench/ucov_builds.sh
. "$here/ucov_builds.sh"
bench_ucovs "$root" "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"; kill $(jobs -p) 2>/dev/null || true' EXIT
export UCOV_RUNTIME_DIR=$work/rt
sizes=(16 32 64 128 256) # MiB
declare -A pid in
for u in "${!ucovs[@]}"; do
  CC=gcc "${ucovs[$u]}" cc --trace -O1 -I"$root/include" "$here/bigtrace.c" -o "$work/big$u"
  for mib in "${sizes[@]}"; do
    exec {fd}> >(exec "$work/big$u" $((mib * 131072)) >"$work/ready-$u-$mib")
    # shellcheck disable=SC2034 # held so that the pipe stays open
    in[$u-$mib]=$fd
    for _ in $(seq 600); do [ -s "$work/ready-$u-$mib" ] && break; sleep 0.05; done
    pid[$u-$mib]=$(pgrep -n -f "$work/big$u $((mib * 131072))")
  done
done
minflt() { awk '{ print $10 }' "/proc/$1/stat"; }
raw=$work/raw
for _ in $(seq "$rounds"); do
  for mib in "${sizes[@]}"; do
    for u in "${!ucovs[@]}"; do
      p=${pid[$u-$mib]}
      f0=$(minflt "$p")
      t0=$(date +%s%N)
      "${ucovs[$u]}" pull --pid "$p" -o "$work/out" kcov/1.kcov 2>/dev/null
      t1=$(date +%s%N)
      echo "$u $mib $(((t1 - t0) / 1000)) $(($(minflt "$p") - f0))" >>"$raw"
      rm -rf "$work/out"
    done
  done
done
{
  echo "# ucov pull of one KCOV trace object"
  echo
  echo "$(date -u +%F), $(nproc) cores, $(uname -r); $rounds rounds, sizes and builds interleaved."
  echo "Wall time of a whole \`ucov pull --pid N kcov/1.kcov\` (the command, connection and file"
  echo "included) and minor page faults of the target per pull."
  echo
  echo "| build | MiB | min ms | median ms | ms per MiB (median) | target faults (median) |"
  echo "|---|---|---|---|---|---|"
  for u in "${!ucovs[@]}"; do
    for mib in "${sizes[@]}"; do
      ts=$(awk -v u="$u" -v m="$mib" '$1 == u && $2 == m { print $3 }' "$raw" | sort -n)
      fs=$(awk -v u="$u" -v m="$mib" '$1 == u && $2 == m { print $4 }' "$raw" | sort -n)
      n=$(echo "$ts" | wc -l)
      tmin=$(echo "$ts" | head -1)
      tmed=$(echo "$ts" | sed -n "$(((n + 1) / 2))p")
      fmed=$(echo "$fs" | sed -n "$(((n + 1) / 2))p")
      awk -v name="${names[$u]}" -v m="$mib" -v a="$tmin" -v b="$tmed" -v f="$fmed" 'BEGIN {
        printf "| %s | %d | %.1f | %.1f | %.2f | %d |\n", name, m, a / 1000, b / 1000, b / 1000 / m, f }'
    done
  done
} >"$here/RESULTS-pull.md"
cat "$here/RESULTS-pull.md"
