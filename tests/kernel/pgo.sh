#!/usr/bin/env bash
# The Clang PGO kernel document's option, CONFIG_PGO_CLANG, served by ucov's
# core built into vmlinux (kernel/linux/builtin/apply.sh), in one clang
# kernel with CONFIG_KCOV (clang's trace-pc and trace-cmp) and
# CONFIG_GCOV_KERNEL (clang's --coverage, fs/ profiled): Debian's 6.1
# source, build_kernel.sh pgo (LLVM=-19, -O2), booted under QEMU with
# panic_on_warn=1; then the document's workflow to its end, the kernel
# built again from the profile.
#
# The profiling kernel. Here: vmlinux's __llvm_prf_* sections; noinstr,
# early boot code and kernel/ucov carry no counters; a module built against
# the kernel is profiled by the kernel's own flags and module.lds. In the
# guest: a write to pgo/reset, 1000 reads, vmlinux.profraw copied
# (tests/kernel/pgo_vmlinux.c); then the document's steps as a user runs
# them: a write to pgo/reset, a workload (dd from /dev/zero to /dev/null,
# and a module loaded and at work), `cp -a` of pgo/profraw, vmlinux.profraw
# and the module's file; `ucov pull --dev`; kcov.rst's PC and comparison
# programs; fs/read_write.c's gcov counts between snapshots and after
# resets (gcov_vmlinux.c). Here again: llvm-profdata merges each file;
# clang, reading the first, finds read's handlers entered exactly 1000
# times; each file holds the functions it should; llvm-cov gcov counts
# ksys_read exactly.
#
# The rebuild: the workload's vmlinux.profraw merged, the same
# configuration without PGO_CLANG built with
# KCFLAGS=-fprofile-use=vmlinux.profdata (build_kernel.sh pgo-use: built
# from the first profile it is given, then cached: the checks read that
# profile). Clang reports no
# mismatched profile for a function that ran (what it reports is counted
# and shown; the same file without gcov's flags shows that it would); the
# workload's path (the read and write
# syscalls' entries, /dev/zero's read and /dev/null's write) is in
# .text.hot, the functions of their files that never ran in
# .text.unlikely (read from the objects); the kernel boots and passes the
# same KCOV, gcov and module checks.
# The log must have no warning, BUG or Oops, in either kernel.
# Usage: pgo.sh UCOV SRCDIR WORKDIR
# Environment: UCOV_KERNEL_CACHE (default: ~/.cache/ucov/kernel),
# UCOV_QEMU_ACCEL (default tcg).
set -u
UCOV=$(realpath "$1") SRC=$(cd "$2" && pwd) WORK=$3
. "$SRC/tests/lib.sh"
. "$SRC/tests/kernel/ctx_checks.sh"
fresh_workdir
if [ "$(uname -m)" != x86_64 ]; then
  echo "kernel checks skipped: the test kernel is built for x86_64"
  exit 77
fi
CACHE=${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}
PROFDATA=llvm-profdata-19 LLVM_COV=llvm-cov-19
if ! got=$(bash "$SRC/tests/kernel/build_kernel.sh" pgo "$CACHE" 2>build.err); then
  fail "the PGO kernel: $(cat build.err)"
  finish pgo
  exit 1
fi
read -r KTREE BZIMAGE <<<"$got"
pass "Debian's 6.1 made over by apply.sh builds with clang 19 and CONFIG_PGO_CLANG, CONFIG_KCOV and CONFIG_GCOV_KERNEL ($(cat "$KTREE/../done"))"
! grep -q 'warning:' "$KTREE/../build.log" && pass "... without a compiler warning" ||
  fail "the build's warnings: $(grep -m3 'warning:' "$KTREE/../build.log")"

# --- the profiling kernel's build ---
sections=$(readelf -SW "$KTREE/vmlinux" | grep -o '__llvm_prf_[a-z]*' | sort -u | tr '\n' ' ')
case $sections in *__llvm_prf_cnts*__llvm_prf_data*__llvm_prf_names*) ok=1 ;; *) ok= ;; esac
[ -n "$ok" ] && nm "$KTREE/vmlinux" | grep -q ' __llvm_prf_data_start$' &&
  pass "vmlinux has the profile's sections: $sections" || fail "vmlinux's profile sections: $sections"
# counter updates in vmlinux's code between two symbols (x86's linker
# script puts .noinstr.text inside .text): its disassembly's __profc_ operands
profc() {
  local a b
  a=$(nm "$KTREE/vmlinux" | awk -v s="$1" '$3 == s { print $1 }')
  b=$(nm "$KTREE/vmlinux" | awk -v s="$2" '$3 == s { print $1 }')
  [ -n "$a" ] && [ -n "$b" ] || {
    echo "no $1 or $2"
    return
  }
  objdump -d --start-address=0x"$a" --stop-address=0x"$b" "$KTREE/vmlinux" | grep -c '<__profc_'
}
# counters an object has: its __llvm_prf_cnts sections, summed
cnts() { for o in "$@"; do readelf -SW "$o" | grep -c ' __llvm_prf_cnts '; done | awk '{ s += $1 } END { print s + 0 }'; }
n_text=$(profc _stext _etext)
n_noinstr=$(profc __noinstr_text_start __noinstr_text_end)
n_rw=$(cnts "$KTREE/fs/read_write.o")
n_head=$(cnts "$KTREE/arch/x86/kernel/head64.o")
n_boot=$(cnts "$KTREE"/arch/x86/boot/*.o "$KTREE"/arch/x86/boot/compressed/*.o "$KTREE"/arch/x86/realmode/rm/*.o)
n_ucov=$(cnts "$KTREE"/kernel/ucov/*.o "$KTREE"/kernel/ucov/core/*.o)
[ "$n_text" -gt 10000 ] && [ "$n_rw" -gt 10 ] && [ "$n_noinstr" = 0 ] && [ "$n_head" = 0 ] && [ "$n_boot" = 0 ] &&
  [ "$n_ucov" = 0 ] &&
  pass "counters: $n_text updates in the text, none between __noinstr_text_start and _end; fs/read_write.o has $n_rw counter sections, head64.o, the boot code, the decompressor, real mode and kernel/ucov none" ||
  fail "counters: text $n_text, noinstr $n_noinstr, read_write.o $n_rw, head64.o $n_head, boot $n_boot, kernel/ucov $n_ucov"

# The contexts' module (ctx_checks.sh's ctx_module): with PGO_CLANG the kernel's flags profile it and its module.lds joins its
# profile's sections.
ctx_module "$KTREE" ctxmod LLVM=-19 && [ "$(readelf -SW ctxmod/ucov_ctx.ko | grep -c ' __llvm_prf_cnts ')" = 1 ] &&
  nm ctxmod/ucov_ctx.ko | grep -q ' __ucov_prf_data$' &&
  pass "a module built against the kernel: profiled, its counters in one section between ucov's symbols" ||
  fail "the module: $(grep -m3 -i 'error\|warning' ctxmod.log) $(readelf -SW ctxmod/ucov_ctx.ko | grep -c ' __llvm_prf_cnts ') __llvm_prf_cnts sections"

# --- the guests ---
gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/kcov_vmlinux.c" -o kcov_vmlinux &&
  gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/kcov_ctx.c" -o kcov_ctx &&
  gcc -static -O1 "$SRC/tests/kernel/gcov_vmlinux.c" -o gcov_vmlinux &&
  gcc -static -O1 "$SRC/tests/kernel/pgo_vmlinux.c" -o pgo_vmlinux || {
  fail "the guest's programs"
  finish pgo
  exit 1
}
# boot DIR BZIMAGE MODULE: the guest run in DIR (console.log, log.txt: the
# log without the files; out/: the guest's files). With a file /pgo in the
# initramfs, the profiling kernel's steps.
boot() {
  local d=$1
  mkdir -p "$d/ir/bin" "$d/ir/proc" "$d/ir/sys" "$d/ir/dev" "$d/ir/tmp" &&
    cp /bin/busybox kcov_vmlinux kcov_ctx gcov_vmlinux pgo_vmlinux "$d/ir/bin/" && guest_ucov "$UCOV" "$d/ir" &&
    cp "$3" "$d/ir/" || return 1
  [ "$d" != inst ] || touch "$d/ir/pgo"
  {
    cat "$SRC/tests/kernel/guest_init_head.sh"
    cat <<'INIT'
P=/sys/kernel/debug/pgo
say "pgo files $(ls $P | tr '\n' ' ')"
mkdir -p /tmp/out/doc /tmp/out/g
# a workload whose counts are known: 1000 reads after pgo/reset
[ -e /pgo ] && /bin/pgo_vmlinux $P 1000 /tmp/out/vmlinux.profraw >/tmp/pgo.txt 2>&1 && say "$(cat /tmp/pgo.txt)"
# the document's steps, with a workload: dd's reads and writes, and a
# module loaded and at work
[ -e /pgo ] && echo 1 >$P/reset
dd if=/dev/zero of=/dev/null bs=512 count=20000 2>/dev/null && say "dd ok"
insmod /ucov_ctx.ko && say "insmod ok"
say "pgo files $(ls $P | tr '\n' ' ')"
/bin/kcov_ctx 20 >/tmp/ctx.txt 2>&1 && say "kcov_ctx ok"
[ -e /pgo ] && cp -a $P/profraw $P/vmlinux.profraw $P/ucov_ctx.profraw /tmp/out/doc/ && say "cp ok"
ucov pull --dev /dev/ucov -o /tmp/out/P >/tmp/pull.txt 2>&1 && say "pull ok"
sed 's/^/UCOV-GUEST pull-err /' /tmp/pull.txt | head -3
rmmod ucov_ctx && say "rmmod ok"
say "pgo files $(ls $P | tr '\n' ' ')"
# KCOV, clang's
/bin/kcov_vmlinux pc >/tmp/pc.txt 2>/tmp/pc.err && say "pc ok $(wc -l </tmp/pc.txt)"
sed 's/^/UCOV-PC /' /tmp/pc.txt
/bin/kcov_vmlinux cmp >/tmp/cmp.txt 2>/tmp/cmp.err && say "cmp ok $(wc -l </tmp/cmp.txt)"
grep -q '^cmp 0x[0-7] .*0xffffffff' /tmp/cmp.txt && say "cmp fd ok"
# gcov, clang's: fs/read_write.c's counts between snapshots and after resets
g=$(find /sys/kernel/debug/gcov -name read_write.gcda | head -1)
say "gcda $g"
/bin/gcov_vmlinux "$g" 1000 777 /tmp/out/g /sys/kernel/debug/gcov/reset >/tmp/gcov.txt 2>&1
sed 's/^/UCOV-GUEST /' /tmp/gcov.txt
sed 's/^/UCOV-GUEST err /' /tmp/pc.err /tmp/cmp.err
echo UCOV-FILES-BEGIN
tar czf - -C /tmp out | base64
echo UCOV-FILES-END
dmesg | grep -i -E 'warn|bug|oops|ucov|kcov|call trace|general protection|atomic' | sed 's/^/UCOV-DMESG /'
say done
reboot -f
INIT
  } >"$d/ir/init" && chmod +x "$d/ir/init" &&
    (cd "$d/ir" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >../initrd.gz) || return 1
  timeout 900 qemu-system-x86_64 -accel "${UCOV_QEMU_ACCEL:-tcg}" -cpu max -smp 2 -m 1024 -display none \
    -no-reboot -serial file:"$d/console.txt" -kernel "$2" -initrd "$d/initrd.gz" \
    -append "console=ttyS0 panic=-1 panic_on_warn=1 quiet" </dev/null >"$d/qemu.out" 2>&1
  tr -d '\r' <"$d/console.txt" >"$d/console.log"
  sed '/^UCOV-FILES-BEGIN$/,/^UCOV-FILES-END$/d' "$d/console.log" >"$d/log.txt"
  sed -n '/^UCOV-FILES-BEGIN$/,/^UCOV-FILES-END$/p' "$d/console.log" | sed '1d;$d' | base64 -d |
    tar xzf - -C "$d" 2>/dev/null
  return 0
}
# guest DIR LINE: the guest in DIR said LINE (a regular expression)
guest() { grep -q "^UCOV-GUEST $2\$" "$1/console.log"; }
# checks DIR TREE WHAT: what both kernels must pass (WHAT names the kernel)
checks() {
  local d=$1 tree=$2 what=$3
  guest "$d" "done" && pass "$what: the guest booted and ran to its end" ||
    fail "$what: the guest: $(tail -5 "$d/console.log")"
  guest "$d" "dd ok" && guest "$d" "insmod ok" && guest "$d" "kcov_ctx ok" && guest "$d" "rmmod ok" &&
    guest "$d" "pull ok" && pass "$what: the workload runs; the module loads, works and unloads; ucov pull --dev" ||
    fail "$what: the workload: $(grep 'UCOV-GUEST \(dd\|insmod\|kcov_ctx\|rmmod\|pull\)' "$d/console.log" | tr '\n' ' ')"
  nm -n "$tree/vmlinux" | awk '$2 ~ /^[tTwW]$/ {print $1, $3}' >"$d/syms.txt"
  sed -n 's/^UCOV-PC 0x\([0-9a-f]*\)$/\1/p' "$d/console.log" >"$d/pcs.txt"
  python3 "$SRC/tests/kernel/symbolize.py" "$d/syms.txt" "$d/pcs.txt" >"$d/pcfuncs.txt"
  # (read's handler: ksys_read, or __x64_sys_read where the profile had
  # ksys_read inlined into it)
  guest "$d" "pc ok [1-9][0-9]*" && grep -qx 'ksys_read\|__x64_sys_read' "$d/pcfuncs.txt" &&
    ! grep -q outside-the-text "$d/pcfuncs.txt" &&
    pass "$what: KCOV (clang's trace-pc): kcov.rst's program, $(wc -l <"$d/pcs.txt") PCs of read, each in vmlinux's text" ||
    fail "$what: KCOV's PCs: $(sort -u "$d/pcfuncs.txt" | head -5 | tr '\n' ' ') $(grep 'UCOV-GUEST err' "$d/console.log" | head -2)"
  guest "$d" "cmp ok [1-9][0-9]*" && guest "$d" "cmp fd ok" &&
    pass "$what: KCOV (clang's trace-cmp): kcov.rst's comparison program, read's fd among the operands" ||
    fail "$what: KCOV's comparisons: $(grep 'UCOV-GUEST cmp' "$d/console.log" | tr '\n' ' ')"
  local ra ca cb cc cd_
  read -r _ ra _ < <(grep -m1 '^UCOV-GUEST gcov [0-9]* [0-9]*$' "$d/console.log" | cut -d' ' -f2-)
  ca=$(called "$d" "$tree" A) cb=$(called "$d" "$tree" B) cc=$(called "$d" "$tree" C) cd_=$(called "$d" "$tree" D)
  [ -n "$ca" ] && [ -n "$cb" ] && [ -n "${ra:-}" ] && [ "$((cb - ca))" = "$((ra + 1000))" ] && [ "$cc" = 777 ] &&
    [ "$cd_" = 555 ] && guest "$d" "gcda /sys/kernel/debug/gcov$tree/fs/read_write.gcda" &&
    pass "$what: gcov (clang's --coverage, fs/): llvm-cov gcov counts ksys_read exactly: $ca, then $cb (1000 reads and $ra), 777 after the unit's reset, 555 after gcov/reset" ||
    fail "$what: gcov: ksys_read $ca, $cb (reads of the file: ${ra:-?}), ${cc:-nothing} (777), ${cd_:-nothing} (555)"
  ! grep -q -E 'WARNING|BUG|Oops|Call Trace|general protection|scheduling while atomic' "$d/log.txt" &&
    pass "$what: no warning, BUG or Oops" || fail "$what: the log: $(grep -E 'WARNING|BUG|Oops' "$d/log.txt" | head -3)"
}
# called DIR TREE SNAPSHOT: ksys_read's calls in it, by llvm-cov gcov (the
# notes name the sources as kbuild gave them, relative to the tree)
called() {
  local w=$1/w$3
  rm -rf "$w" && mkdir -p "$w" && cp "$2/fs/read_write.gcno" "$w/" && cp "$1/out/g/$3.gcda" "$w/read_write.gcda" &&
    ln -s "$2/fs" "$2/include" "$2/arch" "$w/" &&
    (cd "$w" && "$LLVM_COV" gcov -b -o . "$2/fs/read_write.c" >/dev/null 2>&1) &&
    sed -n 's/^function ksys_read called \([0-9]*\) .*/\1/p' "$w/read_write.c.gcov" | head -1
}

# --- the profiling kernel's guest ---
boot inst "$BZIMAGE" ctxmod/ucov_ctx.ko || fail "the profiling kernel's initramfs"
checks inst "$KTREE" "the profiling kernel"
guest inst "pgo files profraw reset vmlinux.profraw " &&
  guest inst "pgo files profraw reset ucov_ctx.profraw vmlinux.profraw " &&
  pass "/sys/kernel/debug/pgo: profraw, vmlinux.profraw, reset; the module's file while it is loaded" ||
  fail "/sys/kernel/debug/pgo: $(grep 'UCOV-GUEST pgo files' inst/console.log | tr '\n' ' ')"
# kbuild_cmd TREE OBJECT OUT: OBJECT's compile command as kbuild ran it in
# TREE (its .cmd file), without the dependency file and writing OUT
kbuild_cmd() {
  local cmd
  cmd=$(sed -n "s|^savedcmd_$2 := ||p; s|^cmd_$2 := ||p" "$1/$(dirname "$2")/.$(basename "$2").cmd" | head -1)
  cmd=${cmd%%;*}
  echo "$cmd" | sed "s| -Wp,-MMD,[^ ]*||; s| -o $2 | -o $3 |"
}
# entry_counts PROFDATA OBJECT: "function count" for each function of the
# kernel's OBJECT (as fs/read_write.o), as clang reads them from the
# profile: the object's own compile command (kbuild's .cmd) with
# -fprofile-use for -fprofile-generate, the module printed right after
# clang's PGO pass (entry counts before any inlining), the object (and
# gcov's notes) written here, not in the tree.
entry_counts() {
  local cmd
  cmd=$(kbuild_cmd "$KTREE" "$2" "$WORK/entry.o" | sed "s| -fprofile-generate | -fprofile-use=$1 |")
  case $cmd in *-fprofile-use=*) ;; *) return 1 ;; esac
  (cd "$KTREE" && eval "$cmd -mllvm -print-after=pgo-instr-use -mllvm -print-module-scope" 2>&1) |
    python3 -c 'import re, sys
prof, fns = {}, []
for l in sys.stdin:
    m = re.match(r"define .*@([\w.]+)\(.*!prof !(\d+) ", l)
    if m:
        fns.append(m.groups())
    m = re.match(r"!(\d+) = !\{!\"function_entry_count\", i64 (\d+)\}", l)
    if m:
        prof[m.group(1)] = m.group(2)
for f, p in fns:
    if p in prof:
        print(f, prof[p])'
}
"$PROFDATA" merge -o vmlinux.profdata inst/out/vmlinux.profraw 2>merge.err &&
  n_fns=$("$PROFDATA" show vmlinux.profdata | sed -n 's/^Total functions: //p') && [ "${n_fns:-0}" -gt 1000 ] &&
  pass "llvm-profdata merges vmlinux.profraw ($n_fns functions)" || fail "llvm-profdata merge: $(head -3 merge.err)"
entry_counts "$WORK/vmlinux.profdata" fs/read_write.o >rw-counts.txt
read -r _ n_reads _ < <(grep -m1 '^UCOV-GUEST pgo [0-9]* [0-9]*$' inst/console.log | cut -d' ' -f2-)
rc() { awk -v f="$1" '$1 == f { print $2 }' rw-counts.txt; }
guest inst "pgo 1000 [0-9]*" && [ "$(rc ksys_read)" = 1000 ] && [ "$(rc __x64_sys_read)" = 1000 ] &&
  pass "counts exact: after pgo/reset, read's handlers entered 1000 times for 1000 reads (clang's reading: ksys_read $(rc ksys_read), __x64_sys_read $(rc __x64_sys_read))" ||
  fail "counts after the reset: ksys_read $(rc ksys_read), __x64_sys_read $(rc __x64_sys_read) for ${n_reads:-no} reads ($(head -c 300 rw-counts.txt | tr '\n' ' '))"
# fns PROFRAW: the functions of a profile, "name sum-of-its-counters" (a
# static function's name is "file;function")
fns() {
  "$PROFDATA" show --all-functions --counts "$1" 2>/dev/null | awk '/^  [^ ].*:$/ { f = substr($1, 1, length($1) - 1) }
    /Block counts:/ { gsub(/[^0-9,]/, ""); n = split($0, c, ","); s = 0; for (i = 1; i <= n; i++) s += c[i]; print f, s }'
}
fns inst/out/doc/profraw >all.txt
fns inst/out/doc/ucov_ctx.profraw >mod.txt
fns inst/out/doc/vmlinux.profraw >vml.txt
# in_ LIST FUNCTION: FUNCTION counted in LIST
in_() {
  awk -v f="$2" '($1 == f || substr($1, length($1) - length(f)) == ";" f) && $2 > 0 { found = 1 }
    END { exit !found }' "$1"
}
guest inst "cp ok" && in_ all.txt ctx_body && in_ all.txt ksys_write && in_ mod.txt ctx_body &&
  ! in_ mod.txt ksys_write && in_ vml.txt ksys_write && ! grep -q 'ctx_body' vml.txt &&
  pass "cp -a: profraw holds vmlinux's profile and the module's ($(wc -l <all.txt) functions), ucov_ctx.profraw the module's ($(wc -l <mod.txt)), vmlinux.profraw vmlinux's ($(wc -l <vml.txt))" ||
  fail "the profiles: profraw $(wc -l <all.txt), ucov_ctx.profraw $(wc -l <mod.txt), vmlinux.profraw $(wc -l <vml.txt) functions"
[ -f inst/out/P/pgo/vmlinux.profraw ] && [ -f inst/out/P/pgo/ucov_ctx.profraw ] &&
  "$PROFDATA" merge -o pulled.profdata inst/out/P/pgo/vmlinux.profraw inst/out/P/pgo/ucov_ctx.profraw 2>pull-merge.err &&
  pass "ucov pull --dev: pgo/vmlinux.profraw and pgo/ucov_ctx.profraw, which llvm-profdata merges" ||
  fail "ucov pull --dev: $(find inst/out/P -name '*.profraw' | tr '\n' ' ') $(head -2 pull-merge.err) $(grep pull-err inst/console.log | head -2)"

# --- the rebuild: KCFLAGS=-fprofile-use, PGO_CLANG off ---
"$PROFDATA" merge --output=workload.profdata inst/out/doc/vmlinux.profraw 2>merge-doc.err ||
  fail "llvm-profdata merge of the workload's vmlinux.profraw: $(head -2 merge-doc.err)"
if ! got=$(UCOV_PGO_PROFDATA=$WORK/workload.profdata bash "$SRC/tests/kernel/build_kernel.sh" pgo-use "$CACHE" 2>build-use.err); then
  fail "the kernel built from the profile: $(cat build-use.err)"
  finish pgo
  exit 1
fi
read -r UTREE UBZIMAGE <<<"$got"
ULOG=$UTREE/../build.log
grep -qx '# CONFIG_PGO_CLANG is not set' "$UTREE/.config" && grep -qx 'CONFIG_KCOV=y' "$UTREE/.config" &&
  grep -q -- "-fprofile-use=$(dirname "$UTREE")/vmlinux.profdata" "$UTREE/fs/.read_write.o.cmd" &&
  ! grep -q -- '-fprofile-generate' "$UTREE/fs/.read_write.o.cmd" &&
  pass "the same configuration without PGO_CLANG, built with KCFLAGS=-fprofile-use ($(cat "$UTREE/../done"))" ||
  fail "the rebuild's configuration or flags"
# What clang says of the profile: a function whose control flow is not the
# profiled one (hash mismatch: "up to N count discarded"), or a file whose
# profile is out of date.
# mismatches LOG: "function count-discarded" for each mismatch clang reported
mismatches() {
  grep -o 'hash mismatch) [^ ]* Hash = [0-9]* up to [0-9]* count discarded' "$1" |
    awk '{ print $3, $(NF - 2) }' | sort -u
}
mismatches "$ULOG" >mismatch.txt
n_mm=$(wc -l <mismatch.txt)
n_ran=$(awk '$2 > 0' mismatch.txt | wc -l)
n_bad=$(grep -c 'profile data may be corrupted\|no profile data available for file\|Could not read profile\|malformed' "$ULOG")
[ "$n_ran" = 0 ] && [ "$n_bad" = 0 ] &&
  pass "clang accepts the profile: no mismatched profile for a function that ran ($n_mm mismatched in all, none run; no file's profile unreadable)" ||
  fail "clang's reading of the profile: $n_ran mismatched functions that ran ($(awk '$2 > 0 { print $1 }' mismatch.txt | head -5 | tr '\n' ' ')), $n_bad unreadable"
# ... and what it would say: fs/read_write.o compiled again without gcov's
# flags, as by a rebuild that dropped GCOV_KERNEL (gcov's instrumentation
# comes before PGO's, so its functions' control flow is not the profiled
# one): clang reports them, those that ran among them.
cmd=$(kbuild_cmd "$UTREE" fs/read_write.o "$WORK/nogcov.o" | sed 's| -fprofile-arcs||; s| -ftest-coverage||')
(cd "$UTREE" && eval "$cmd") >nogcov.log 2>&1
mismatches nogcov.log >nogcov.txt
[ "$(awk '$2 > 0' nogcov.txt | wc -l)" -gt 0 ] &&
  pass "... which it would say: without gcov's flags, read_write.c's functions are reported mismatched ($(wc -l <nogcov.txt), $(awk '$2 > 0' nogcov.txt | wc -l) of them run)" ||
  fail "the mismatch check proves nothing: read_write.c without gcov's flags: $(head -c 300 nogcov.log)"

# Where the profile put the code: each function's section in the objects.
# placed OBJECT...: "function section" for each function defined in them
# (as "SOURCE;function section": the profile's name for a static function)
placed() {
  for o in "$@"; do
    objdump -t "$UTREE/$o" | awk -v src="${o%.o}.c" 'NF >= 6 && ($3 == "F" || $2 == "F") { print src ";" $NF, $(NF - 2) }'
  done
}
placed fs/read_write.o drivers/char/mem.o >placed.txt
# the counts of the profile the tree was built with (a cached tree keeps
# the first profile it was given), each function under both names
fns "$(dirname "$UTREE")/vmlinux.profdata" >built-counts.txt
sect() { awk -v f="$1" '{ n = $1; sub(/^[^;]*;/, "", n) } n == f { print $2 }' placed.txt; }
# dd's path out of line: the syscalls' entries (ksys_read, vfs_read and
# the like inlined into them) and /dev/zero's and /dev/null's handlers
hot_fns=(__x64_sys_read __x64_sys_write read_zero write_null)
n_hot=$(for f in "${hot_fns[@]}"; do sect "$f"; done | grep -c '^\.text\.hot')
# the functions of those files that never ran (no count in the profile),
# placed in a text section: how many are in .text.unlikely
never=$(awk 'NR == FNR { ran[$1] = $2; next }
  { g = $1; sub(/^[^;]*;/, "", g); k = ($1 in ran) ? $1 : g }
  (k in ran) && ran[k] == 0 && $2 ~ /^\.text/ { print $1, $2 }' built-counts.txt placed.txt)
n_never=$(echo "$never" | grep -c .)
n_unlikely=$(echo "$never" | grep -c ' \.text\.unlikely')
[ "$n_hot" = ${#hot_fns[@]} ] && [ "$n_never" -gt 20 ] && [ "$n_unlikely" = "$n_never" ] &&
  pass "the profile drives the build: dd's path (${hot_fns[*]}) in .text.hot; the $n_never functions of read_write.c and mem.c that never ran in .text.unlikely" ||
  fail "the build's placement: $n_hot of ${#hot_fns[@]} in .text.hot ($(for f in "${hot_fns[@]}"; do echo -n "$f:$(sect "$f") "; done)); $n_unlikely of $n_never never run in .text.unlikely ($(echo "$never" | grep -v unlikely | head -3 | tr '\n' ' '))"

# --- the rebuilt kernel's guest: the same checks ---
ctx_module "$UTREE" ctxmod-use LLVM=-19 || fail "the module against the rebuilt kernel: $(grep -m3 -i 'error\|warning' ctxmod-use.log)"
boot use "$UBZIMAGE" ctxmod-use/ucov_ctx.ko || fail "the rebuilt kernel's initramfs"
checks use "$UTREE" "the rebuilt kernel"
finish pgo
