/* SPDX-License-Identifier: MIT */
/*
 * ucov_task_self in the Linux module (UCOV_TASK_HEADER, see ucov/port/task.h): the
 * calling task's struct ucov_task, found from a per-CPU pointer. The stock
 * kernel has no room in task_struct for it (kcov.c keeps kcov_mode and
 * kcov_area there, under CONFIG_KCOV), so each tracing task registers a
 * preempt notifier that sets the pointer when the task is switched in and
 * clears it when it is switched out (linux_port.c). A softirq REMOTE section
 * (remote_sections.c) points it at its CPU's own state for the section's length and
 * puts back the interrupted task's after, as kcov.c saves and restores that
 * task's kcov fields. A hook then costs one per-CPU load and a test, with no
 * lock and no hash, whoever runs: a CPU where nothing traces has NULL there.
 *
 * Where a state records is kcov.c's check_kcov_mode(): a task's (its own
 * tracing, or a REMOTE section in task context) in task context only, so a
 * hardirq or softirq that interrupts it records nothing into its buffer; a
 * softirq section's in that softirq only, never in a hardirq on top of it.
 */
#ifndef UCOV_LINUX_TASK_H
#define UCOV_LINUX_TASK_H

#include <linux/percpu.h>
#include <linux/preempt.h>
#ifdef CONFIG_PREEMPT_RT
#include <linux/sched.h> /* (softirq_count() reads current there; ucov.ko refuses to load) */
#endif

#include "compat.h"

DECLARE_PER_CPU(struct ucov_task *, ucov_linux_current);
extern struct ucov_task ucov_linux_idle;

/* struct ucov_task's port field: which context a state records in. */
#define UCOV_LINUX_TASK 0    /* a task that traces for itself */
#define UCOV_LINUX_SECTION 1 /* a REMOTE section in task context */
#define UCOV_LINUX_SOFTIRQ 2 /* a REMOTE section in a softirq */

/* kcov.c's in_softirq_really(): serving a softirq, not a hardirq or NMI on top of it. */
#define ucov_in_softirq_really() (in_serving_softirq() && !in_hardirq() && !in_nmi())

static __always_inline struct ucov_task *ucov_linux_self(void) {
  struct ucov_task *t = this_cpu_read(ucov_linux_current);

  if (likely(!t))
    return &ucov_linux_idle;
  if (t->port == UCOV_LINUX_SOFTIRQ ? !ucov_in_softirq_really() : !in_task())
    return &ucov_linux_idle;
  return t;
}

#define ucov_task_self (*ucov_linux_self())

#endif
