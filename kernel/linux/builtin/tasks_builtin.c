// SPDX-License-Identifier: MIT
/*
 * The task states of ucov built into vmlinux (CONFIG_KCOV): kept where
 * kcov.c keeps its own, in the task_struct fields CONFIG_KCOV adds
 * (ucov_task.h: current->kcov points at the state, kcov_mode says it is
 * there), and the kernel's calls into kcov.c that include/linux/kcov.h
 * declares, made here: a new task starts with no state and its creator's
 * common handle (kcov_task_init, from dup_task_struct), a task's end is
 * kcov_task_exit (in do_exit), and kcov_remote_start/stop and
 * kcov_common_handle are the REMOTE sections of remote_sections.c.
 * (tasks_module.c is the same for ucov.ko in a stock kernel.)
 */
#include <linux/export.h>
#include <linux/kcov.h>
#include <linux/sched.h>

#include "linux_port.h"
#include "ucov_kcov.h"

void task_attach(struct linux_task *lt) {
  lt->task = current;
  ucov_linux_cur_set(&lt->t);
}

void task_detach(struct linux_task *lt) {
  ucov_linux_cur_set(NULL);
}

/* The common handle of KCOV_REMOTE_ENABLE is the task's while it has the
 * device (kcov.c's t->kcov_handle, set by that ioctl and cleared when the
 * device goes), and its children's from their start. Only a change of the
 * state's own handle is written: a handle the task inherited stays through
 * its other ioctls, as kcov.c's does. */
void linux_task_settled(struct linux_task *lt) {
  u64 h = lt->t.dev ? lt->t.common_handle : 0;

  if (h != lt->handle_given) {
    current->kcov_handle = h;
    lt->handle_given = h;
  }
}

u64 ucov_kcov_common_handle(void) {
  return in_task() ? current->kcov_handle : 0;
}

/* (called by the parent, before the child first runs) */
void kcov_task_init(struct task_struct *t) {
  WRITE_ONCE(t->kcov_mode, 0);
  barrier();
  t->kcov = NULL;
  t->kcov_handle = current->kcov_handle;
}

void kcov_task_exit(struct task_struct *t) {
  linux_task_exit(t);
}

u64 kcov_common_handle(void) {
  return ucov_kcov_common_handle();
}
EXPORT_SYMBOL(kcov_common_handle);

void kcov_remote_start(u64 handle) {
  ucov_kcov_remote_start(handle);
}
EXPORT_SYMBOL(kcov_remote_start);

void kcov_remote_stop(void) {
  ucov_kcov_remote_stop();
}
EXPORT_SYMBOL(kcov_remote_stop);

int linux_tasks_init(void) {
  return 0;
}

void linux_tasks_exit(void) {}
