# shellcheck shell=bash
# ctx_checks CONSOLE KO [HELPERS]: REMOTE sections in each context, as
# tests/kernel/kcov_ctx.c ran them against the ucov_ctx module
# (tests/kernel/ctx) in a guest whose console log is CONSOLE ("UCOV-CTX"
# lines, "UCOV-GUEST ctxtext ADDR"), KO the module's .ko here: pass and fail
# of tests/lib.sh. Shared by linux.sh (ucov.ko) and builtin.sh (ucov in
# vmlinux). HELPERS "kcov.h": the module calls kcov.h's softirq helpers
# themselves (a kernel with CONFIG_KCOV: not ucov.mk's macros), whose own
# blocks after the start and before the stop are instrumented as the module
# is, so each tasklet section holds them too: the same few records each time,
# as kcov.c would record them.
ctx_checks() {
  local one got in kind self_n self_foreign churn ctxtext extra=0 want
  # REMOTE sections in each context: exactly N times one section's records,
  # every PC ctx_body's, where kcov.c records (task context sleeping, under a
  # spinlock, with preemption off, in an RCU read-side section, with softirqs
  # off; softirq: a timer, a tasklet with the USB
  # softirq helpers); nothing in hardirq (an hrtimer); a task tracing for
  # itself while softirq sections interrupt it gets none of their PCs.
  sed -n 's/^UCOV-CTX //p' "$1" >ctx.txt
  ctxtext=$(sed -n "s/.*UCOV-GUEST ctxtext //p" "$1")
  one=$(sed -n 's/^ctx-one //p' ctx.txt)
  sed -n 's/^ctx-pc //p' ctx.txt | python3 -c 'import sys
base = int(sys.argv[1], 16)
for l in sys.stdin: print(hex(int(l, 16) - base))' "${ctxtext:-0}" >ctx-offsets.txt 2>/dev/null
  xargs addr2line -f -j .text -e "$2" <ctx-offsets.txt 2>/dev/null |
    awk 'NR % 2 == 1' | sed 's/\..*//' | sort -u >ctx-fns.txt
  [ "${one:-0}" -gt 5 ] && [ "$(cat ctx-fns.txt)" = ctx_body ] && pass "one section: $one records, all ctx_body's" ||
    fail "one section: ${one:-none} records, in $(tr '\n' ' ' <ctx-fns.txt)"
  for kind in work spin preempt rcu bh timer tasklet; do
    read -r _ _ got in <<<"$(grep "^ctx $kind " ctx.txt)"
    if [ "$kind" = tasklet ] && [ "${3:-}" = kcov.h ] && [ -n "$one" ] && [ "${in:-}" = $((100 * one)) ] &&
      [ "$(((${got:-0} - in) % 100))" = 0 ] && [ "$(((${got:-0} - in) / 100))" -le 4 ]; then
      extra=$(((got - in) / 100))
      pass "REMOTE sections in tasklet context: 100 x $one ctx_body's records, and $extra of kcov.h's helpers each"
      continue
    fi
    [ -n "$one" ] && [ "${got:-x}" = $((100 * one)) ] && [ "${in:-}" = "$got" ] &&
      pass "REMOTE sections in $kind context: 100 x $one records, all ctx_body's" ||
      fail "REMOTE sections in $kind context: ${got:-none} records (${in:-} ctx_body's), want 100 x ${one:-?}"
  done
  grep -qx 'ctx hrtimer 0 0' ctx.txt && pass "REMOTE sections in hardirq record nothing" ||
    fail "REMOTE sections in hardirq: $(grep '^ctx hrtimer' ctx.txt)"
  read -r _ self_n self_foreign <<<"$(grep '^ctx-self ' ctx.txt)"
  want=$((40 * ${one:-0} + 20 * extra)) # (20 timer sections, 20 tasklet ones)
  [ "${self_n:-0}" -gt 0 ] && [ "${self_foreign:-x}" = 0 ] && [ -n "$one" ] &&
    grep -qx "ctx selfrun $want" ctx.txt &&
    pass "a traced task interrupted by softirq sections keeps its own records ($self_n) and none of theirs" ||
    fail "a traced task interrupted by softirq sections: $(grep '^ctx-self\|^ctx selfrun' ctx.txt | tr '\n' ' ')"
  read -r _ churn <<<"$(grep '^ctx-churn ' ctx.txt)"
  [ "${churn:-0}" -gt 10 ] && pass "devices enabled and disabled meanwhile: $churn" || fail "churn: ${churn:-none}"
}
# ctx_module TREE DIR [MAKE-ARGS...]: the contexts' module (tests/kernel/ctx)
# built in DIR (under the working directory) against the kernel TREE, as any
# module is: its instrumentation is the kernel's own; DIR.log has kbuild's
# words, and there must be no warning. (SRC: the repository.)
ctx_module() {
  local tree=$1 dir=$2
  shift 2
  mkdir -p "$dir" && cp "$SRC/tests/kernel/ctx/ucov_ctx.c" "$dir/" &&
    printf 'obj-m := ucov_ctx.o\nccflags-y += -I%s/kernel/linux\n' "$SRC" >"$dir/Kbuild" &&
    make -s -C "$tree" "$@" M="$(pwd)/$dir" modules >"$dir.log" 2>&1 && ! grep -qi warning "$dir.log"
}
