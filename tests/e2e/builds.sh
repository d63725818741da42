#!/usr/bin/env bash
# Real builds through `ucov cc`: Lua 5.4 and SQLite, Debian source packages
# fetched (once, cached in bench/work or $UCOV_SOURCE_CACHE) and built with
# their own build systems (Lua's Makefile; SQLite's configure and make) with
# CC="ucov cc --gcov", CC="ucov cc --trace" and CC="ucov cc --trace --dormant"
# (whose site table must be objdump's sites of the --trace build). Each builds, passes its smoke
# run, and a running instance's coverage is pulled live and reported: .gcda
# files read natively (equal to gcov's or llvm-cov's reading of the build
# tree and of the pulled tree), and a trace buffer of the main thread (traced from
# start by an LD_PRELOAD client) through the module map.
# Exit 77 (skipped) only when a source package cannot be fetched.
# Usage: builds.sh UCOV SRCDIR WORKDIR CC PRELOAD
set -u
UCOV=$1 SRC=$2 WORK=$3 CCNAME=$4 PRELOAD=$5
. "$SRC/tests/lib.sh"
CACHE=${UCOV_SOURCE_CACHE:-$SRC/bench/work}
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
export UCOV_RUNTIME_DIR=$WORK/rt UCOV_CC=$CCNAME
skipped=""
for pkg in lua5.4:lua sqlite3:sqlite; do
  if ! bash "$SRC/bench/fetch_source.sh" "${pkg%%:*}" "$CACHE/${pkg##*:}" >fetch.log 2>&1; then
    skipped="$skipped ${pkg%%:*}"
    echo "SKIP: cannot fetch the Debian source package ${pkg%%:*}: $(tail -1 fetch.log)"
  fi
done


# live NAME MODE REPORT-FUNCS -- COMMAND...: run COMMAND (which prints "ready"
# and then waits for a line on stdin), pull it, report, check the functions.
live() {
  local name=$1 mode=$2 funcs=$3
  shift 4
  local env=()
  [ "$mode" = trace ] && env=(LD_PRELOAD="$PRELOAD")
  coproc R { exec env "${env[@]}" "$@" 2>&1; }
  local pid=$R_PID line="" got=""
  while read -r -t 60 line <&"${R[0]}"; do
    case $line in *ready*) got=1 && break ;; esac
  done
  for _ in $(seq 100); do [ -S "$UCOV_RUNTIME_DIR/$pid.sock" ] && break; sleep 0.02; done
  "$UCOV" pull --pid "$pid" -o "$name.pull" >/dev/null 2>"$name.pull.err"
  echo >&"${R[1]}"
  eval "exec ${R[1]}>&-"
  wait "$pid"
  [ -n "$got" ] && pass "$name: the live run did not get ready" || fail "$name: the live run did not get ready"
  if [ "$mode" = gcov ]; then
    [ "$(find "$name.pull/gcov" -name '*.gcda' | wc -l)" -gt 0 ] && pass "$name: no .gcda pulled" ||
      fail "$name: no .gcda pulled: $(head -2 "$name.pull.err")"
  else
    ls "$name.pull"/kcov/*.kcov >/dev/null 2>&1 && pass "$name: no trace buffer pulled" ||
      fail "$name: no trace buffer pulled: $(head -2 "$name.pull.err")"
  fi
  "$UCOV" report "$name.pull" --lcov "$name.info" 2>"$name.report.err"
  for f in $funcs; do
    counted "$name.info" "$f" && pass "$name: $f not counted in the pulled coverage" ||
      fail "$name: $f not counted in the pulled coverage: $(head -2 "$name.report.err")"
  done
}

# oracle NAME DIR: notes and counts read natively equal the compiler's own
# tool's reading (--gcov-tool: gcov for gcc, llvm-cov gcov for clang) in
# every file's line, function and branch counts.
tool=gcov
if "$CCNAME" --version 2>/dev/null | head -1 | grep -qi clang; then
  v=$(basename "$CCNAME") && tool=llvm-cov${v#clang}
fi
oracle() {
  "$UCOV" report "$2" --json "$1.native.json" 2>"$1.native.err" &&
    "$UCOV" report "$2" --gcov-tool "$tool" --json "$1.tool.json" 2>"$1.tool.err" &&
    [ "$(grep -c '"path"' "$1.native.json")" -gt 1 ] && cmp -s "$1.native.json" "$1.tool.json" && pass "$1: native .gcda reading equals $tool's" ||
    fail "$1: native .gcda reading differs from $tool's: $(head -2 "$1.native.err" "$1.tool.err";
      cmp "$1.native.json" "$1.tool.json")"
}

# --- Lua 5.4: its Makefile (make posix), its own `make test`, a script.
cat >smoke.lua <<'L'
local t = {}
for i = 1, 200 do t[i] = string.format("%d:%s", i, string.rep("x", i % 7)) end
table.sort(t)
local s = 0
for _, v in ipairs(t) do s = s + #v end
assert(s == 1290, s)
print("lua smoke ok")
L
# The modes' ucov cc flags: --MODE; dormant is --trace --dormant.
flags() { if [ "$1" = dormant ]; then echo "--trace --dormant"; else echo "--$1"; fi; }
# dormant_vs NAME PLAIN DORMANT: the dormant build's site table is objdump's
# sites of the trace build (tests/e2e/dormant_sites.py).
dormant_vs() {
  python3 "$SRC/tests/e2e/dormant_sites.py" "$2" "$3" >"$1.sites" 2>&1 && pass "$1: the dormant build's sites" ||
    fail "$1: the dormant build's sites: $(head -4 "$1.sites")"
}
build_lua() { # MODE
  local dir=lua-$1
  cp -r "$CACHE/lua" "$dir" && make -C "$dir" -j2 posix CC="$UCOV cc $(flags "$1") -std=gnu99" \
    MYCFLAGS="-g -O1" >"$dir.log" 2>&1 && make -C "$dir" test >>"$dir.log" 2>&1 &&
    "$dir/src/lua" smoke.lua >>"$dir.log" 2>&1 && grep -q 'lua smoke ok' "$dir.log"
}
if [[ " $skipped " != *" lua5.4 "* ]]; then
  for mode in gcov trace dormant; do
    if build_lua $mode; then
      pass "lua $mode builds"
      nm lua-$mode/src/lvm.o | grep -q "$([ $mode = gcov ] && echo '__gcov_init\|llvm_gcov_init' ||
        echo __sanitizer_cov_trace_pc)" && pass "lua $mode: lvm.o not instrumented" || fail "lua $mode: lvm.o not instrumented"
      live lua-$mode "${mode/dormant/trace}" "luaV_execute luaH_resize" -- lua-$mode/src/lua -e \
        'local t = {} for i = 1, 100 do t[i] = i * i end print("ready " .. #t) io.read()'
      [ $mode = gcov ] && oracle lua-tree lua-gcov/src && oracle lua-pull lua-gcov.pull
      [ $mode = dormant ] && dormant_vs lua-dormant lua-trace/src/lua lua-dormant/src/lua
    else
      fail "lua $mode: build or smoke run: $(tail -3 lua-$mode.log)"
    fi
  done
fi

# --- SQLite: configure and make (the amalgamation through tclsh), a SQL script.
cat >smoke.sql <<'Q'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500)
INSERT INTO t SELECT x, printf('row %d', x) FROM c;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(a), max(b) FROM t WHERE b LIKE 'row 4%';
Q
build_sqlite() { # MODE
  local dir=sqlite-$1
  mkdir -p "$dir" && (cd "$dir" && CC="$UCOV cc $(flags "$1")" CFLAGS="-g -O0" "$CACHE/sqlite/configure" \
    --disable-tcl --disable-readline >../"$dir.log" 2>&1 && make -j2 sqlite3 >>../"$dir.log" 2>&1) &&
    "$dir/sqlite3" :memory: <smoke.sql >"$dir.out" 2>&1 && grep -qx '111|45399|row 499' "$dir.out"
}
if [[ " $skipped " != *" sqlite3 "* ]]; then
  for mode in gcov trace dormant; do
    # (dormant in gcc's run only: the test suite runs this file under gcc and clang)
    [ $mode = dormant ] && [ "$tool" != gcov ] && continue
    if build_sqlite $mode; then
      pass "sqlite $mode builds"
      live sqlite-$mode "${mode/dormant/trace}" "sqlite3VdbeExec sqlite3BtreeInsert" -- sqlite-$mode/sqlite3 \
        -cmd "CREATE TABLE k(v); INSERT INTO k VALUES (1), (2);" -cmd ".print ready" :memory:
      [ $mode = gcov ] && oracle sqlite-tree sqlite-gcov && oracle sqlite-pull sqlite-gcov.pull
      [ $mode = dormant ] && dormant_vs sqlite-dormant sqlite-trace/sqlite3 sqlite-dormant/sqlite3
    else
      fail "sqlite $mode: build or smoke run: $(tail -3 sqlite-$mode.log; cat sqlite-$mode.out 2>/dev/null)"
    fi
  done
fi
finish builds || exit 1
[ -z "$skipped" ] || exit 77
