/* SPDX-License-Identifier: MIT */
/*
 * Trace path, PC mode: the task's tracing state and __sanitizer_cov_trace_pc.
 *
 * The hook fast path of a task that is not tracing is one thread-local load
 * and a test; nothing here allocates, locks or makes a system call.
 */
#include "ucov/port/hooks.h"
#include "record.h"

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
}

UCOV_NOTRACE void ucov_task_stop(struct ucov_task *t) {
  /* hot first: from here on no hook on this task touches the area. */
  t->hot = 0;
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
  struct ucov_task *t = &ucov_task_self;
  uintptr_t hot = t->hot;
  /* No hint: as in a bare KCOV hook, the record path falls through and the
   * not-tracing path takes one branch (bench/RESULTS.md measured both ways). */
  if (!hot)
    return;
  uint64_t pc = (uint64_t)(uintptr_t)__builtin_return_address(0);
  if (UCOV_LIKELY(!(hot & UCOV_TASK_HOT_BITS))) {
    trace_append_word((uint64_t *)hot, t->size, pc); /* plain TRACE_PC */
    return;
  }
  /* UNIQUE: the bitmap is the buffer's start, which hot holds. */
  if (hot & UCOV_TASK_UNIQUE) {
    uint64_t *bitmap = (uint64_t *)(hot & ~UCOV_TASK_HOT_BITS);
    trace_append_unique(t, bitmap, pc_key(pc, t->bitmap_mask), pc, 1);
  } else if (hot & UCOV_TASK_EXT) {
    trace_append_word(t->area, t->size, KCOV_RECORD_TAGGED(pc, KCOV_RECORD_NORMAL_TAG));
  }
  /* CMP mode: no PC records */
}

/* Guard indices: 1, 2, ... in order of first hit, process-wide, never reused. */
static uint32_t guard_next;

/* The guard's index, assigned on its first hit under tracing (0: not yet). */
static UCOV_ALWAYS_INLINE uint32_t guard_index(uint32_t *guard) {
  uint32_t idx = UCOV_LOAD(guard);
  if (UCOV_LIKELY(idx))
    return idx;
  uint32_t fresh = __atomic_add_fetch(&guard_next, 1, __ATOMIC_RELAXED), expected = 0;
  if (__atomic_compare_exchange_n(guard, &expected, fresh, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    return fresh;
  return expected; /* another thread assigned it first */
}

/*
 * clang's trace-pc-guard (ucov cc --unique): one guard per edge. In UNIQUE
 * mode the guard's index is its bit, exactly: the bitmap is an AFL-style edge
 * map. In plain PC mode the hook appends like trace_pc.
 */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  struct ucov_task *t = &ucov_task_self;
  uintptr_t hot = t->hot;
  if (!hot) /* no hint, as in __sanitizer_cov_trace_pc */
    return;
  uint64_t pc = (uint64_t)(uintptr_t)__builtin_return_address(0);
  if (UCOV_LIKELY(!(hot & UCOV_TASK_HOT_BITS))) {
    trace_append_word((uint64_t *)hot, t->size, pc);
    return;
  }
  if (hot & UCOV_TASK_UNIQUE) {
    uint64_t *bitmap = (uint64_t *)(hot & ~UCOV_TASK_HOT_BITS);
    trace_append_unique(t, bitmap, guard_index(guard) - 1, pc, 0);
  } else if (hot & UCOV_TASK_EXT)
    trace_append_word(t->area, t->size, KCOV_RECORD_TAGGED(pc, KCOV_RECORD_NORMAL_TAG));
}

/* Guards are numbered lazily on first hit (above), so that only edges that ran
 * take bits; the module's guards start at 0 and need nothing here. */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  (void)start;
  (void)stop;
}
