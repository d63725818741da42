#!/usr/bin/env bash
# The control plane grows linearly with the number of objects: a live target
# of N gcov units (bench/many_units.c, linked with this build's runtime), for
# N = 1,000 and 8,000 in turn, round by round; `ucov ls`, `ucov pull`,
# `ucov pull --reset` and (with FUSE) cp -a of `ucov mount` of each. Each result is checked (every unit listed and
# pulled, the counts, a reset's zeroes), and the time of the larger against
# the smaller, the best of three rounds each: 8 times the units must cost at
# most 24 times the time (linear: about 8; the quadratic listing and pulls
# this replaced: 40 to 64). A bound relative to a baseline of the same run,
# never a wall-clock bound.
# Usage: scale.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$(cd "$2" && pwd) WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
gcc -O1 --coverage -fprofile-info-section=many_units_info "${SANFLAGS[@]}" -I"$SRC/include" \
  -c "$SRC/bench/many_units.c" -o mu.o && CC=gcc "$UCOV" cc --gcov "${SANFLAGS[@]}" mu.o -o mu ||
  {
    fail "the target of many units builds"
    finish scale
    exit 1
  }
# The pulled trees go to a tmpfs where there is one: the disk's own time to
# create thousands of files varies several times over between runs (0.5 to
# 4 s for 20,000 here), which is not what is measured.
OUT=$(mktemp -d -p /dev/shm ucov-scale.XXXXXX 2>/dev/null) || OUT=$WORK/out
mkdir -p "$OUT"
trap 'rm -rf "$OUT"' EXIT
SMALL=1000 LARGE=8000
declare -A pid hold
for n in $SMALL $LARGE; do
  mkfifo "hold-$n"
  ./mu "$n" "$WORK/g$n" <"hold-$n" >"ready-$n" &
  pid[$n]=$!
  exec {fd}>"hold-$n"
  hold[$n]=$fd
done
for n in $SMALL $LARGE; do
  for _ in $(seq 1200); do grep -q ready "ready-$n" && [ -S "rt/${pid[$n]}.sock" ] && break; sleep 0.05; done
done
# us CMD...: the command's wall time in microseconds on stdout (its output to last.out).
us() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >last.out 2>&1 || echo "failed: $*" >>failures.txt
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000))
}
: >failures.txt
declare -A best
keep() { # KEY US: the smallest
  [ -z "${best[$1]:-}" ] || [ "$2" -lt "${best[$1]}" ] && best[$1]=$2
  return 0
}
for round in 1 2 3; do
  for n in $SMALL $LARGE; do
    p=${pid[$n]}
    keep "ls $n" "$(us "$UCOV" ls --pid "$p")"
    [ "$round" = 1 ] && cp last.out "ls-$n.txt"
    rm -rf "$OUT/P$n"
    keep "pull $n" "$(us "$UCOV" pull --pid "$p" -o "$OUT/P$n")"
    [ "$round" = 1 ] && cp -r "$OUT/P$n" "$OUT/first-P$n"
    rm -rf "$OUT/R$n"
    keep "reset $n" "$(us "$UCOV" pull --reset --pid "$p" -o "$OUT/R$n")"
    [ "$round" = 1 ] && cp -r "$OUT/R$n" "$OUT/first-R$n"
  done
done
# ucov mount: cp -a of the whole mount (each file listed, sized, read).
if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null && ! "$UCOV" mount --help 2>&1 | grep -q 'built without FUSE'; then
  for round in 1 2 3; do
    for n in $SMALL $LARGE; do
      mkdir -p "mnt$n" && "$UCOV" mount --pid "${pid[$n]}" -f "mnt$n" 2>"mount$n.err" &
      m=$!
      for _ in $(seq 200); do [ -e "mnt$n/modules" ] && break; sleep 0.05; done
      rm -rf "$OUT/copy$n"
      keep "mount $n" "$(us cp -a "mnt$n/." "$OUT/copy$n/")"
      fusermount3 -u "mnt$n"
      wait $m
    done
  done
  for n in $SMALL $LARGE; do
    [ "$(find "$OUT/copy$n" -name 'u*.gcda' | wc -l)" = "$n" ] && pass "cp -a of the mount copies all $n units" ||
      fail "cp -a of the mount copies $(find "$OUT/copy$n" -name 'u*.gcda' | wc -l) of $n units ($(head -2 "mount$n.err"))"
  done
  whats="ls pull reset mount"
else
  echo "mount checks skipped: no FUSE"
  whats="ls pull reset"
fi
[ ! -s failures.txt ] && pass "every command ran" || fail "commands failed: $(head -3 failures.txt)"
for n in $SMALL $LARGE; do
  [ "$(grep -c "/g$n/u[0-9]*\.gcda" "ls-$n.txt")" = "$n" ] && pass "ucov ls lists all $n units" ||
    fail "ucov ls lists $(grep -c "/g$n/u[0-9]*\.gcda" "ls-$n.txt") of $n units"
  [ "$(find "$OUT/P$n" -name 'u*.gcda' | wc -l)" = "$n" ] && [ "$(find "$OUT/R$n" -name 'u*.gcda' | wc -l)" = "$n" ] &&
    pass "ucov pull and pull --reset bring all $n units" || fail "pulled $(find "$OUT/P$n" -name 'u*.gcda' | wc -l) of $n units"
done
# The counts: unit i's arcs are i % 7 + 0..3 (many_units.c): the first pull
# and the first pull --reset hold them; the last pull, after the resets, zeroes.
# gcov's own reader takes a pulled unit.
gcov-dump-12 "$(find "$OUT/P$LARGE" -name u0000012.gcda)" >dump12.txt 2>&1 && grep -q 'COUNTERS arcs 4 counts' dump12.txt &&
  pass "gcov-dump reads a pulled unit" || fail "gcov-dump reads a pulled unit: $(head -3 dump12.txt)"
python3 - "$(find "$OUT/first-P$LARGE" -name u0000012.gcda)" "$(find "$OUT/first-R$LARGE" -name u0000012.gcda)" \
  "$(find "$OUT/P$LARGE" -name u0000012.gcda)" >counts.txt <<'PY'
import struct, sys
def arcs(path):
    b = open(path, "rb").read()
    w = struct.unpack("<%dI" % (len(b) // 4), b[:len(b) // 4 * 4])
    i = 4  # magic, version, stamp, checksum
    while i + 1 < len(w):
        tag, length = w[i], w[i + 1]
        if tag == 0x01a10000:
            if length >= 1 << 31:  # gcc's form of all-zero counters: minus their bytes
                return [0] * (((1 << 32) - length) // 8)
            return [w[i + 2 + 2 * k] | w[i + 3 + 2 * k] << 32 for k in range(length // 8)]
        i += 2 + (length // 4 if length < 1 << 31 else 0)
    return None
print(arcs(sys.argv[1]), arcs(sys.argv[2]), arcs(sys.argv[3]))
PY
[ "$(cat counts.txt)" = "[5, 6, 7, 8] [5, 6, 7, 8] [0, 0, 0, 0]" ] &&
  pass "counts: unit 12's arcs pulled, pulled with a reset, then zeroes" ||
  fail "counts: $(cat counts.txt)"
for what in $whats; do
  s=${best["$what $SMALL"]} l=${best["$what $LARGE"]}
  ratio=$(awk -v a="$s" -v b="$l" 'BEGIN { printf "%.1f", b / (a > 0 ? a : 1) }')
  awk -v r="$ratio" 'BEGIN { exit !(r <= 24) }' &&
    pass "$what: $LARGE units cost ${ratio}x $SMALL units' time ($((s / 1000)) ms, $((l / 1000)) ms)" ||
    fail "$what: $LARGE units cost ${ratio}x $SMALL units' time ($((s / 1000)) ms, $((l / 1000)) ms): not linear"
done
# (each target holds the other's pipe too: all closed, then waited for)
for n in $SMALL $LARGE; do eval "exec ${hold[$n]}>&-"; done
for n in $SMALL $LARGE; do wait "${pid[$n]}"; done
finish scale
