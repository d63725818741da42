#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Turn a Linux source tree (6.1 or 6.12) into one where the documents' own
# options build ucov's core and its Linux port into vmlinux:
#   CONFIG_KCOV=y  /sys/kernel/debug/kcov (Documentation/dev-tools/kcov.rst)
#                  served by ucov, kernel/kcov.c no longer built; plus
#                  /sys/kernel/debug/gcov for modules built with ucov.mk and
#                  /dev/ucov (`ucov pull --dev`).
#   CONFIG_GCOV_KERNEL=y  /sys/kernel/debug/gcov (gcov.rst) for vmlinux
#                  (GCOV_PROFILE_ALL, or GCOV_PROFILE lines), served by ucov,
#                  kernel/gcov/ no longer built.
#   CONFIG_PGO_CLANG=y  (clang, x86-64) the Clang PGO kernel document's
#                  option: vmlinux built with -fprofile-generate, but for
#                  PGO_PROFILE := n lines, early boot code and noinstr, and
#                  /sys/kernel/debug/pgo/{profraw,vmlinux.profraw,reset}
#                  (and <module>.profraw) served by ucov.
# The kernel's instrumentation is kept as it is: scripts/Makefile.kcov and
# Makefile.lib, every KCOV_INSTRUMENT and GCOV_PROFILE line, noinstr, the
# KCOV_* and GCOV_* options and task_struct's kcov fields, which now hold
# ucov's state.
#
# What it changes, one concern each, printed as it goes (A: added, M:
# modified):
#   kernel/ucov/           ucov's core (a copy of the repository's src/core,
#                          src/proto/frame.c and include/ucov: one source,
#                          shared with ucov.ko) and its Linux port (a copy of
#                          kernel/linux), with a Makefile and a Kconfig;
#   kernel/Makefile        kernel/ucov/ built for CONFIG_UCOV, not kcov.o nor
#                          gcov/;
#   lib/Kconfig.debug      KCOV selects UCOV, its help says what it costs;
#   kernel/gcov/Kconfig    GCOV_KERNEL selects UCOV, and says so; kernel/gcov/
#                          is no longer built (kernel/Makefile);
#   Makefile, scripts/Makefile.lib  CFLAGS_PGO_CLANG (-fprofile-generate),
#                          given to every file but where PGO_PROFILE := n
#                          or PGO_PROFILE_file.o := n says otherwise (as
#                          GCOV_PROFILE is);
#   include/asm-generic/vmlinux.lds.h, arch/x86/kernel/vmlinux.lds.S,
#   scripts/module.lds.S   the __llvm_prf_* sections in vmlinux and in each
#                          module, between symbols kernel/ucov finds them by;
#   arch/x86/... and drivers/firmware/efi/libstub Makefiles
#                          PGO_PROFILE := n beside GCOV_PROFILE := n (boot,
#                          decompressor, real mode, vDSO, purgatory, EFI
#                          stub and runtime) and for head64.o;
#   arch/x86/Kconfig       x86-64 selects ARCH_SUPPORTS_PGO_CLANG (last:
#                          with it, PGO_CLANG can be set).
# Run again it changes nothing (or refreshes the copies from the
# repository). A tree it does not know is left untouched, and it says why.
#
# Usage: apply.sh TREE
#        apply.sh --series DIR TREE
# --series: TREE (as released) is left as it is; DIR gets the same changes
# as a patch series, one concern a patch, ordered so that no step needs a
# later one (kernel/ucov is built from patch 4 on, PGO_CLANG can be set
# only after the last), as git format-patch
# writes them (0001-*.patch ...: git am or patch -p1 applies them in turn,
# and the tree is then what apply.sh makes). DIR's earlier NNNN-*.patch
# files are replaced.
set -u
die() {
  echo "apply.sh: $*" >&2
  exit 1
}
# series DIR TREE: the patch series for TREE as released, made in a copy of
# the files apply.sh edits.
series() {
  local out=$1 tree=$2 f n=0
  [ -f "$tree/kernel/Makefile" ] || die "$tree: no kernel/Makefile: not a Linux source tree"
  # shellcheck disable=SC2016
  grep -qx 'obj-$(CONFIG_KCOV) += kcov.o' "$tree/kernel/Makefile" ||
    die "$tree: already made over (or changed by hand): a series is made from a tree as released"
  work=$(mktemp -d) || die "no temporary directory"
  trap 'rm -rf "$work"' EXIT # (work: global, for the trap)
  mkdir -p "$work/a" "$out" || die "cannot make $out"
  for f in Makefile kernel/Makefile lib/Kconfig.debug kernel/gcov/Kconfig include/linux/kcov.h include/linux/sched.h \
    scripts/Makefile.lib scripts/module.lds.S include/asm-generic/vmlinux.lds.h arch/x86/kernel/vmlinux.lds.S \
    arch/x86/kernel/Makefile arch/x86/Kconfig "${PGO_OPT_OUTS[@]}"; do
    [ -f "$tree/$f" ] || case " ${PGO_OPT_OUTS[*]} " in *" $f "*) continue ;; esac
    mkdir -p "$work/a/$(dirname "$f")" && cp "$tree/$f" "$work/a/$f" || die "$tree: no $f"
  done
  cp -r "$work/a" "$work/b" && bash "$0" "$work/b" >"$work/apply.log" || {
    rm -rf "$work"
    die "the series: apply.sh on a copy failed"
  }
  rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch
  # patch_of SLUG SUBJECT BODY FILE...: the next patch, of the files' diffs.
  patch_of() {
    local slug=$1 subject=$2 body=$3 file
    shift 3
    n=$((n + 1))
    {
      echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
      echo "From: ucov <ucov@ucov.invalid>"
      echo "Date: $(LC_ALL=C date -R)"
      echo "Subject: [PATCH $n/8] $subject"
      echo
      echo "$body" | fold -s -w 72 | sed 's/ *$//'
      echo "---"
      for file in "$@"; do
        echo "diff --git a/$file b/$file"
        if [ -e "$work/a/$file" ]; then
          diff -u --label "a/$file" --label "b/$file" "$work/a/$file" "$work/b/$file"
        else
          echo "new file mode 100644"
          diff -u --label /dev/null --label "b/$file" /dev/null "$work/b/$file"
        fi
      done
      echo "-- "
      echo "ucov apply.sh"
      echo
    } >"$out/$(printf %04d $n)-$slug.patch"
    echo "$out/$(printf %04d $n)-$slug.patch"
  }
  local added
  added=$(cd "$work/b" && find kernel/ucov -type f | LC_ALL=C sort)
  # shellcheck disable=SC2086 # (file names without blanks)
  patch_of kernel-ucov "kernel/ucov: add ucov's coverage core and its Linux port" \
    "Add ucov's core (the KCOV and gcov engines, the /dev/ucov frame protocol) and its Linux port as kernel/ucov, with its Kconfig (UCOV, selected by the coverage options in the next patches, and PGO_CLANG, which an architecture enables last) and Makefile. Nothing builds it yet. The files are ucov's own sources, shared with its out-of-tree module ucov.ko; none of them is instrumented or sanitized, as kcov.o is not." \
    $added
  patch_of kcov-kconfig "kcov: select UCOV, which will serve /sys/kernel/debug/kcov" \
    "KCOV selects UCOV and sources its Kconfig; the help text says what the option costs with ucov: what kcov.c costs (a call per instrumented basic block, a load of current's kcov_mode and a test when nothing traces, KCOV_IRQ_AREA_SIZE words per CPU for softirq sections). kcov.c is still built: the switch is patch 4." \
    lib/Kconfig.debug
  patch_of gcov-kconfig "gcov: select UCOV, which will serve /sys/kernel/debug/gcov" \
    "GCOV_KERNEL selects UCOV; its help says that ucov serves the same files, links and reset, with a reset that moves a baseline and loses no count, and what that costs (a copy of a unit's counters at its first reset). kernel/gcov is still built: the switch is the next patch." \
    kernel/gcov/Kconfig
  patch_of kernel-makefile "kernel: build kernel/ucov in place of kcov.o and kernel/gcov" \
    "With CONFIG_UCOV, kernel/ucov serves both debugfs interfaces: kcov.o and kernel/gcov are no longer built, and kcov.o's instrumentation lines go with it (kernel/ucov's Makefile says them for its files). The kernel's instrumentation is unchanged: scripts/Makefile.kcov and Makefile.lib, every KCOV_INSTRUMENT and GCOV_PROFILE line, noinstr, and task_struct's kcov fields, which now hold ucov's state." \
    kernel/Makefile
  local outs=() f
  # (those apply.sh changed: 6.12's boot code needs no line, its objects are
  # not the kernel's)
  for f in "${PGO_OPT_OUTS[@]}" arch/x86/kernel/Makefile; do
    [ -f "$work/b/$f" ] && ! cmp -s "$work/a/$f" "$work/b/$f" && outs+=("$f")
  done
  patch_of pgo-kbuild "kbuild: build with CFLAGS_PGO_CLANG under CONFIG_PGO_CLANG" \
    "With CONFIG_PGO_CLANG, every file is built with clang's -fprofile-generate unless its Makefile says PGO_PROFILE_file.o := n, or PGO_PROFILE := n for its directory, as GCOV_PROFILE says for gcov. A module's link joins its profile's sections, which clang puts in a section group a function, into one each between symbols ucov finds. Nothing sets the option yet." \
    Makefile scripts/Makefile.lib scripts/module.lds.S
  patch_of pgo-vmlinux-lds "vmlinux.lds.h: place the LLVM profile's sections" \
    "PGO_CLANG_DATA puts the __llvm_prf_* sections after the bug table, each between __llvm_prf_<name>_start and _end, which ucov's Linux port reads them by; x86's linker script uses it as RW_DATA does." \
    include/asm-generic/vmlinux.lds.h arch/x86/kernel/vmlinux.lds.S
  # shellcheck disable=SC2068 # (file names without blanks)
  patch_of pgo-x86-opt-out "x86: do not profile early boot code with PGO_CLANG" \
    "What GCOV_PROFILE := n keeps from gcov on x86 (boot and decompressor, real mode, vDSO, purgatory, the EFI stub and runtime services) runs where the profile's counters and the runtime are not; so does head64.o, before the kernel is relocated. They are kept from PGO too. noinstr code is already kept from it by __no_profile." \
    ${outs[@]}
  patch_of pgo-x86-kconfig "x86: select ARCH_SUPPORTS_PGO_CLANG" \
    "x86-64 has what PGO_CLANG needs: its early code opts out and its linker script places the profile's sections. With this, CONFIG_PGO_CLANG can be set." \
    arch/x86/Kconfig
  rm -rf "$work"
}
# The Makefiles whose GCOV_PROFILE := n keeps code from PGO too (those a
# tree has: the EFI and UML ones are not in every tree).
PGO_OPT_OUTS=(arch/x86/boot/Makefile arch/x86/boot/compressed/Makefile arch/x86/realmode/rm/Makefile
  arch/x86/entry/vdso/Makefile arch/x86/purgatory/Makefile arch/x86/platform/efi/Makefile
  drivers/firmware/efi/libstub/Makefile)
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
if [ $# -eq 3 ] && [ "$1" = --series ]; then
  series "$2" "$3"
  exit
fi
[ $# -eq 1 ] || die "usage: apply.sh TREE, or apply.sh --series DIR TREE (a Linux 6.1 or 6.12 source tree)"
TREE=$1
[ -f "$TREE/Makefile" ] || die "$TREE: no Makefile: not a Linux source tree; left untouched"
ver=$(awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} END{print v "." p}' "$TREE/Makefile")
case $ver in
6.1 | 6.12) ;;
*) die "$TREE: Linux $ver is not one this knows (6.1, 6.12); left untouched" ;;
esac
KMAKE=$TREE/kernel/Makefile KCONF=$TREE/lib/Kconfig.debug
for f in "$KMAKE" "$KCONF" "$TREE/include/linux/kcov.h" "$TREE/include/linux/sched.h"; do
  [ -f "$f" ] || die "$TREE: no ${f#"$TREE"/}: not a Linux $ver source tree; left untouched"
done
# Each edit's anchor, before anything is written: the tree as released, or
# as this script left it. (Make's and awk's $ in single quotes, here and
# below, are theirs.)
# shellcheck disable=SC2016
grep -qx 'obj-$(CONFIG_KCOV) += kcov.o' "$KMAKE" && grep -qx 'obj-$(CONFIG_GCOV_KERNEL) += gcov/' "$KMAKE" ||
  grep -qx 'obj-$(CONFIG_UCOV) += ucov/' "$KMAKE" ||
  die "$TREE: kernel/Makefile has not the released lines for kcov.o and gcov/: a tree changed by hand; left untouched"
grep -qx 'config KCOV' "$KCONF" && awk '/^config KCOV$/{k=1} k&&/^\tselect DEBUG_FS$/{f=1} /^config KCOV_/{k=0} END{exit !f}' "$KCONF" ||
  die "$TREE: lib/Kconfig.debug's KCOV entry is not the released one; left untouched"
GCONF=$TREE/kernel/gcov/Kconfig
[ -f "$GCONF" ] && grep -qx 'config GCOV_KERNEL' "$GCONF" && grep -qx $'\tselect CONSTRUCTORS' "$GCONF" ||
  die "$TREE: kernel/gcov/Kconfig's GCOV_KERNEL entry is not the released one; left untouched"
grep -q 'unsigned int[[:space:]]*kcov_mode;' "$TREE/include/linux/sched.h" ||
  die "$TREE: task_struct has no kcov_mode; left untouched"
# PGO_CLANG's anchors: the GCOV lines its own follow.
grep -qx 'export CFLAGS_GCOV' "$TREE/Makefile" ||
  die "$TREE: the top Makefile has no 'export CFLAGS_GCOV'; left untouched"
# shellcheck disable=SC2016
grep -qx 'ifeq ($(CONFIG_GCOV_KERNEL),y)' "$TREE/scripts/Makefile.lib" ||
  die "$TREE: scripts/Makefile.lib has no CONFIG_GCOV_KERNEL block; left untouched"
grep -qx $'\tBUG_TABLE' "$TREE/arch/x86/kernel/vmlinux.lds.S" &&
  grep -q $'^\tBUG_TABLE[[:space:]]*\\\\$' "$TREE/include/asm-generic/vmlinux.lds.h" &&
  grep -qx '#define BUG_TABLE' "$TREE/include/asm-generic/vmlinux.lds.h" ||
  die "$TREE: the linker scripts have not the released BUG_TABLE lines; left untouched"
grep -q $'^\t__patchable_function_entries : ' "$TREE/scripts/module.lds.S" ||
  die "$TREE: scripts/module.lds.S has no __patchable_function_entries line; left untouched"
grep -qx $'\tselect ARCH_SUPPORTS_LTO_CLANG_THIN' "$TREE/arch/x86/Kconfig" ||
  die "$TREE: arch/x86/Kconfig has no ARCH_SUPPORTS_LTO_CLANG_THIN line; left untouched"
# shellcheck disable=SC2016
grep -q '^KASAN_SANITIZE_head$(BITS)\.o[[:space:]]*:= n$' "$TREE/arch/x86/kernel/Makefile" ||
  die "$TREE: arch/x86/kernel/Makefile has no KASAN_SANITIZE_head\$(BITS).o line; left untouched"

changed=0
# put SRC DEST: DEST (relative to TREE) made SRC's copy, if it differs.
put() {
  local dest=$TREE/$2
  if [ -f "$dest" ] && cmp -s "$1" "$dest"; then
    return 0
  fi
  local how=A
  [ -f "$dest" ] && how=M
  mkdir -p "$(dirname "$dest")" && cp "$1" "$dest" || die "cannot write $2"
  echo "$how $2"
  changed=$((changed + 1))
}
# edit FILE AWK-PROGRAM: FILE (relative to TREE) through awk, if that changes it.
edit() {
  local f=$TREE/$1 tmp
  tmp=$(mktemp) || die "no temporary file"
  awk "$2" "$f" >"$tmp" || {
    rm -f "$tmp"
    die "cannot edit $1"
  }
  if cmp -s "$tmp" "$f"; then
    rm -f "$tmp"
    return 0
  fi
  cat "$tmp" >"$f" && rm -f "$tmp" || die "cannot write $1"
  echo "M $1"
  changed=$((changed + 1))
}

# 1. kernel/ucov/: the port, its build files, the core and the headers.
for f in "$REPO"/kernel/linux/*.c "$REPO"/kernel/linux/*.h "$HERE"/tasks_builtin.c "$HERE"/untraced_builtin.c; do
  [ "$(basename "$f")" = tasks_module.c ] || put "$f" "kernel/ucov/$(basename "$f")"
done
put "$HERE/Makefile.ucov" kernel/ucov/Makefile
put "$HERE/Kconfig.ucov" kernel/ucov/Kconfig
put "$HERE/Makefile.core" kernel/ucov/core/Makefile
for f in "$REPO"/src/core/*.c "$REPO"/src/core/*.h "$REPO"/src/proto/frame.c; do
  put "$f" "kernel/ucov/core/$(basename "$f")"
done
for f in "$REPO"/kernel/linux/include/*.h; do
  put "$f" "kernel/ucov/include/$(basename "$f")"
done
for f in "$REPO"/include/ucov/*.h "$REPO"/include/ucov/port/*.h; do
  put "$f" "kernel/ucov/include/ucov/${f#"$REPO"/include/ucov/}"
done
# (the module's own file, which vmlinux does not build)
if [ -f "$TREE/kernel/ucov/tasks_module.c" ]; then
  rm -f "$TREE/kernel/ucov/tasks_module.c" && echo "D kernel/ucov/tasks_module.c" && changed=$((changed + 1))
fi

# 2. kernel/Makefile: ucov/ for kcov.o, and kcov.o's flags (ucov's own
# Makefile says them for its files) gone with it.
# shellcheck disable=SC2016
edit kernel/Makefile '
  /^# Don.t self-instrument\.$/ { held = $0; next }
  /^KCOV_INSTRUMENT_kcov\.o := n$/ { held = ""; next }
  held != "" { print held; held = "" }
  /^# If sanitizers detect any issues in kcov, it may lead to recursion$/ { skip = 1; next }
  skip && /^# via printk, etc\.$/ { next }
  /^(KASAN|KCSAN|UBSAN|KMSAN)_SANITIZE_kcov\.o := n$/ { next }
  /^CFLAGS_kcov\.o := / { skip = 0; next }
  /^obj-\$\(CONFIG_KCOV\) \+= kcov\.o$/ { print "obj-$(CONFIG_UCOV) += ucov/"; next }
  /^obj-\$\(CONFIG_GCOV_KERNEL\) \+= gcov\/$/ { next }
  { skip = 0; print }'

# 3. lib/Kconfig.debug: KCOV selects UCOV and says what it costs; UCOV's
# Kconfig sourced before it.
# shellcheck disable=SC2016
edit lib/Kconfig.debug '
  drop_blank && $0 == "" { drop_blank = 0; next }
  { drop_blank = 0 }
  /^source "kernel\/ucov\/Kconfig"$/ { drop_blank = 1; next }
  /^config KCOV$/ { print "source \"kernel/ucov/Kconfig\""; print ""; k = 1 }
  /^config KCOV_/ { k = 0 }
  k && /^\tselect UCOV$/ { next }
  k && /^\t  ucov.s core/ { u = 1 }
  k && u { if ($0 == "") u = 0; next }
  { print }
  k && /^\tselect DEBUG_FS$/ { print "\tselect UCOV" }
  k && /^\t  For more details, see Documentation\/dev-tools\/kcov\.rst\.$/ {
    print ""
    print "\t  ucov'"'"'s core (kernel/ucov) serves it: the device, ioctls, errno and"
    print "\t  buffer layout of kcov.rst, with ucov'"'"'s UNIQUE and PC_EXT modes and"
    print "\t  /dev/ucov beside them. What it costs is what kcov.c costs: a call in"
    print "\t  every instrumented basic block (when nothing traces, a load of"
    print "\t  current'"'"'s kcov_mode and a test), text that grows by those calls,"
    print "\t  and KCOV_IRQ_AREA_SIZE words per possible CPU for softirq sections."
  }'

# 4. kernel/gcov/Kconfig: GCOV_KERNEL selects UCOV (kernel/gcov/ is no
# longer built: kernel/Makefile above), and its help says so.
# shellcheck disable=SC2016
edit kernel/gcov/Kconfig '
  /^config GCOV_KERNEL$/ { k = 1 }
  /^config / && !/^config GCOV_KERNEL$/ { k = 0 }
  k && /^\tselect UCOV$/ { next }
  k && /^\tucov.s core/ { u = 1 }
  k && u { if ($0 == "") u = 0; next }
  { print }
  k && /^\tselect CONSTRUCTORS$/ { print "\tselect UCOV" }
  k && /^\tIf unsure, say N\.$/ {
    print ""
    print "\tucov'"'"'s core (kernel/ucov) serves /sys/kernel/debug/gcov: the same"
    print "\tfiles, links and reset, read as snapshots, and a reset that moves"
    print "\ta baseline and loses no count. What it costs is what gcov costs:"
    print "\tthe profiled files'"'"' counters and their updates, and a copy of"
    print "\tthe counters of each unit at its first reset."
  }'

# 5. Makefile: CFLAGS_PGO_CLANG, as CFLAGS_GCOV is given.
# shellcheck disable=SC2016
edit Makefile '
  /^ifdef CONFIG_PGO_CLANG$/ { skip = 1 }
  skip { if ($0 == "endif") { skip = 0; getline; if ($0 != "") print } ; next }
  { print }
  /^export CFLAGS_GCOV$/ {
    print ""
    print "ifdef CONFIG_PGO_CLANG"
    print "CFLAGS_PGO_CLANG\t:= -fprofile-generate"
    print "export CFLAGS_PGO_CLANG"
    print "# a module'"'"'s __llvm_prf_* sections, one section group a function,"
    print "# joined into one each (scripts/module.lds.S)"
    print "KBUILD_LDFLAGS_MODULE += $(call ld-option,--force-group-allocation)"
    print "endif"
  }'

# 6. scripts/Makefile.lib: CFLAGS_PGO_CLANG for every file but where
# PGO_PROFILE says n: a copy of the GCOV_KERNEL block (which says how this
# kernel names an object and which objects are the kernel's).
# shellcheck disable=SC2016
edit scripts/Makefile.lib '
  /^# Enable clang.s PGO profiling flags/ { skip = 1 }
  skip { if ($0 == "endif") { skip = 0; getline; if ($0 != "") print } ; next }
  { print }
  /^ifeq \(\$\(CONFIG_GCOV_KERNEL\),y\)$/ { g = 1; n = 0 }
  g { blk[n++] = $0 }
  g && /^endif$/ {
    g = 0
    print ""
    print "# Enable clang'"'"'s PGO profiling flags for every file but those opted out"
    print "# (PGO_PROFILE_obj.o := n, or PGO_PROFILE := n for a directory)"
    for (i = 0; i < n; i++) {
      l = blk[i]
      gsub(/CONFIG_GCOV_KERNEL/, "CONFIG_PGO_CLANG", l)
      gsub(/GCOV_PROFILE/, "PGO_PROFILE", l)
      gsub(/\$\(CONFIG_PGO_PROFILE_ALL\)/, "y", l)
      gsub(/CFLAGS_GCOV/, "CFLAGS_PGO_CLANG", l)
      print l
    }
  }'

# 7. The linker scripts: vmlinux's __llvm_prf_* sections, each between
# __llvm_prf_<name>_start and _end (kernel/ucov/pgo_debugfs.c), after the
# bug table in both the generic RW_DATA and x86's own.
# shellcheck disable=SC2016
edit include/asm-generic/vmlinux.lds.h '
  /^#ifdef CONFIG_PGO_CLANG$/ { skip = 1 }
  skip { if ($0 == "#endif") { skip = 0; getline; if ($0 != "") print } ; next }
  /^\tPGO_CLANG_DATA[[:space:]]*\\$/ { next }
  { print }
  /^\tBUG_TABLE[[:space:]]*\\$/ { print "\tPGO_CLANG_DATA\t\t\t\t\t\t\t\\" }
  /^#define BUG_TABLE$/ { b = 1 }
  b && /^#endif$/ {
    b = 0
    print ""
    print "#ifdef CONFIG_PGO_CLANG"
    print "#define PGO_CLANG_SECTION(name)\t\t\t\t\t\t\\"
    print "\t. = ALIGN(8);\t\t\t\t\t\t\t\\"
    print "\tname : AT(ADDR(name) - LOAD_OFFSET) {\t\t\t\t\\"
    print "\t\tname##_start = .;\t\t\t\t\t\\"
    print "\t\tKEEP(*(name))\t\t\t\t\t\t\\"
    print "\t\tname##_end = .;\t\t\t\t\t\t\\"
    print "\t}"
    print "#define PGO_CLANG_DATA\t\t\t\t\t\t\t\\"
    print "\tPGO_CLANG_SECTION(__llvm_prf_data)\t\t\t\t\\"
    print "\tPGO_CLANG_SECTION(__llvm_prf_cnts)\t\t\t\t\\"
    print "\tPGO_CLANG_SECTION(__llvm_prf_bits)\t\t\t\t\\"
    print "\tPGO_CLANG_SECTION(__llvm_prf_names)\t\t\t\t\\"
    print "\tPGO_CLANG_SECTION(__llvm_prf_vals)\t\t\t\t\\"
    print "\tPGO_CLANG_SECTION(__llvm_prf_vnds)\t\t\t\t\\"
    print "\tPGO_CLANG_SECTION(__llvm_prf_vtab)\t\t\t\t\\"
    print "\tPGO_CLANG_SECTION(__llvm_prf_vns)"
    print "#else"
    print "#define PGO_CLANG_DATA"
    print "#endif"
  }'
# shellcheck disable=SC2016
edit scripts/module.lds.S '
  /^#ifdef CONFIG_PGO_CLANG$/ { skip = 1 }
  skip { if ($0 == "#endif") { skip = 0; getline; if ($0 != "") print } ; next }
  { print }
  /^\t__patchable_function_entries : / {
    print ""
    print "#ifdef CONFIG_PGO_CLANG"
    print "\t/* a module'"'"'s LLVM profile, each section between symbols ucov finds */"
    print "#define PGO_CLANG_SECTION(name)\t\t\t\t\t\t\\"
    print "\t__llvm_prf_##name 0 : ALIGN(8) {\t\t\t\t\\"
    print "\t\t__ucov_prf_##name = .;\t\t\t\t\t\\"
    print "\t\t*(__llvm_prf_##name)\t\t\t\t\t\\"
    print "\t\t__ucov_prf_##name##_end = .;\t\t\t\t\\"
    print "\t}"
    n = split("data cnts bits names vals vnds vtab vns", sec, " ")
    for (i = 1; i <= n; i++)
      print "\tPGO_CLANG_SECTION(" sec[i] ")"
    print "#endif"
  }'
# shellcheck disable=SC2016
edit arch/x86/kernel/vmlinux.lds.S '
  /^\tPGO_CLANG_DATA$/ { getline; if ($0 != "") print; next }
  { print }
  /^\tBUG_TABLE$/ { print ""; print "\tPGO_CLANG_DATA" }'

# 8. Code that must not be profiled: what GCOV_PROFILE := n keeps from gcov
# on x86 (boot and decompressor, real mode, vDSO, purgatory, the EFI stub
# and runtime), and head64.o (run before the kernel is relocated).
for f in "${PGO_OPT_OUTS[@]}"; do
  [ -f "$TREE/$f" ] || continue
  # shellcheck disable=SC2016
  edit "$f" '
    /^PGO_PROFILE[[:space:]]*:= n$/ { next }
    { print }
    /^GCOV_PROFILE[[:space:]]*:= n$/ { l = $0; sub(/GCOV_PROFILE/, "PGO_PROFILE", l); print l }'
done
# shellcheck disable=SC2016
edit arch/x86/kernel/Makefile '
  /^PGO_PROFILE_head\$\(BITS\)\.o[[:space:]]*:= n$/ { next }
  { print }
  /^KASAN_SANITIZE_head\$\(BITS\)\.o[[:space:]]*:= n$/ {
    l = $0; sub(/KASAN_SANITIZE/, "PGO_PROFILE", l); print l
  }'

# 9. arch/x86/Kconfig: x86-64 supports PGO_CLANG.
# shellcheck disable=SC2016
edit arch/x86/Kconfig '
  /^\tselect ARCH_SUPPORTS_PGO_CLANG[[:space:]]/ { next }
  { print }
  /^\tselect ARCH_SUPPORTS_LTO_CLANG_THIN$/ { print "\tselect ARCH_SUPPORTS_PGO_CLANG\tif X86_64" }'

echo "apply.sh: Linux $ver at $TREE: $changed change(s)"
