/* SPDX-License-Identifier: MIT */
/*
 * The bodies of the trace hooks, given the PC: the core's hooks (trace.c,
 * trace_cmp.c) are these, and a runtime that adds to them (libucov-afl.a,
 * which also fills AFL++'s maps) calls the same, so a KCOV device of that
 * process records exactly what it records elsewhere.
 */
#ifndef UCOV_CORE_TRACE_HOOKS_H
#define UCOV_CORE_TRACE_HOOKS_H

#include "record.h"

/* The hook's return address: the PC of the instrumented call. Taken in the
 * hook itself (these bodies are always inlined into it). */
#define RET_PC() ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* The last guard index given out (trace.c): 1, 2, ... */
extern uint32_t ucov_trace_guard_next UCOV_HIDDEN;

/* A PC record of a task that traces (hot: its t->hot, not 0), as its mode
 * says. A hook tests hot before it takes the PC: the not-tracing path is one
 * thread-local load and a test. */
static UCOV_ALWAYS_INLINE void trace_pc_hot(struct ucov_task *t, uintptr_t hot, uint64_t pc) {
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

/* __sanitizer_cov_trace_pc, given the PC. No hint on the test: as in a bare
 * KCOV hook, the record path falls through and the not-tracing path takes
 * one branch (bench/RESULTS.md measured both ways). */
static UCOV_ALWAYS_INLINE void trace_hook_pc(uint64_t pc) {
  uintptr_t hot;
  struct ucov_task *t = ucov_task_hook(&hot);
  if (hot)
    trace_pc_hot(t, hot, pc);
}

/* The guard's index, assigned on its first hit under tracing (0: not yet),
 * unless the guards were numbered when their module started. */
static UCOV_ALWAYS_INLINE uint32_t guard_index(uint32_t *guard) {
  uint32_t idx = UCOV_LOAD(guard);
  if (UCOV_LIKELY(idx))
    return idx;
  uint32_t fresh = __atomic_add_fetch(&ucov_trace_guard_next, 1, __ATOMIC_RELAXED), expected = 0;
  if (__atomic_compare_exchange_n(guard, &expected, fresh, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    return fresh;
  return expected; /* another thread assigned it first */
}

/* trace_pc_hot for a guard: UNIQUE keyed by the guard. */
static UCOV_ALWAYS_INLINE void trace_pc_guard_hot(struct ucov_task *t, uintptr_t hot,
                                                  uint32_t *guard, uint64_t pc) {
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

/* __sanitizer_cov_trace_pc_guard, given the PC. */
static UCOV_ALWAYS_INLINE void trace_hook_pc_guard(uint32_t *guard, uint64_t pc) {
  uintptr_t hot;
  struct ucov_task *t = ucov_task_hook(&hot);
  if (hot)
    trace_pc_guard_hot(t, hot, guard, pc);
}

/*
 * A CMP record: 4 words {type, arg1, arg2, pc}; type bit 0 is KCOV_CMP_CONST
 * (arg1 is the compile-time constant), bits 1-2 are log2 of the operand size.
 * Word 0 of the area counts records, not words, as in Linux.
 */
static UCOV_ALWAYS_INLINE void trace_append_cmp(uint64_t type, uint64_t arg1, uint64_t arg2,
                                                uint64_t pc) {
  uintptr_t hot;
  struct ucov_task *t = ucov_task_hook(&hot);
  if (UCOV_LIKELY(!(hot & UCOV_TASK_CMP)))
    return;
  uint64_t *area = t->area;
  uint64_t count = UCOV_LOAD(&area[0]);
  uint64_t start = 1 + count * KCOV_WORDS_PER_CMP;
  /* Same order and reasoning as trace_append_word(): count, barrier, record. */
  if (UCOV_LIKELY(start + KCOV_WORDS_PER_CMP <= t->size)) {
    UCOV_STORE(&area[0], count + 1);
    UCOV_SIGNAL_FENCE();
    UCOV_STORE(&area[start], type);
    UCOV_STORE(&area[start + 1], arg1);
    UCOV_STORE(&area[start + 2], arg2);
    UCOV_STORE(&area[start + 3], pc);
  }
}

/*
 * __sanitizer_cov_trace_switch of a task in CMP mode: cases[0] = number of
 * case values, cases[1] = operand width in bits, values from cases[2]. One
 * CONST record per case value, as Linux writes them.
 */
static UCOV_ALWAYS_INLINE void trace_switch_cmp(uint64_t val, const uint64_t *cases, uint64_t pc) {
  uint64_t type;
  switch (cases[1]) {
  case 8:
    type = KCOV_CMP_SIZE(0);
    break;
  case 16:
    type = KCOV_CMP_SIZE(1);
    break;
  case 32:
    type = KCOV_CMP_SIZE(2);
    break;
  case 64:
    type = KCOV_CMP_SIZE(3);
    break;
  default:
    return;
  }
  for (uint64_t i = 0; i < cases[0]; i++)
    trace_append_cmp(type | KCOV_CMP_CONST, cases[i + 2], val, pc);
}

/* Is the calling task in CMP mode? (A hook tests this before it takes the PC.) */
static UCOV_ALWAYS_INLINE int trace_cmp_on(void) {
  uintptr_t hot;
  (void)ucov_task_hook(&hot);
  return (hot & UCOV_TASK_CMP) != 0;
}

/* __sanitizer_cov_trace_switch, given the PC. */
static UCOV_ALWAYS_INLINE void trace_hook_switch(uint64_t val, const uint64_t *cases, uint64_t pc) {
  if (UCOV_UNLIKELY(trace_cmp_on()))
    trace_switch_cmp(val, cases, pc);
}

#endif
