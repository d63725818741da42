/* SPDX-License-Identifier: MIT */
/*
 * ucov/port/task.h - a task's tracing state (freestanding; for ports).
 *
 * Like the kernel's task_struct fields (kcov_mode, kcov_area, kcov_size), the
 * state a hook needs is copied into the task itself so that the hook touches
 * one thread-local block and nothing shared. Only the task itself writes it
 * (enable, disable, thread exit all run on the task), so the hooks need no
 * atomics on it; a signal handler on the same thread is the only concurrency,
 * and the order of stores (mode last on enable, first on disable) covers it.
 *
 * A port keeps one struct ucov_task per task: by default ucov_task_self is
 * thread-local; a port without TLS builds the core with -DUCOV_THREAD_LOCAL=
 * and saves and restores ucov_task_self when it switches tasks.
 */
#ifndef UCOV_TASK_H
#define UCOV_TASK_H

#include <stdint.h>

#include "ucov/port/compiler.h"

/* What the hooks of a task record: bits of ucov_task.mode. */
#define UCOV_TASK_PC (1u << 0)     /* trace_pc hooks append a PC */
#define UCOV_TASK_CMP (1u << 1)    /* trace_cmp hooks append a 4-word record */
#define UCOV_TASK_EXT (1u << 2)    /* entry/exit hooks append tagged records */
#define UCOV_TASK_UNIQUE (1u << 3) /* with PC: append a PC only if its bitmap bit was clear */
/* The bits of ucov_task.hot that are not the area's address. */
#define UCOV_TASK_HOT_BITS ((uintptr_t)(UCOV_TASK_CMP | UCOV_TASK_EXT | UCOV_TASK_UNIQUE))

struct ucov_device;

struct ucov_task {
  /*
   * What every hook loads first: 0 when the task does not trace (the fast
   * path: one load and a test). Else the trace area's address (16-byte aligned
   * at least) or-ed with the mode bits other than UCOV_TASK_PC: for plain
   * TRACE_PC it is the area itself, so the record path needs no other test.
   */
  uintptr_t hot;
  uint32_t mode;           /* UCOV_TASK_* bits; 0: not tracing */
  uint32_t port;           /* the port's own (Linux: which context the state records in) */
  uint64_t *area;          /* the trace: word 0 = count, records from word 1 */
  uint64_t size;           /* trace size in words */
  struct ucov_device *dev; /* the device bound to this task, or NULL */
  uint64_t *bitmap;        /* UNIQUE: seen PCs (the start of the buffer) */
  uint64_t bitmap_bits;    /* UNIQUE: its size in bits */
  uint64_t bitmap_mask;    /* UNIQUE keyed by PC: pc_key()'s mask */
  uint64_t remote_handle;  /* REMOTE section in progress for this handle (0: none) */
  uint64_t remote_seq;     /* the device's sequence when the section started */
  uint64_t common_handle;  /* REMOTE: the common handle of this task (0: none), from its
                              REMOTE_ENABLE, or inherited from its creator */
};

/* Thread-local by default (see UCOV_THREAD_LOCAL); a port without TLS
 * defines UCOV_TASK_STORAGE empty. */
#ifndef UCOV_TASK_STORAGE
#define UCOV_TASK_STORAGE UCOV_THREAD_LOCAL
#endif

/*
 * A port whose tasks are not threads with TLS, and that cannot switch one
 * global at every context switch (a kernel with many CPUs), names a header in
 * UCOV_TASK_HEADER that defines ucov_task_self as an lvalue for the calling
 * task's state, found in constant time with no lock, allocation or call that
 * could be instrumented (the Linux module: a per-CPU pointer kept by preempt
 * notifiers). A task that is not tracing may share one state that stays 0.
 */
#ifdef UCOV_TASK_HEADER
#include UCOV_TASK_HEADER
#else
extern UCOV_TASK_STORAGE struct ucov_task ucov_task_self UCOV_PORT_API;
#endif

/*
 * What a hook reads first: the calling task's state and its hot word in *hot
 * (0: the hook does nothing). A port whose UCOV_TASK_HEADER finds the state
 * through a test (a kernel's: no state here, or not in this context) defines
 * UCOV_TASK_HOOK and its own ucov_task_hook, which gives NULL and 0 there,
 * so that the not-tracing path is that test and one branch, with no load of
 * a shared state of zeros. Such a port may keep a copy of "tracing or not"
 * where its test reads it: UCOV_TASK_HOT_CHANGED(t) is called after each
 * write of t->hot.
 */
#ifndef UCOV_TASK_HOT_CHANGED /* (after t->hot is written: the port's to mirror) */
#define UCOV_TASK_HOT_CHANGED(t) ((void)(t))
#endif
#ifndef UCOV_TASK_HOOK
static UCOV_ALWAYS_INLINE struct ucov_task *ucov_task_hook(uintptr_t *hot) {
  struct ucov_task *t = &ucov_task_self;
  *hot = t->hot;
  return t;
}
#endif

#endif
