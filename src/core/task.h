/* SPDX-License-Identifier: MIT */
/*
 * A task's tracing state, and the appends every hook uses.
 *
 * Like the kernel's task_struct fields (kcov_mode, kcov_area, kcov_size), the
 * state a hook needs is copied into the task itself so that the hook touches
 * one thread-local block and nothing shared. Only the task itself writes it
 * (enable, disable, thread exit all run on the task), so the hooks need no
 * atomics on it; a signal handler on the same thread is the only concurrency,
 * and the order of stores (mode last on enable, first on disable) covers it.
 */
#ifndef UCOV_CORE_TASK_H
#define UCOV_CORE_TASK_H

#include <stdint.h>

#include "compiler.h"
#include "ucov/kcov.h"

/* The NORMAL tag of TRACE_PC_EXT records, in place. */
#define KCOV_RECORD_NORMAL_TAG (KCOV_RECORD_NORMAL << KCOV_RECORD_TYPE_SHIFT)
#define KCOV_RECORD_EXIT_TAG (KCOV_RECORD_EXIT << KCOV_RECORD_TYPE_SHIFT)

/* What the hooks of a task record: bits of ucov_task.mode. */
#define UCOV_TASK_PC (1u << 0)  /* trace_pc hooks append a PC */
#define UCOV_TASK_CMP (1u << 1) /* trace_cmp hooks append a 4-word record */
#define UCOV_TASK_EXT (1u << 2) /* entry/exit hooks append tagged records */

struct ucov_device;

struct ucov_task {
  uint32_t mode; /* UCOV_TASK_* bits; 0: not tracing (the fast path) */
  uint32_t pad;
  uint64_t *area;          /* word 0 = count, records from word 1 */
  uint64_t size;           /* area size in words */
  uint64_t pc_tag;         /* or-ed into trace_pc records: NORMAL tag in EXT mode */
  struct ucov_device *dev; /* the device bound to this task, or NULL */
};

/* Thread-local by default (see UCOV_THREAD_LOCAL); a port without TLS
 * defines UCOV_TASK_STORAGE empty. */
#ifndef UCOV_TASK_STORAGE
#define UCOV_TASK_STORAGE UCOV_THREAD_LOCAL
#endif

extern UCOV_TASK_STORAGE struct ucov_task ucov_task_self UCOV_HIDDEN;

/*
 * Append one word record. Order as in kernel/kcov.c: read the count, check the
 * bound, publish the new count, then the record. If a signal handler traces
 * between the count store and the record store, its record lands after ours
 * and both survive; a full buffer drops silently with count = size - 1.
 */
static UCOV_ALWAYS_INLINE void trace_append_word(uint64_t *area, uint64_t size, uint64_t rec) {
  uint64_t pos = UCOV_LOAD(&area[0]) + 1;
  if (UCOV_LIKELY(pos < size)) {
    UCOV_STORE(&area[0], pos);
    UCOV_SIGNAL_FENCE();
    UCOV_STORE(&area[pos], rec);
  }
}

/* Start and stop tracing on the calling task (device layer only). */
void ucov_task_start(struct ucov_task *t, struct ucov_device *dev, uint64_t *area, uint64_t size,
                     uint32_t mode) UCOV_HIDDEN;
void ucov_task_stop(struct ucov_task *t) UCOV_HIDDEN;

#endif
