#!/usr/bin/env bash
# The Clang PGO kernel document's option, CONFIG_PGO_CLANG, served by ucov's
# core built into vmlinux (kernel/linux/builtin/apply.sh), in one clang
# kernel with CONFIG_KCOV (clang's trace-pc and trace-cmp) and
# CONFIG_GCOV_KERNEL (clang's --coverage, fs/ profiled): Debian's 6.1
# source, build_kernel.sh pgo (LLVM=-19, -O2), booted under QEMU with
# panic_on_warn=1. Here: vmlinux's __llvm_prf_* sections; noinstr, early
# boot code and kernel/ucov carry no counters; a module built against the
# kernel is profiled by the kernel's own flags and module.lds. In the
# guest, the document's workflow: a write to pgo/reset, a workload (N reads),
# vmlinux.profraw copied (tests/kernel/pgo_vmlinux.c), and again with a
# module loaded, `cp -a` of pgo/profraw and of the module's file; `ucov
# pull --dev`; kcov.rst's PC and comparison programs; gcov's counts of
# fs/read_write.c between snapshots and after resets (gcov_vmlinux.c).
# Here again: llvm-profdata merge of each file; the read handlers' counts
# are exactly the N reads; the module's functions counted; llvm-cov gcov
# counts ksys_read exactly. The log must have no warning, BUG or Oops.
# Usage: pgo.sh UCOV SRCDIR WORKDIR
# Environment: UCOV_KERNEL_CACHE (default: ~/.cache/ucov/kernel),
# UCOV_QEMU_ACCEL (default tcg).
set -u
UCOV=$(realpath "$1") SRC=$(cd "$2" && pwd) WORK=$3
. "$SRC/tests/lib.sh"
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

# --- the build ---
sections=$(readelf -SW "$KTREE/vmlinux" | grep -o '__llvm_prf_[a-z]*' | sort -u | tr '\n' ' ')
case $sections in *__llvm_prf_cnts*__llvm_prf_data*__llvm_prf_names*) ok=1 ;; *) ok= ;; esac
[ -n "$ok" ] && nm "$KTREE/vmlinux" | grep -q ' __llvm_prf_data_start$' &&
  pass "vmlinux has the profile's sections: $sections" || fail "vmlinux's profile sections: $sections"
# counters a text refers to: its disassembly's __profc_ operands
profc() { objdump -d "$@" 2>/dev/null | grep -c '<__profc_'; }
n_text=$(profc -j .text "$KTREE/vmlinux")
n_noinstr=$(profc -j .noinstr.text "$KTREE/vmlinux")
n_head=$(profc "$KTREE/arch/x86/kernel/head64.o")
n_boot=$(for o in "$KTREE"/arch/x86/boot/compressed/*.o "$KTREE"/arch/x86/realmode/rm/*.o; do profc "$o"; done | awk '{ s += $1 } END { print s + 0 }')
n_ucov=$(for o in "$KTREE"/kernel/ucov/*.o "$KTREE"/kernel/ucov/core/*.o; do
  readelf -SW "$o" | grep -c ' __llvm_prf_cnts ' || true
done | awk '{ s += $1 } END { print s + 0 }')
[ "$n_text" -gt 10000 ] && [ "$n_noinstr" = 0 ] && [ "$n_head" = 0 ] && [ "$n_boot" = 0 ] && [ "$n_ucov" = 0 ] &&
  pass "counters in .text ($n_text updates), none in .noinstr.text, head64.o, the decompressor and real mode; kernel/ucov has none" ||
  fail "counters: .text $n_text, .noinstr.text $n_noinstr, head64.o $n_head, boot $n_boot, kernel/ucov $n_ucov"

# A module built against the kernel as any module is: the kernel's flags
# profile it, its module.lds joins its profile's sections.
mkdir -p ctxmod && cp "$SRC/tests/kernel/ctx/ucov_ctx.c" ctxmod/ &&
  printf 'obj-m := ucov_ctx.o\nccflags-y += -I%s/kernel/linux\n' "$SRC" >ctxmod/Kbuild &&
  make -s -C "$KTREE" LLVM=-19 M="$(pwd)/ctxmod" modules >ctxmod.log 2>&1 && ! grep -qi warning ctxmod.log &&
  [ "$(readelf -SW ctxmod/ucov_ctx.ko | grep -c ' __llvm_prf_cnts ')" = 1 ] &&
  nm ctxmod/ucov_ctx.ko | grep -q ' __ucov_prf_data$' &&
  pass "a module built against the kernel: profiled, its counters in one section between ucov's symbols" ||
  fail "the module: $(grep -m3 -i 'error\|warning' ctxmod.log) $(readelf -SW ctxmod/ucov_ctx.ko | grep -c ' __llvm_prf_cnts ') __llvm_prf_cnts sections"

# --- the guest ---
gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/kcov_vmlinux.c" -o kcov_vmlinux &&
  gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/kcov_ctx.c" -o kcov_ctx &&
  gcc -static -O1 "$SRC/tests/kernel/gcov_vmlinux.c" -o gcov_vmlinux &&
  gcc -static -O1 "$SRC/tests/kernel/pgo_vmlinux.c" -o pgo_vmlinux || {
  fail "the guest's programs"
  finish pgo
  exit 1
}
mkdir -p ir/bin ir/proc ir/sys ir/dev ir/tmp
cp /bin/busybox kcov_vmlinux kcov_ctx gcov_vmlinux pgo_vmlinux ir/bin/ && guest_ucov "$UCOV" ir &&
  cp ctxmod/ucov_ctx.ko ir/ || {
  fail "initramfs"
  finish pgo
  exit 1
}
{
  cat "$SRC/tests/kernel/guest_init_head.sh"
  cat <<'INIT'
P=/sys/kernel/debug/pgo
say "pgo files $(ls $P | tr '\n' ' ')"
mkdir -p /tmp/out/doc /tmp/out/g
# the document's workflow, with a workload whose counts are known
/bin/pgo_vmlinux $P 1000 /tmp/out/vmlinux.profraw >/tmp/pgo.txt 2>&1 && say "$(cat /tmp/pgo.txt)"
# and as the document says it, with a module loaded and at work
echo 1 >$P/reset
insmod /ucov_ctx.ko && say "insmod ok"
say "pgo files $(ls $P | tr '\n' ' ')"
/bin/kcov_ctx 20 >/tmp/ctx.txt 2>&1 && say "kcov_ctx ok"
cp -a $P/profraw $P/vmlinux.profraw $P/ucov_ctx.profraw /tmp/out/doc/ && say "cp ok"
ucov pull --dev /dev/ucov -o /tmp/out/P >/tmp/pull.txt 2>&1 && say "pull ok"
sed 's/^/UCOV-GUEST pull-err /' /tmp/pull.txt | head -3
rmmod ucov_ctx && say "rmmod ok"
say "pgo files $(ls $P | tr '\n' ' ')"
# KCOV, clang's
/bin/kcov_vmlinux pc >/tmp/pc.txt 2>/tmp/pc.err && say "pc ok $(wc -l </tmp/pc.txt)"
sed 's/^/UCOV-PC /' /tmp/pc.txt
/bin/kcov_vmlinux cmp >/tmp/cmp.txt 2>/tmp/cmp.err && say "cmp ok $(wc -l </tmp/cmp.txt)"
grep -c '^cmp ' /tmp/cmp.txt | sed 's/^/UCOV-GUEST cmp records /'
grep -q '^cmp 0x[0-7] .*0xffffffff' /tmp/cmp.txt && say "cmp fd ok"
# gcov, clang's: fs/read_write.c's counts between snapshots and after resets
g=$(find /sys/kernel/debug/gcov -name read_write.gcda | head -1)
say "gcda $g"
say "gcov units $(find /sys/kernel/debug/gcov -name '*.gcda' | wc -l)"
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
} >ir/init && chmod +x ir/init
(cd ir && find . | cpio -o -H newc 2>/dev/null | gzip -1 >../initrd.gz) || {
  fail "initramfs"
  finish pgo
  exit 1
}
timeout 900 qemu-system-x86_64 -accel "${UCOV_QEMU_ACCEL:-tcg}" -cpu max -smp 2 -m 1024 -display none \
  -no-reboot -serial file:console.txt -kernel "$BZIMAGE" -initrd initrd.gz \
  -append "console=ttyS0 panic=-1 panic_on_warn=1 quiet" </dev/null >qemu.out 2>&1
tr -d '\r' <console.txt >console.log
sed '/^UCOV-FILES-BEGIN$/,/^UCOV-FILES-END$/d' console.log >log.txt
guest() { grep -q "^UCOV-GUEST $1\$" console.log; }
guest "done" && pass "the guest booted and ran to its end" || fail "the guest: $(tail -5 console.log)"
sed -n '/^UCOV-FILES-BEGIN$/,/^UCOV-FILES-END$/p' console.log | sed '1d;$d' | base64 -d | tar xzf - 2>/dev/null

# --- the profiles ---
guest "pgo files profraw reset vmlinux.profraw " &&
  guest "pgo files profraw reset ucov_ctx.profraw vmlinux.profraw " &&
  pass "/sys/kernel/debug/pgo: profraw, vmlinux.profraw, reset; the module's file while it is loaded" ||
  fail "/sys/kernel/debug/pgo: $(grep 'UCOV-GUEST pgo files' console.log | tr '\n' ' ')"
# entry_counts PROFDATA OBJECT: "function count" for each function of the
# kernel's OBJECT (as fs/read_write.o), as clang reads them from the
# profile: the object's own compile command (kbuild's .cmd) with
# -fprofile-use for -fprofile-generate, the module printed right after
# clang's PGO pass (entry counts before any inlining), nothing written.
entry_counts() {
  local cmd
  cmd=$(sed -n "s|^savedcmd_$2 := ||p; s|^cmd_$2 := ||p" "$KTREE/$(dirname "$2")/.$(basename "$2").cmd" | head -1)
  cmd=${cmd%%;*}
  cmd=$(echo "$cmd" | sed "s| -Wp,-MMD,[^ ]*||; s| -o $2 | -o /dev/null |; s| -fprofile-generate | -fprofile-use=$1 |")
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
"$PROFDATA" merge -o vmlinux.profdata out/vmlinux.profraw 2>merge.err &&
  n_fns=$("$PROFDATA" show vmlinux.profdata | sed -n 's/^Total functions: //p') && [ "${n_fns:-0}" -gt 1000 ] &&
  pass "llvm-profdata merges vmlinux.profraw ($n_fns functions)" || fail "llvm-profdata merge: $(head -3 merge.err)"
entry_counts "$WORK/vmlinux.profdata" fs/read_write.o >rw-counts.txt
read -r _ n_reads _ < <(grep -m1 '^UCOV-GUEST pgo [0-9]* [0-9]*$' console.log | cut -d' ' -f2-)
rc() { awk -v f="$1" '$1 == f { print $2 }' rw-counts.txt; }
guest "pgo 1000 [0-9]*" && [ "$(rc ksys_read)" = 1000 ] && [ "$(rc __x64_sys_read)" = 1000 ] &&
  pass "counts exact: after pgo/reset, read's handlers entered 1000 times for 1000 reads (clang's reading: ksys_read $(rc ksys_read), __x64_sys_read $(rc __x64_sys_read))" ||
  fail "counts after the reset: ksys_read $(rc ksys_read), __x64_sys_read $(rc __x64_sys_read) for ${n_reads:-no} reads ($(head -c 300 rw-counts.txt | tr '\n' ' '))"

# The document's own steps, with the module loaded: cp -a of profraw (all
# profiles), vmlinux.profraw and the module's file; ucov pull --dev.
guest "insmod ok" && guest "kcov_ctx ok" && guest "cp ok" && guest "rmmod ok" &&
  pass "the module loads, works and unloads; cp -a copies the files" ||
  fail "the document's steps: $(grep 'UCOV-GUEST \(insmod\|kcov_ctx\|cp\|rmmod\)' console.log | tr '\n' ' ')"
# fns PROFRAW: the functions of a raw profile, "name count-of-its-counters-sum"
fns() { "$PROFDATA" show --all-functions --counts "$1" 2>/dev/null | awk '/^  [^ ].*:$/ { f = substr($1, 1, length($1) - 1) }
  /Block counts:/ { gsub(/[^0-9,]/, ""); n = split($0, c, ","); s = 0; for (i = 1; i <= n; i++) s += c[i]; print f, s }'; }
fns out/doc/profraw >all.txt
fns out/doc/ucov_ctx.profraw >mod.txt
fns out/doc/vmlinux.profraw >vml.txt
# in_ LIST FUNCTION: FUNCTION counted in LIST (a static one's name is
# "file;function")
in_() { awk -v f="$2" '($1 == f || substr($1, length($1) - length(f)) == ";" f) && $2 > 0 { found = 1 }
  END { exit !found }' "$1"; }
in_ all.txt ctx_body && in_ all.txt ksys_write && in_ mod.txt ctx_body && ! in_ mod.txt ksys_write &&
  in_ vml.txt ksys_write && ! grep -q 'ctx_body' vml.txt &&
  pass "profraw holds vmlinux's profile and the module's ($(wc -l <all.txt) functions), ucov_ctx.profraw the module's ($(wc -l <mod.txt)), vmlinux.profraw vmlinux's ($(wc -l <vml.txt))" ||
  fail "the profiles: profraw $(wc -l <all.txt), ucov_ctx.profraw $(wc -l <mod.txt), vmlinux.profraw $(wc -l <vml.txt) functions"
guest "pull ok" && [ -f out/P/pgo/vmlinux.profraw ] && [ -f out/P/pgo/ucov_ctx.profraw ] &&
  "$PROFDATA" merge -o pulled.profdata out/P/pgo/vmlinux.profraw out/P/pgo/ucov_ctx.profraw 2>pull-merge.err &&
  pass "ucov pull --dev: pgo/vmlinux.profraw and pgo/ucov_ctx.profraw, which llvm-profdata merges" ||
  fail "ucov pull --dev: $(find out/P -name '*.profraw' | tr '\n' ' ') $(head -2 pull-merge.err) $(grep pull-err console.log | head -2)"

# --- KCOV and gcov in the same kernel ---
nm -n "$KTREE/vmlinux" | awk '$2 ~ /^[tTwW]$/ {print $1, $3}' >syms.txt
sed -n 's/^UCOV-PC 0x\([0-9a-f]*\)$/\1/p' console.log >pcs.txt
python3 "$SRC/tests/kernel/symbolize.py" syms.txt pcs.txt >pcfuncs.txt
guest "pc ok [1-9][0-9]*" && grep -qx ksys_read pcfuncs.txt && ! grep -q outside-the-text pcfuncs.txt &&
  pass "KCOV (clang's trace-pc): kcov.rst's program, $(wc -l <pcs.txt) PCs of read, each in vmlinux's text" ||
  fail "KCOV's PCs: $(sort -u pcfuncs.txt | head -5 | tr '\n' ' ') $(grep 'UCOV-GUEST err' console.log | head -2)"
guest "cmp ok [1-9][0-9]*" && guest "cmp fd ok" &&
  pass "KCOV (clang's trace-cmp): kcov.rst's comparison program, read's fd among the operands" ||
  fail "KCOV's comparisons: $(grep 'UCOV-GUEST cmp' console.log | tr '\n' ' ')"
# called SNAPSHOT: ksys_read's calls in it, by llvm-cov gcov (the notes
# name the sources as kbuild gave them, relative to the tree)
called() {
  rm -rf "w$1" && mkdir -p "w$1" && cp "$KTREE/fs/read_write.gcno" "w$1/" && cp "out/g/$1.gcda" "w$1/read_write.gcda" &&
    ln -s "$KTREE/fs" "$KTREE/include" "$KTREE/arch" "w$1/" &&
    (cd "w$1" && "$LLVM_COV" gcov -b -o . "$KTREE/fs/read_write.c" >/dev/null 2>&1) &&
    sed -n 's/^function ksys_read called \([0-9]*\) .*/\1/p' "w$1/read_write.c.gcov" | head -1
}
read -r _ ra _ < <(grep -m1 '^UCOV-GUEST gcov [0-9]* [0-9]*$' console.log | cut -d' ' -f2-)
ca=$(called A) cb=$(called B) cc=$(called C) cd_=$(called D)
[ -n "$ca" ] && [ -n "$cb" ] && [ -n "${ra:-}" ] && [ "$((cb - ca))" = "$((ra + 1000))" ] && [ "$cc" = 777 ] &&
  [ "$cd_" = 555 ] && guest "gcda /sys/kernel/debug/gcov$KTREE/fs/read_write.gcda" &&
  pass "gcov (clang's --coverage, fs/): llvm-cov gcov counts ksys_read exactly: $ca, then $cb (1000 reads and $ra), 777 after the unit's reset, 555 after gcov/reset" ||
  fail "gcov: ksys_read $ca, $cb (reads of the file: ${ra:-?}), ${cc:-nothing} (777), ${cd_:-nothing} (555)"
! grep -q -E 'WARNING|BUG|Oops|Call Trace|general protection|scheduling while atomic' log.txt &&
  pass "no warning, BUG or Oops" || fail "the log: $(grep -E 'WARNING|BUG|Oops' log.txt | head -3)"
finish pgo
