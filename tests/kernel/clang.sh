#!/usr/bin/env bash
# ucov.ko in a clang-built kernel, under QEMU: Debian's own 6.1 source built
# with LLVM=-19 (clang_kernel.sh, cached), ucov.ko and the demo module built
# against it with LLVM=-19, the module with UCOV_TRACE, UCOV_GCOV and
# UCOV_PGO (ucov.mk). In the guest, the Clang PGO kernel document's workflow:
# echo 1 >/sys/kernel/debug/pgo/reset, a workload (the demo device evaluates
# a set of expressions), cp -a /sys/kernel/debug/pgo/profraw (and
# vmlinux.profraw, and the module's own file), a reset again, and
# `ucov pull --dev /dev/ucov`; then the module's unload. Here: llvm-profdata
# merge of each, whose parser functions' counts equal a userspace
# -fprofile-instr-generate build of the same parser given the same
# expressions; kcov.rst's PC and CMP programs (clang's trace-pc and
# trace-cmp); clang's --coverage records (llvm-cov gcov reads them, and lcov
# through it), whose parser.c line counts equal a userspace clang --coverage
# build's. No warning in the log; the taint only O and E.
# Usage: clang.sh UCOV SRCDIR WORKDIR
# Environment: UCOV_KERNEL_CACHE (default: ~/.cache/ucov/kernel),
# UCOV_QEMU_ACCEL (default tcg).
set -u
UCOV=$1 SRC=$(cd "$2" && pwd) WORK=$3
. "$SRC/tests/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
WORK=$(pwd -P)
if [ "$(uname -m)" != x86_64 ]; then
  echo "kernel checks skipped: the kernel is built for x86_64, on an x86_64 host"
  exit 77
fi
start=$(date +%s)
if ! got=$(bash "$SRC/tests/kernel/clang_kernel.sh" "${UCOV_KERNEL_CACHE:-$HOME/.cache/ucov/kernel}" 2>build-kernel.err); then
  fail "the clang-built kernel: $(cat build-kernel.err)"
  finish clang-kernel
  exit 1
fi
read -r KDIR BZIMAGE <<<"$got"
pass "the clang-built kernel ($(cat "$KDIR/../done"); this run waited $(($(date +%s) - start)) s)"
LLVM_PROFDATA=llvm-profdata-19
LLVM_COV=llvm-cov-19

# ucov.ko and the demo module with LLVM=-19 (copies: kbuild writes beside the sources).
mkdir -p tree/kernel tree/examples
mkdir -p tree/tests/kernel
cp -r "$SRC/kernel/linux" tree/kernel/ && cp -r "$SRC/examples/linux-module" "$SRC/examples/baremetal" tree/examples/ &&
  cp -r "$SRC/tests/kernel/ctx" tree/tests/kernel/
# (the contexts' module is one object: ucov.mk's own link of it joins its sections)
make -s -C tree/kernel/linux KDIR="$KDIR" LLVM=-19 UCOV_SRC="$SRC" >build.log 2>&1 &&
  make -s -C tree/examples/linux-module KDIR="$KDIR" LLVM=-19 UCOV_DIR="$WORK/tree" UCOV_PGO=y >>build.log 2>&1 &&
  make -s -C tree/tests/kernel/ctx KDIR="$KDIR" LLVM=-19 UCOV_DIR="$WORK/tree" UCOV_PGO=y >>build.log 2>&1 &&
  pass "ucov.ko, the demo module (UCOV_TRACE, UCOV_GCOV, UCOV_PGO) and a module of one object build with LLVM=-19" ||
  {
    fail "modules: $(grep -m3 -i 'error' build.log)"
    finish clang-kernel
    exit 1
  }
! grep -qi 'warning' build.log && pass "the modules build without warnings" || fail "module build warnings: $(grep -m3 -i warning build.log)"
KO=tree/examples/linux-module/ucov_demo.ko
[ "$(llvm-readelf-19 -p .comment $KO 2>/dev/null | grep -c 'clang version 19')" -ge 1 ] &&
  [ "$(objdump -dr $KO | grep -c '__sanitizer_cov_trace_pc')" -gt 20 ] &&
  [ "$(objdump -dr $KO | grep -c '__sanitizer_cov_trace_cmp\|__sanitizer_cov_trace_const_cmp')" -gt 5 ] &&
  nm $KO | grep -q ' __llvm_gcov_init$' && nm $KO | grep -q ' __ucov_prf_data$' &&
  [ "$(readelf -SW $KO | grep -c ' __llvm_prf_data ')" = 1 ] &&
  pass "the demo module: clang's, with trace-pc, trace-cmp, --coverage, and one __llvm_prf_data" ||
  fail "the demo module's instrumentation: $(readelf -SW $KO | grep -c ' __llvm_prf_data ') __llvm_prf_data sections"
CTX=tree/tests/kernel/ctx/ucov_ctx.ko
[ "$(readelf -SW $CTX | grep -c ' __llvm_prf_data ')" = 1 ] && nm $CTX | grep -q ' __ucov_prf_data$' &&
  [ "$(objdump -dr tree/kernel/linux/ucov.ko | grep -c 'R_X86_64_[A-Z0-9]*[[:space:]]*__sanitizer_cov\|__llvm_gcov\|__profc_')" = 0 ] &&
  pass "the module of one object has one __llvm_prf_data too; ucov.ko is not instrumented" ||
  fail "the module of one object: $(readelf -SW $CTX | grep -c ' __llvm_prf_data ') __llvm_prf_data sections"
# Against headers configured for gcc (Debian's), UCOV_PGO is refused, with the reason.
gcc_kdir=$(compgen -G '/usr/src/linux-headers-*-amd64' | head -1)
if [ -n "$gcc_kdir" ]; then
  mkdir -p refused && cp -r "$SRC/examples/linux-module/." refused/ && cp -r "$SRC/examples/baremetal" .
  ! make -s -C refused KDIR="$gcc_kdir" UCOV_DIR="$WORK/tree" UCOV_PGO=y >refused.log 2>&1 &&
    grep -q 'UCOV_PGO needs a kernel configured for clang' refused.log &&
    pass "UCOV_PGO against gcc's headers: refused, with the reason" || fail "UCOV_PGO against gcc's headers: $(tail -2 refused.log)"
fi

for p in kcov_pc kcov_cmp; do
  gcc -static -O1 -pthread -I"$SRC/include" "$SRC/tests/kernel/$p.c" -o $p || {
    fail "$p"
    finish clang-kernel
    exit 1
  }
done
mkdir -p ir/bin ir/proc ir/sys ir/dev ir/tmp
cp /bin/busybox ir/bin/busybox && cp kcov_pc kcov_cmp ir/bin/ &&
  cp tree/kernel/linux/ucov.ko $KO $CTX ir/
EXPRS=("2 * (3 + 4) - 10 / 5" "(1 + 2" "7 % 3 - -4" "8 / (4 - 4)" "12 x" "((((5))))" "1+2+3+4*5" "-(-(-3))")
printf '%s\n' "${EXPRS[@]}" >ir/exprs.txt
guest_ucov "$UCOV" ir || fail "ucov into the initramfs"
{
  cat "$SRC/tests/kernel/guest_init_head.sh"
  cat <<'INIT'
D=/sys/kernel/debug
insmod /ucov.ko && say "insmod ucov ok"
say "pgo before $(ls $D/pgo | tr '\n' ' ')"
insmod /ucov_demo.ko && say "insmod demo ok"
say "pgo files $(ls $D/pgo | tr '\n' ' ')"
echo "text $(cat /sys/module/ucov_demo/sections/.text)" | sed 's/^/UCOV-GUEST /'
echo '2 * (3 + 4) - 10 / 5' >/dev/ucov-demo
say "demo reads $(cat /dev/ucov-demo)"
/bin/kcov_pc >/tmp/pc.txt 2>/tmp/pc.err && say "kcov_pc ok"
sed 's/^/UCOV-PC /' /tmp/pc.txt
/bin/kcov_cmp >/tmp/cmp.txt 2>/tmp/cmp.err && say "kcov_cmp ok"
sed 's/^/UCOV-CMP /' /tmp/cmp.txt
sed 's/^/UCOV-GUEST err /' /tmp/pc.err /tmp/cmp.err
say "gcov units $(find $D/gcov -name '*.gcda' | wc -l)"
# The Clang PGO document's workflow, and gcov.rst's reset.
mkdir -p /tmp/out
echo 1 >$D/pgo/reset && say "pgo reset ok"
echo 1 >$D/gcov/reset && say "gcov reset ok"
while read -r e; do
  printf '%s' "$e" >/dev/ucov-demo
  say "eval $(cat /dev/ucov-demo)"
done </exprs.txt
cp -a $D/pgo/profraw /tmp/out/vmlinux.profraw && say "cp -a profraw ok"
cp -a $D/pgo/vmlinux.profraw /tmp/out/new-name.profraw && say "cp -a vmlinux.profraw ok"
cp -a $D/pgo/ucov_demo.profraw /tmp/out/module.profraw && say "cp -a ucov_demo.profraw ok"
cp -a $D/gcov /tmp/out/gcovcopy && say "cp -a gcov ok"
ucov pull --dev /dev/ucov -o /tmp/out/P >/tmp/pull.out 2>&1 && say "pull ok"
sed 's/^/UCOV-GUEST pull-err /' /tmp/pull.out
echo 1 >$D/pgo/reset && cp -a $D/pgo/profraw /tmp/out/after-reset.profraw && say "reset again ok"
printf '1+1' >/dev/ucov-demo && cat /dev/ucov-demo >/dev/null
echo 1 >$D/pgo/ucov_demo.profraw && cp -a $D/pgo/ucov_demo.profraw /tmp/out/module-reset.profraw && say "module reset ok"
insmod /ucov_ctx.ko && say "insmod ctx ok"
say "pgo with ctx $(ls $D/pgo | tr '\n' ' ')"
cp -a $D/pgo/ucov_ctx.profraw /tmp/out/ctx.profraw && say "cp -a ucov_ctx.profraw ok"
rmmod ucov_ctx && say "rmmod ctx ok"
rmmod ucov_demo && say "rmmod demo ok"
say "pgo after rmmod $(ls $D/pgo | tr '\n' ' ')"
say "profraw bytes after rmmod $(wc -c <$D/pgo/profraw)"
ucov ls --dev /dev/ucov >/tmp/ls.txt 2>&1
say "objects after rmmod $(grep -c 'pgo/\|\.gcda' /tmp/ls.txt)"
rmmod ucov && say "rmmod ucov ok"
say "taint $(cat /proc/sys/kernel/tainted)"
dmesg | grep -i -E 'warn|bug|oops|ucov|call trace|general protection|atomic|allocation failure' |
  sed 's/^/UCOV-DMESG /'
echo UCOV-TAR-BEGIN
tar czf - -C /tmp out | base64
echo UCOV-TAR-END
say done
reboot -f
INIT
} >ir/init && chmod +x ir/init
(cd ir && find . | cpio -o -H newc 2>/dev/null | gzip -1 >../initrd.gz) || {
  fail "initramfs"
  finish clang-kernel
  exit 1
}
accel=${UCOV_QEMU_ACCEL:-tcg}
timeout 400 qemu-system-x86_64 -accel "$accel" -cpu max -smp 2 -m 1024 -display none -monitor none \
  -no-reboot -serial file:console.txt -kernel "$BZIMAGE" -initrd initrd.gz \
  -append "console=ttyS0 panic=-1 quiet" </dev/null >qemu.out 2>&1
tr -d '\r' <console.txt >console.log
guest() { grep -q "UCOV-GUEST $1" console.log; }
for what in "insmod ucov ok" "insmod demo ok" "demo reads 12" "kcov_pc ok" "kcov_cmp ok" "gcov units 2" "pgo reset ok" \
  "gcov reset ok" "cp -a profraw ok" "cp -a vmlinux.profraw ok" "cp -a ucov_demo.profraw ok" "cp -a gcov ok" \
  "pull ok" "reset again ok" "module reset ok" "insmod ctx ok" "cp -a ucov_ctx.profraw ok" "rmmod ctx ok" "rmmod demo ok" "objects after rmmod 0" "rmmod ucov ok" "done"; do
  guest "$what" && pass "guest: $what" || fail "guest: $what ($(grep -m3 'UCOV-GUEST .*err \|Oops\|BUG' console.log))"
done
guest "pgo before profraw reset vmlinux.profraw $" && guest "pgo files profraw reset ucov_demo.profraw vmlinux.profraw $" &&
  guest "pgo with ctx profraw reset ucov_ctx.profraw ucov_demo.profraw vmlinux.profraw $" &&
  guest "pgo after rmmod profraw reset vmlinux.profraw $" && guest "profraw bytes after rmmod 0" &&
  pass "pgo/: profraw, vmlinux.profraw, reset and each module's file, which goes with it" ||
  fail "pgo/: $(grep 'UCOV-GUEST pgo\|UCOV-GUEST profraw' console.log | tr '\n' ' ')"

sed -n '/UCOV-TAR-BEGIN/,/UCOV-TAR-END/p' console.log | sed '1d;$d' | base64 -d >back.tar.gz 2>/dev/null &&
  tar xzf back.tar.gz && [ -d out ] && pass "the guest's files" || fail "the guest's files"

# The userspace twin: the same parser with -fprofile-instr-generate (and
# --coverage) from clang 19, given the same expressions once each.
mkdir -p twin && (cd twin && clang-19 -O2 -fprofile-instr-generate --coverage -I"$SRC/examples/baremetal" \
  "$SRC/tests/kernel/parser_driver.c" "$SRC/examples/baremetal/parser.c" -o driver &&
  LLVM_PROFILE_FILE=u.profraw ./driver "${EXPRS[@]}" >../u.out) && $LLVM_PROFDATA merge -o u.profdata twin/u.profraw ||
  fail "the userspace parser"
sed -n 's/.*UCOV-GUEST eval //p' console.log | cmp -s - u.out && pass "the module answers as userspace does" ||
  fail "the module's answers differ from userspace"
# counts PROFDATA: per parser function (its name without the file's prefix),
# its hash, counters, function count and block counts.
counts() {
  $LLVM_PROFDATA show --all-functions --counts "$1" | awk '
    /^  [^ ].*:$/ {name = $0; sub(/^  /, "", name); sub(/:$/, "", name); sub(/.*[:;]/, "", name); next}
    /Hash:/ {hash = $2} /Counters:/ {n = $2} /Function count:/ {fc = $3}
    /Block counts:/ {print name, hash, n, fc, $0}' | grep -E '^(parse_expr|expr|term|primary|skip_blanks|number) ' | sort
}
counts u.profdata >u-counts.txt
for f in vmlinux new-name module after-reset module-reset; do
  $LLVM_PROFDATA merge -o "$f.profdata" "out/$f.profraw" 2>"$f.err" || fail "llvm-profdata merge $f.profraw: $(head -2 "$f.err")"
done
counts vmlinux.profdata >k-counts.txt
[ "$(wc -l <u-counts.txt)" -ge 4 ] && cmp -s k-counts.txt u-counts.txt &&
  pass "cp -a pgo/profraw; llvm-profdata merge: the parser's $(wc -l <u-counts.txt) functions' counts equal userspace's" ||
  fail "pgo/profraw's counts: $(diff k-counts.txt u-counts.txt | head -4 | tr '\n' ' ')"
counts new-name.profdata | cmp -s - k-counts.txt && counts module.profdata | cmp -s - k-counts.txt &&
  pass "pgo/vmlinux.profraw and pgo/ucov_demo.profraw: the same" || fail "pgo/vmlinux.profraw or pgo/ucov_demo.profraw differ"
$LLVM_PROFDATA show --all-functions --counts after-reset.profdata | grep -q 'Block counts' &&
  ! $LLVM_PROFDATA show --all-functions --counts after-reset.profdata | grep 'Block counts' | grep -q '[1-9]' &&
  pass "a write to pgo/reset zeroes every count" || fail "pgo/reset: $($LLVM_PROFDATA show --all-functions --counts after-reset.profdata | grep -m3 'Block counts')"
$LLVM_PROFDATA show --all-functions --counts module-reset.profdata | grep -q 'Block counts' &&
  ! $LLVM_PROFDATA show --all-functions --counts module-reset.profdata | grep 'Block counts' | grep -q '[1-9]' &&
  pass "a write to pgo/ucov_demo.profraw zeroes the module's counts" || fail "a write to pgo/ucov_demo.profraw"
$LLVM_PROFDATA merge -o pull.profdata out/P/pgo/profraw 2>pull.err && counts pull.profdata | cmp -s - k-counts.txt &&
  [ -f out/P/pgo/ucov_demo.profraw ] && pass "ucov pull --dev /dev/ucov: the same profile" ||
  fail "ucov pull --dev /dev/ucov: $(head -2 pull.err) $(cd out/P/pgo 2>&1 && echo ./*)"
$LLVM_PROFDATA merge -o ctx.profdata out/ctx.profraw 2>ctx.err &&
  $LLVM_PROFDATA show --function=ctx_init ctx.profdata | grep -q 'Function count: 1$' &&
  pass "the module of one object: its profile (ctx_init ran once)" || fail "the module of one object's profile: $(head -2 ctx.err)"
# A rebuild with the profile, as the document's last step.
clang-19 -O2 -fprofile-instr-use=vmlinux.profdata -Werror=profile-instr-unprofiled -Wno-error=profile-instr-out-of-date \
  -I"$SRC/examples/baremetal" -c "$SRC/examples/baremetal/parser.c" -o rebuilt.o 2>use.err &&
  pass "a rebuild with -fprofile-instr-use" || fail "a rebuild with -fprofile-instr-use: $(head -3 use.err)"

# kcov: the PCs are the module's, in the functions the read ran; the
# comparisons hold the parser's operands.
text=$(sed -n "s/.*UCOV-GUEST text //p" console.log)
sed -n 's/^UCOV-PC //p' console.log >pcs.txt
python3 -c 'import sys
base = int(sys.argv[1], 16)
for l in open(sys.argv[2]):
    pc = int(l, 16)
    if base <= pc < base + (1 << 20): print(hex(pc - base))' "${text:-0}" pcs.txt >offsets.txt 2>/dev/null
[ "$(wc -l <pcs.txt)" -gt 10 ] && [ "$(wc -l <offsets.txt)" = "$(wc -l <pcs.txt)" ] &&
  pass "kcov PCs ($(wc -l <pcs.txt)), all in the module's text" || fail "kcov PCs: $(wc -l <pcs.txt), $(wc -l <offsets.txt) in the module's text"
xargs addr2line -f -j .text -e $KO <offsets.txt 2>/dev/null | awk 'NR % 2 == 1' | sort -u >functions.txt
for fn in demo_read parse_expr expr term primary; do
  grep -qx "$fn" functions.txt && pass "traced function $fn" || fail "traced function $fn (traced: $(tr '\n' ' ' <functions.txt))"
done
sed -n 's/^UCOV-CMP //p' console.log >cmps.txt
[ "$(wc -l <cmps.txt)" -gt 10 ] && grep -q '0x28\|0x2a' cmps.txt && pass "kcov comparisons ($(wc -l <cmps.txt))" ||
  fail "kcov comparisons: $(head -3 cmps.txt)"

# gcov: clang's records, read by llvm-cov gcov (lcov through it), with the
# notes files of this build: parser.c's line counts equal userspace's.
printf '#!/bin/sh\nexec %s gcov "$@"\n' "$LLVM_COV" >llvm-gcov && chmod +x llvm-gcov
lines_of() { # INFO: parser.c's DA lines, "line count"
  awk '/^SF:.*\/parser\.c$/ {on = 1; next} /^end_of_record/ {on = 0} on && /^DA:/ {
    split(substr($0, 4), a, ","); print a[1], a[2] }' "$1" | sort -k1,1
}
g=$(find out/gcovcopy -name parser.gcda | head -1)
[ -n "$g" ] && ln -sf "$WORK/tree/examples/linux-module/parser.gcno" "${g%.gcda}.gcno"
lcov -q --capture --gcov-tool "$WORK/llvm-gcov" -d "$(dirname "${g:-.}")" -o k.info >lcov-k.out 2>&1 &&
  lines_of k.info >k-lines.txt && [ -s k-lines.txt ] && pass "lcov (through llvm-cov gcov) reads the module's clang gcov records" ||
  fail "lcov over the clang gcov records: $(tail -3 lcov-k.out)"
lcov -q --capture --gcov-tool "$WORK/llvm-gcov" -d twin -o u.info >lcov-u.out 2>&1 && lines_of u.info >u-lines.txt ||
  fail "lcov over the userspace twin: $(tail -3 lcov-u.out)"
join k-lines.txt u-lines.txt >both.txt
common=$(wc -l <both.txt)
[ "$common" -gt 30 ] && ! awk '$2 != $3' both.txt | grep -q . && [ "$(wc -l <k-lines.txt)" = "$common" ] &&
  pass "parser.c line counts, module vs userspace: $common lines" ||
  fail "parser.c line counts: $common common of $(wc -l <k-lines.txt), differing: $(awk '$2 != $3' both.txt | head -4 | tr '\n' ' ')"
# lcov's kernel mode over the guest's cp -a of its gcov directory: the same.
lcov -q --capture --gcov-tool "$WORK/llvm-gcov" --rc lcov_gcov_dir="$WORK/out/gcovcopy" -o km.info >lcov-km.out 2>&1 &&
  lines_of km.info | cmp -s - k-lines.txt && pass "lcov's kernel mode (through llvm-cov gcov) over cp -a of gcov/: the same counts" ||
  fail "lcov's kernel mode over the copy: $(grep -v WARNING lcov-km.out | tail -3)"
(cd "$(dirname "${g:-.}")" && $LLVM_COV gcov -o . parser.gcda >../llvm-cov.out 2>&1) && grep -q 'Lines executed' "$(dirname "${g:-.}")/../llvm-cov.out" &&
  pass "llvm-cov gcov reads the module's records" || fail "llvm-cov gcov: $(head -3 "$(dirname "${g:-.}")/../llvm-cov.out" 2>/dev/null)"

bad='^UCOV-DMESG.*(WARNING|BUG|Oops|Call Trace|general protection|scheduling while atomic|page allocation failure)'
! grep -q -E "$bad" console.log && pass "dmesg: no warning, bug, oops or trace" || fail "dmesg: $(grep -m3 -E "$bad" console.log)"
taint=$(sed -n 's/.*UCOV-GUEST taint //p' console.log)
[ -n "$taint" ] && [ $((taint & ~(4096 | 8192))) = 0 ] && pass "taint $taint: out-of-tree and unsigned only" ||
  fail "taint ${taint:-unknown}"
finish clang-kernel
