/* SPDX-License-Identifier: MIT */
/*
 * ucov_task_self in the Linux module (UCOV_TASK_HEADER, see ucov/port/task.h): the
 * calling task's struct ucov_task, found from a per-CPU pointer. The stock
 * kernel has no room in task_struct for it (kcov.c keeps kcov_mode and
 * kcov_area there, under CONFIG_KCOV), so each tracing task registers a
 * preempt notifier that sets the pointer when the task is switched in and
 * clears it when it is switched out (port.c). A hook then costs one per-CPU
 * load and a test, with no lock and no hash, whoever runs: every other task,
 * and interrupts (kcov.c's in_task() check: a hook in an interrupt that hit
 * a tracing task must not record into its buffer), get one shared state that
 * stays 0, so they never record.
 */
#ifndef UCOV_LINUX_TASK_H
#define UCOV_LINUX_TASK_H

#include <linux/percpu.h>
#include <linux/preempt.h>

DECLARE_PER_CPU(struct ucov_task *, ucov_linux_current);
extern struct ucov_task ucov_linux_idle;

static __always_inline struct ucov_task *ucov_linux_self(void) {
  struct ucov_task *t = this_cpu_read(ucov_linux_current);
  return likely(!t) || !in_task() ? &ucov_linux_idle : t;
}

#define ucov_task_self (*ucov_linux_self())

#endif
