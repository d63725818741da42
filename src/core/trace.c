/* SPDX-License-Identifier: MIT */
/*
 * Trace path, PC mode: the task's tracing state and __sanitizer_cov_trace_pc.
 *
 * The hook fast path of a task that is not tracing is one thread-local load
 * and a test; nothing here allocates, locks or makes a system call.
 */
#include "ucov/port/hooks.h"
#include "trace_hooks.h"

#ifndef UCOV_TASK_HEADER /* (else the port's: ucov/port/task.h) */
UCOV_TASK_STORAGE struct ucov_task ucov_task_self;
#endif

UCOV_NOTRACE void ucov_task_start(struct ucov_task *t, struct ucov_device *dev, uint64_t *area,
                                  uint64_t size, uint32_t mode, uint64_t *bitmap,
                                  uint64_t bitmap_words) {
  t->area = area;
  t->size = size;
  t->bitmap = bitmap;
  t->bitmap_bits = bitmap_words * 64;
  t->bitmap_mask = bitmap_words ? pc_key_mask(bitmap_words * 64) : 0;
  t->dev = dev;
  /* A signal handler on this task must see area and size before hot. UNIQUE
   * keys hot on the bitmap (the buffer's start), the others on the trace. */
  uintptr_t base = (uintptr_t)(bitmap ? bitmap : area);
  t->mode = mode;
  UCOV_SIGNAL_FENCE();
  t->hot = base | ((uintptr_t)mode & UCOV_TASK_HOT_BITS);
  UCOV_TASK_HOT_CHANGED(t);
}

UCOV_NOTRACE void ucov_task_stop(struct ucov_task *t) {
  /* hot first: from here on no hook on this task touches the area. */
  t->hot = 0;
  UCOV_TASK_HOT_CHANGED(t);
  UCOV_SIGNAL_FENCE();
  t->mode = 0;
  UCOV_SIGNAL_FENCE();
  t->area = 0;
  t->size = 0;
  t->dev = 0;
  t->bitmap = 0;
  t->bitmap_bits = 0;
}

/*
 * Called by gcc and clang (-fsanitize-coverage=trace-pc) at the start of every
 * basic block. The return address is the PC; tools subtract one instruction
 * before symbolizing, as with KCOV.
 */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc(void) {
  uintptr_t hot;
  struct ucov_task *t = ucov_task_hook(&hot);
  if (hot) /* (the PC taken only then) */
    trace_pc_hot(t, hot, RET_PC());
}

/* Guard indices: 1, 2, ... in order of first hit, process-wide, never reused. */
uint32_t ucov_trace_guard_next;

/*
 * clang's trace-pc-guard (ucov cc --unique): one guard per edge. In UNIQUE
 * mode the guard's index is its bit, exactly: the bitmap is an AFL-style edge
 * map. In plain PC mode the hook appends like trace_pc.
 */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  uintptr_t hot;
  struct ucov_task *t = ucov_task_hook(&hot);
  if (hot) /* (the PC taken only then) */
    trace_pc_guard_hot(t, hot, guard, RET_PC());
}

/* Guards are numbered lazily on first hit (above), so that only edges that ran
 * take bits; the module's guards start at 0 and need nothing here. */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  (void)start;
  (void)stop;
}
