#!/usr/bin/env bash
# ucov pull --in-place: a live snapshot where the program's exit would write
# it, so gcovr -r . sees it unchanged: equal to gcovr on the exit files of the
# same work, and the exit afterwards adds only what came later. GCOV_PREFIX
# and GCOV_PREFIX_STRIP are the target's.
# Usage: inplace.sh UCOV SRCDIR WORKDIR [SANITIZE]
set -u
UCOV=$1 SRC=$2 WORK=$3 SAN=${4:-}
. "$SRC/tests/lib.sh"
sanflags "$SAN"
command -v gcovr >/dev/null || { echo "skip: gcovr missing"; exit 0; }
rm -rf "$WORK" && mkdir -p "$WORK/proj" && cd "$WORK" || exit 1
WORK=$(pwd -P)
export UCOV_RUNTIME_DIR=$WORK/rt
cp "$SRC/examples/daemon/kvd.c" proj/
(cd proj && CC=gcc "$UCOV" cc --gcov -O0 "${SANFLAGS[@]}" kvd.c -o kvd)
gcc -O1 proj/kvd.c -o client
run() { # run [ENV...]: start kvd in proj, do the work; $pid
  (cd proj && exec env "$@" ./kvd "$WORK/kvd.sock") &
  pid=$!
  for _ in $(seq 250); do [ -S kvd.sock ] && [ -S "rt/$pid.sock" ] && break; sleep 0.02; done
  ./client --client kvd.sock "SET a 1" "SET b 2" "GET a" "DEL b" >/dev/null
}
stop() { kill $pid; wait $pid 2>/dev/null; rm -f kvd.sock; }
report() { (cd proj && gcovr -r . --json-pretty 2>/dev/null); }
# The request handlers' counts in a gcovr JSON report (the exit's own
# shutdown code is not part of the work).
handlers() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for f in d["files"]:
    for fn in f["functions"]:
        if fn["name"].startswith("cmd_"):
            print(fn["name"], fn["execution_count"])' "$1"
}

run
stop
report >ref.json
grep -q '"count": 2' ref.json && pass "reference: gcovr on the exit files" || fail "reference: gcovr on the exit files"
rm -f proj/*.gcda

run
"$UCOV" pull --pid $pid --in-place 2>err.txt && pass "pull --in-place" || fail "pull --in-place ($(cat err.txt))"
report >live.json
[ -n "$(handlers ref.json)" ] && [ "$(handlers live.json)" = "$(handlers ref.json)" ] && pass "gcovr -r . on the in-place snapshot: the handlers as in the exit files" ||
  fail "gcovr -r . on the in-place snapshot: the handlers as in the exit files ($(handlers live.json | tr '\n' ' '))"
stop
report >after.json
# (The whole files may differ where the shutdown raced the signal: accept
# interrupted or not. The handlers would count twice if the dump had not reset.)
[ "$(handlers after.json)" = "$(handlers ref.json)" ] && pass "the exit after an in-place pull counts nothing twice" ||
  fail "the exit after an in-place pull counts nothing twice ($(handlers after.json | tr '\n' ' '))"

# The target's GCOV_PREFIX and GCOV_PREFIX_STRIP decide where.
rm -f proj/*.gcda
strip=$(echo "$WORK/proj" | tr -cd / | wc -c)
run GCOV_PREFIX="$WORK/pfx" GCOV_PREFIX_STRIP="$strip"
"$UCOV" pull --pid $pid --in-place 2>/dev/null
[ -s pfx/kvd.gcda ] && [ ! -e proj/kvd.gcda ] && pass "GCOV_PREFIX honoured" ||
  fail "GCOV_PREFIX honoured ($(find pfx proj -name '*.gcda'))"
stop

finish inplace
