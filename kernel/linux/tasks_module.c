// SPDX-License-Identifier: MIT
/*
 * ucov.ko's task states in a stock kernel (no CONFIG_KCOV, so no room in
 * task_struct): the current one is a per-CPU pointer that each tracing
 * task's preempt notifier sets when the task is switched in and clears when
 * it is switched out (ucov_task.h); a task's end is seen by the
 * sched_process_exit tracepoint, in do_exit, where kcov.c's kcov_task_exit
 * is called. (builtin/tasks_builtin.c is the same for vmlinux, where
 * task_struct has the fields.)
 */
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "linux_port.h"
#include "ucov/port/remote.h"

DEFINE_PER_CPU(struct ucov_task *, ucov_linux_current);

static void task_sched_in(struct preempt_notifier *pn, int cpu) {
  this_cpu_write(ucov_linux_current, &container_of(pn, struct linux_task, pn)->t);
}

static void task_sched_out(struct preempt_notifier *pn, struct task_struct *next) {
  this_cpu_write(ucov_linux_current, NULL);
}

static struct preempt_ops task_ops = {
    .sched_in = task_sched_in,
    .sched_out = task_sched_out,
};

/* Make lt the calling task's state: its notifier keeps the per-CPU pointer
 * from now on. May run where the task cannot sleep (a REMOTE section under a
 * spinlock): no allocation, no lock. */
void task_attach(struct linux_task *lt) {
  lt->task = current;
  preempt_notifier_init(&lt->pn, &task_ops);
  __module_get(THIS_MODULE); /* the notifier's code stays while it is registered */
  preempt_disable();
  preempt_notifier_register(&lt->pn);
  this_cpu_write(ucov_linux_current, &lt->t);
  preempt_enable();
}

/* The calling task gives lt up (the module reference is the caller's to drop). */
void task_detach(struct linux_task *lt) {
  preempt_disable();
  this_cpu_write(ucov_linux_current, NULL);
  preempt_notifier_unregister(&lt->pn);
  preempt_enable();
}

/* (the common handle is the core's, in the task's state) */
void linux_task_settled(struct linux_task *lt) {}

u64 ucov_kcov_common_handle(void) {
  return in_task() ? ucov_remote_common() : 0;
}
EXPORT_SYMBOL(ucov_kcov_common_handle);

static void on_process_exit(void *data, struct task_struct *p) {
  linux_task_exit(p);
}

static struct tracepoint *exit_tp;

static void find_exit_tp(struct tracepoint *tp, void *priv) {
  if (!strcmp(tp->name, "sched_process_exit"))
    exit_tp = tp;
}

int linux_tasks_init(void) {
  int err;

  /* A task's state is found through a per-CPU pointer that preempt
   * notifiers switch, and a softirq section's is made current on its CPU
   * for the section. PREEMPT_RT runs softirqs in preemptible tasks (and
   * lets them migrate): a section's state would then follow the CPU, not
   * the task. Refused, rather than record into the wrong buffer. */
  if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
    pr_err("ucov: not loaded: PREEMPT_RT kernels run softirqs in preemptible tasks, "
           "which ucov.ko's per-CPU task state cannot follow\n");
    return -EOPNOTSUPP;
  }
  for_each_kernel_tracepoint(find_exit_tp, NULL);
  if (!exit_tp) {
    pr_err("ucov: no sched_process_exit tracepoint\n");
    return -ENOENT;
  }
  err = tracepoint_probe_register(exit_tp, on_process_exit, NULL);
  if (err)
    return err;
  preempt_notifier_inc();
  return 0;
}

void linux_tasks_exit(void) {
  tracepoint_probe_unregister(exit_tp, on_process_exit, NULL);
  tracepoint_synchronize_unregister();
  preempt_notifier_dec();
}
