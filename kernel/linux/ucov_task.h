/* SPDX-License-Identifier: MIT */
/*
 * ucov_task_self in Linux (UCOV_TASK_HEADER, see ucov/port/task.h): the
 * calling task's struct ucov_task, found in constant time with no lock, and
 * where it records (kcov.c's check_kcov_mode()): a task's state (its own
 * tracing, or a REMOTE section in task context) in task context only, so a
 * hardirq or softirq that interrupts it records nothing into its buffer; a
 * softirq section's in that softirq only, never in a hardirq on top of it.
 *
 * Two homes for "the calling context's state" (ucov_linux_cur, and
 * ucov_linux_cur_set to change it):
 *  - ucov.ko, in a stock kernel without CONFIG_KCOV: no room in task_struct,
 *    so a per-CPU pointer, kept by a preempt notifier that each tracing task
 *    registers (it sets the pointer when the task is switched in and clears
 *    it when it is switched out: tasks_module.c);
 *  - built into vmlinux (UCOV_LINUX_BUILTIN: kernel/linux/builtin, under
 *    CONFIG_KCOV): where kcov.c keeps its state, the task_struct fields
 *    CONFIG_KCOV adds. `kcov` points at the state and kcov_mode says it is
 *    there (UCOV_KCOV_HAS), whether it traces (UCOV_KCOV_ON) and in which
 *    context, so that the scheduler's kcov_prepare_switch(), which sets
 *    KCOV_IN_CTXSW in kcov_mode for the switch, turns every hook off
 *    meanwhile as it turns kcov.c's off; with CONFIG_GCOV_KERNEL alone,
 *    there are no states.
 * A softirq REMOTE section (remote_sections.c) makes its CPU's own state the
 * current one for the section's length and puts back the interrupted task's
 * after (ucov_linux_cur_save/_restore), as kcov.c saves and restores that
 * task's kcov fields.
 *
 * Where nothing traces, a hook finds no state (ucov_task_hook): its
 * not-tracing path is the load of the pointer (or of the mode and the
 * context), a test and a return; other readers of ucov_task_self find a
 * constant state of zeros (mode 0).
 */
#ifndef UCOV_LINUX_TASK_H
#define UCOV_LINUX_TASK_H

#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#if defined(CONFIG_PREEMPT_RT) || defined(UCOV_LINUX_BUILTIN)
#include <linux/sched.h> /* (softirq_count() reads current with PREEMPT_RT) */
#endif
/* (not <linux/kcov.h>: from 6.12 it declares the hooks with types of its
 * own, which the core's ucov/port/hooks.h declares with stdint's) */
#ifndef KCOV_IN_CTXSW
#define KCOV_IN_CTXSW (1 << 30) /* kcov.h's, 6.1 to 6.12 */
#endif

#include "compat.h"

/* struct ucov_task's port field: which context a state records in. */
#define UCOV_LINUX_TASK 0    /* a task that traces for itself */
#define UCOV_LINUX_SECTION 1 /* a REMOTE section in task context */
#define UCOV_LINUX_SOFTIRQ 2 /* a REMOTE section in a softirq */
#define UCOV_LINUX_IDLE 3    /* the state of zeros: nothing traces here */

/* Read only: nothing binds it (ucov_port_task_bind refuses it). */
static const struct ucov_task ucov_linux_idle = {.port = UCOV_LINUX_IDLE};

/* kcov.c's in_softirq_really(): serving a softirq, not a hardirq or NMI on top of it. */
#define ucov_in_softirq_really() (in_serving_softirq() && !in_hardirq() && !in_nmi())

#if defined(UCOV_LINUX_BUILTIN) && !defined(CONFIG_KCOV)
/* Built into vmlinux for CONFIG_GCOV_KERNEL alone: no KCOV device, no
 * task_struct fields, no task states; nothing traces. */
static __always_inline struct ucov_task *ucov_linux_cur(void) {
  return NULL;
}

static __always_inline void ucov_linux_cur_set(struct ucov_task *t) {}

struct ucov_linux_saved {};
static __always_inline void ucov_linux_cur_save(struct ucov_linux_saved *s) {}
static __always_inline void ucov_linux_cur_restore(const struct ucov_linux_saved *s) {}

#define UCOV_TASK_HOOK 1
static __always_inline struct ucov_task *ucov_task_hook(uintptr_t *hot) {
  *hot = 0;
  return NULL;
}
#elif defined(UCOV_LINUX_BUILTIN)
/*
 * kcov_mode while current->kcov is a state of ucov's (KCOV_IN_CTXSW apart):
 * UCOV_KCOV_HAS; and while the state traces (its hot word is not 0), also
 * UCOV_KCOV_ON and the context it records in, as preempt_count() has it
 * there: 0 for a task's (in task context), SOFTIRQ_OFFSET for a softirq
 * section's. A hook compares the mode with its own context's bits, or-ed
 * with both: one load of the mode, one of the count and one compare test
 * state, context and tracing, as kcov.c's check_kcov_mode tests its mode.
 */
#define UCOV_KCOV_ON 1u
#define UCOV_KCOV_HAS 2u
#define UCOV_KCOV_CTX (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)

static __always_inline unsigned int ucov_linux_ctx(void) {
#ifdef CONFIG_PREEMPT_RT /* (softirqs counted in the task there) */
  return (preempt_count() & (NMI_MASK | HARDIRQ_MASK)) | in_serving_softirq();
#else
  return preempt_count() & UCOV_KCOV_CTX;
#endif
}

static __always_inline struct ucov_task *ucov_linux_cur(void) {
  struct task_struct *cur = current;

  if (likely(!(READ_ONCE(cur->kcov_mode) & UCOV_KCOV_HAS)))
    return NULL;
  barrier();
  return (struct ucov_task *)READ_ONCE(cur->kcov);
}

/* current's kcov_mode for its state t (NULL: none). The scheduler's
 * KCOV_IN_CTXSW stays, but for a softirq section's state: a softirq can run
 * in the switch's window (kcov_finish_switch comes after interrupts are on
 * again), and its section records there, as kcov.c's, which writes the mode
 * whole for the section and puts the task's back after. */
static __always_inline unsigned int ucov_linux_mode(const struct ucov_task *t) {
  unsigned int mode = READ_ONCE(current->kcov_mode) & KCOV_IN_CTXSW;

  if (!t)
    return mode;
  if (t->port == UCOV_LINUX_SOFTIRQ)
    mode = 0;
  mode |= UCOV_KCOV_HAS;
  if (t->hot)
    mode |= UCOV_KCOV_ON | (t->port == UCOV_LINUX_SOFTIRQ ? (unsigned int)SOFTIRQ_OFFSET : 0);
  return mode;
}

/* The pointer before the mode when a state comes, the mode first when it
 * goes: a hook that interrupts the calling task in between sees none. */
static __always_inline void ucov_linux_cur_set(struct ucov_task *t) {
  struct task_struct *cur = current;

  if (t) {
    WRITE_ONCE(cur->kcov, (struct kcov *)t);
    barrier();
    WRITE_ONCE(cur->kcov_mode, ucov_linux_mode(t));
  } else {
    WRITE_ONCE(cur->kcov_mode, ucov_linux_mode(NULL));
    barrier();
    WRITE_ONCE(cur->kcov, NULL);
  }
}

/* What a softirq section puts back at its stop: the interrupted task's
 * fields as they were, word for word (kcov.c's kcov_remote_softirq_start
 * saves them so), not as ucov_linux_cur reads them: the section may have
 * come between the two writes of the task's own ucov_linux_cur_set, or in
 * the scheduler's window, whose bit it puts back too (the task has not run
 * in between). */
struct ucov_linux_saved {
  struct kcov *kcov;
  unsigned int mode;
};

static __always_inline void ucov_linux_cur_save(struct ucov_linux_saved *s) {
  s->mode = READ_ONCE(current->kcov_mode);
  s->kcov = READ_ONCE(current->kcov);
}

static __always_inline void ucov_linux_cur_restore(const struct ucov_linux_saved *s) {
  struct task_struct *cur = current;

  WRITE_ONCE(cur->kcov_mode, 0);
  barrier();
  WRITE_ONCE(cur->kcov, s->kcov);
  barrier();
  WRITE_ONCE(cur->kcov_mode, s->mode);
}

/* t's hot word was written (by its own task or softirq, for t current; by
 * a work item after the task went, for t no one's): the mode follows. */
#define UCOV_TASK_HOT_CHANGED(t) ucov_linux_hot_changed(t)
static __always_inline void ucov_linux_hot_changed(const struct ucov_task *t) {
  barrier();
  if (READ_ONCE(current->kcov) == (const struct kcov *)t)
    WRITE_ONCE(current->kcov_mode, ucov_linux_mode(t));
  barrier();
}

/* A hook's first read (ucov/port/task.h): a state that traces, and this the
 * context it records in; else NULL and 0, so that the not-tracing path is
 * two loads, a compare and a return. (With the mode on, hot is not 0: the
 * mode is set after hot and cleared with it.) */
#define UCOV_TASK_HOOK 1
static __always_inline struct ucov_task *ucov_task_hook(uintptr_t *hot) {
  struct task_struct *cur = current;
  struct ucov_task *t;

  if (likely(READ_ONCE(cur->kcov_mode) != (ucov_linux_ctx() | UCOV_KCOV_HAS | UCOV_KCOV_ON))) {
    *hot = 0;
    return NULL;
  }
  barrier();
  t = (struct ucov_task *)READ_ONCE(cur->kcov);
  *hot = t->hot;
  if (!*hot)
    __builtin_unreachable();
  return t;
}
#else
DECLARE_PER_CPU(struct ucov_task *, ucov_linux_current);

static __always_inline struct ucov_task *ucov_linux_cur(void) {
  return this_cpu_read(ucov_linux_current);
}

static __always_inline void ucov_linux_cur_set(struct ucov_task *t) {
  this_cpu_write(ucov_linux_current, t);
}

/* (one word: a section that interrupts its writer sees it before or after) */
struct ucov_linux_saved {
  struct ucov_task *t;
};

static __always_inline void ucov_linux_cur_save(struct ucov_linux_saved *s) {
  s->t = this_cpu_read(ucov_linux_current);
}

static __always_inline void ucov_linux_cur_restore(const struct ucov_linux_saved *s) {
  this_cpu_write(ucov_linux_current, s->t);
}
#endif

static __always_inline struct ucov_task *ucov_linux_self(void) {
  struct ucov_task *t = ucov_linux_cur();

  if (likely(!t))
    return (struct ucov_task *)&ucov_linux_idle;
  if (t->port == UCOV_LINUX_SOFTIRQ ? !ucov_in_softirq_really() : !in_task())
    return (struct ucov_task *)&ucov_linux_idle;
  return t;
}

#define ucov_task_self (*ucov_linux_self())

#ifndef UCOV_LINUX_BUILTIN
/* A hook's first read (ucov/port/task.h): no state here, or not in this
 * context, is NULL and 0, so that the not-tracing path is the load of the
 * pointer, its test and a return. */
#define UCOV_TASK_HOOK 1
static __always_inline struct ucov_task *ucov_task_hook(uintptr_t *hot) {
  struct ucov_task *t = ucov_linux_cur();

  if (likely(!t) || (t->port == UCOV_LINUX_SOFTIRQ ? !ucov_in_softirq_really() : !in_task())) {
    *hot = 0;
    return NULL;
  }
  *hot = t->hot;
  return t;
}
#endif

#endif
