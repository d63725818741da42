#!/usr/bin/env bash
# The twins plugins, ucov-twins-gcc.so (src/plugins/gcc_twins.cc) and
# ucov-twins-clang-N.so (clang_twins.cpp), on tests/e2e/twins/prog.c, at
# -O0 and -O2 with --coverage, in a trace build (trace-pc, trace-cmp) and an entry and
# exit build (-finstrument-functions). Checked against the same build without
# the plugin (the reference):
# - the plain bodies call no hook; each function with a body of its own (not
#   the always_inline helper, nor a static one inlined everywhere, nor main,
#   entered before anyone traces) has a twin,
#   "<name>.ucov_twin[.N]", which calls them; one static local;
# - the linked program's .ucov_twins holds exactly the pairs (plain, twin) of
#   those functions, by address, and each plain body starts with 5 bytes of NOP;
# - run as it is, the program prints the reference's result, calls no hook
#   from those functions, and its gcov counts are the reference's, line by
#   line;
# - run with every call of a plain body sent to its twin (gdb: a breakpoint
#   at each plain entry that jumps to the twin), it prints the same result,
#   calls the hooks exactly as often as the reference, and its gcov counts are
#   the reference's again: the twins count on the same counters;
# - gcc's: without -fno-ipa-ra -fno-ipa-icf the plugin refuses, and says why.
# Usage: twins.sh CC PLUGIN SRCDIR WORKDIR   (CC: gcc, clang-14, clang-16 or clang-19)
set -u
CC=$1 PLUGIN=$2 SRC=$3 WORK=$4
. "$SRC/tests/lib.sh"
fresh_workdir
P=$SRC/tests/e2e/twins
if ! [ -f "$PLUGIN" ]; then
  fail "no $PLUGIN: the compiler's plugin headers are missing (gcc-12-plugin-dev, llvm-N-dev; scripts/deps.sh installs them)"
  finish "twins_$CC"
  exit 1
fi
twin=(-fplugin="$PLUGIN" -fno-ipa-ra -fno-ipa-icf) gcov=(gcov)
if [ "$CC" != gcc ]; then
  twin=(-fpass-plugin="$PLUGIN") gcov=("llvm-cov-${CC#clang-}" gcov)
fi

# build DIR FLAGS...: prog (and hook.o) in DIR, at -$opt.
build() {
  local d=$1
  shift
  mkdir -p "$d" && (cd "$d" && "$CC" "-$opt" -g --coverage "$@" -c "$P/prog.c" -o prog.o &&
    gcc -O2 -c "$P/hook.c" -o hook.o && "$CC" --coverage prog.o hook.o -o prog) >"$d.log" 2>&1
}
# counts DIR: each line's gcov count of prog.c (after a run), "line count".
counts() {
  (cd "$1" && "${gcov[@]}" -o . prog.gcda >/dev/null 2>&1 &&
    awk -F: '{gsub(/ /, "", $1); gsub(/ /, "", $2)} $1 ~ /^[0-9]+$/ {print $2, $1}' prog.c.gcov)
}
# body DIR NAME: the disassembly of function NAME in DIR/prog.o, with relocations.
body() {
  objdump -dr --no-show-raw-insn "$1/prog.o" | awk -v f="<$2>:" '$2 == f {p = 1; next} /^$/ {p = 0} p'
}

for mode in O0-trace O0-ext O2-trace O2-ext; do
  opt=${mode%-*}
  flags=('-fsanitize-coverage=trace-pc,trace-cmp') hook='__sanitizer_cov_trace_'
  [ "${mode#*-}" = ext ] && flags=(-finstrument-functions) hook='__cyg_profile_func_'
  build $mode/ref "${flags[@]}" || fail "$mode: the reference build: $(tail -3 $mode/ref.log)"
  build $mode/twin "${flags[@]}" "${twin[@]}" || fail "$mode: the build with the plugin: $(tail -3 $mode/twin.log)"

  # the functions with a body of their own (h, static, may be inlined
  # everywhere; gcc splits big's cold part into big.part.0), but the
  # compilers' own (gcov's constructors) and the always_inline helper (which
  # -finstrument-functions leaves out of line, unused)
  fns=$(nm $mode/twin/prog.o | awk '$2 ~ /[Tt]/ && $3 !~ /\.ucov_twin|^_sub_|^__llvm_|^twice$|^main$/ {print $3}' | xargs)
  n_fns=$(echo "$fns" | wc -w)
  bad='' missing=''
  for f in $fns; do
    body $mode/twin "$f" | grep -q "$hook" && bad="$bad $f"
    t=$(nm $mode/twin/prog.o | awk -v f="$f" '$3 ~ "^" f "\\.ucov_twin(\\.[0-9]+)?$" {print $3}')
    [ -n "$t" ] && body $mode/twin "$t" | grep -q "$hook" || missing="$missing $f"
  done
  seen=$(nm $mode/twin/prog.o | grep -cE '[ .]seen(\.[0-9]+)?$') # (gcc: seen.N; clang: g.seen)
  [ -z "$bad$missing" ] && [ "$n_fns" -ge 5 ] && [ "$seen" = 1 ] &&
    pass "$mode: the plain bodies of $fns call no hook; their twins do; one static local" ||
    fail "$mode: plain bodies with hooks '$bad', twins missing or without hooks '$missing' (of '$fns'); $seen statics 'seen'"

  # the table, by address, and the plain entries
  read -r -a fnv <<<"$fns"
  table=$(python3 - "$mode/twin/prog" "${fnv[@]}" <<'PY'
import struct, subprocess, sys
path, fns = sys.argv[1], sys.argv[2:]
data = open(path, "rb").read()
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
strtab = secs[shstrndx]
def name(s):
    o = strtab[4] + s[0]
    return data[o:data.index(b"\0", o)].decode()
tw = [s for s in secs if name(s) == ".ucov_twins"]
text = [s for s in secs if name(s) == ".text"][0]
pairs = set()
if tw:
    raw = data[tw[0][4]:tw[0][4] + tw[0][5]]
    pairs = {struct.unpack_from("<QQ", raw, i) for i in range(0, len(raw), 16)}
syms = {}
for line in subprocess.run(["nm", path], capture_output=True, text=True).stdout.splitlines():
    p = line.split()
    if len(p) == 3:
        syms[p[2]] = int(p[0], 16)
want = set()
for f in fns:
    t = [s for s in syms if s == f + ".ucov_twin" or s.startswith(f + ".ucov_twin.")]
    want.add((syms[f], syms[t[0]] if t else 0))
# (gcc: five 1-byte NOPs; clang: one 5-byte NOP, nopl disp8(%rax,%rax,1))
nops = all(data[text[4] + a - text[3]:text[4] + a - text[3] + 5] in (b"\x90" * 5,) or
           data[text[4] + a - text[3]:text[4] + a - text[3] + 4] == b"\x0f\x1f\x44\x00" for a, _ in want)
print(len(pairs), "equal" if pairs == want else "differ", "nops" if nops else "no-nops")
PY
  )
  [ "$table" = "$n_fns equal nops" ] &&
    pass "$mode: .ucov_twins holds the $n_fns pairs (plain, twin) by address; each plain entry is a 5-byte NOP area" ||
    fail "$mode: the table: '$table'"

  # plain: the reference's result and counts, no hook from the twinned functions
  (cd $mode/ref && ./prog >out 2>hooks) && (cd $mode/twin && ./prog >out 2>hooks)
  rc=$(counts $mode/ref) tc=$(counts $mode/twin)
  rh=$(cat $mode/ref/hooks) th=$(cat $mode/twin/hooks)
  n=$(echo "$rc" | grep -c .)
  # (what calls a hook in the plain run: gcov's constructor and destructor,
  # and main, which has no twin: one block each)
  small=$(echo "$th" | awk '{print ($3 + $5 + $7 + $9 <= 4) ? "yes" : "no"}')
  cmp -s $mode/ref/out $mode/twin/out && [ "$n" -gt 20 ] && [ "$rc" = "$tc" ] && [ "$small" = yes ] &&
    pass "$mode: run plain: the reference's result and its $n line counts; hooks '$th' (the reference: '$rh')" ||
    fail "$mode: run plain: out '$(cat $mode/twin/out)' vs '$(cat $mode/ref/out)'; hooks '$th'; counts equal: $([ "$rc" = "$tc" ] && echo yes || echo no)"

  # traced: each plain entry jumps to its twin
  rm -f $mode/twin/prog.gcda
  for f in $fns; do
    t=$(nm $mode/twin/prog | awk -v f="$f" '$3 ~ "^" f "\\.ucov_twin(\\.[0-9]+)?$" {print $3}')
    q=$f && [ "${f#*.}" != "$f" ] && q="'$f'" # (quoted with a dot; 'f' is a char)
    printf 'break *%s\ncommands\nsilent\njump *%s\nend\n' "$q" "'$t'"
  done >$mode/twin/jumps.gdb
  (cd $mode/twin && timeout 120 gdb -q -batch -nx -x jumps.gdb -ex "run >out 2>hooks" ./prog >gdb.log 2>&1)
  tc=$(counts $mode/twin) th=$(cat $mode/twin/hooks)
  cmp -s $mode/ref/out $mode/twin/out && [ "$rh" = "$th" ] && [ "$rc" = "$tc" ] &&
    pass "$mode: every call sent to the twins: the reference's result, hooks ($th) and $n line counts" ||
    fail "$mode: twins run: out '$(cat $mode/twin/out)'; hooks '$th' vs '$rh'; counts equal: $([ "$rc" = "$tc" ] && echo yes || echo no); $(tail -3 $mode/twin/gdb.log)"
done

# gcc's plugin's one requirement, said
if [ "$CC" = gcc ]; then
  gcc -O2 -fplugin="$PLUGIN" -fsanitize-coverage=trace-pc -c "$P/prog.c" -o /dev/null 2>refuse.err
  grep -q 'ucov-twins: needs .*-fno-ipa-ra -fno-ipa-icf' refuse.err &&
    pass "without -fno-ipa-ra -fno-ipa-icf: refused, and said" || fail "refusal: $(cat refuse.err)"
fi
finish "twins_$CC"
