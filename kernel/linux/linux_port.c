// SPDX-License-Identifier: MIT
/*
 * The Linux port of the ucov core (include/ucov/port/port.h), as a module for a
 * stock kernel: ucov.ko links the unmodified src/core files and gives the
 * modules built with ucov's instrumentation (kernel/linux/ucov.mk) the KCOV
 * device of Documentation/dev-tools/kcov.rst at /sys/kernel/debug/kcov, and
 * the gcov files of Documentation/dev-tools/gcov.rst under
 * /sys/kernel/debug/gcov (one x.gcda per unit at its build path, an x.gcno
 * link beside it, gcov/reset), and the ucov protocol itself on /dev/ucov.
 *
 * This file has the port's duties and the task states; remote_sections.c the REMOTE
 * sections; kcov.c, gcov_debugfs.c and proto.c the files (linux_port.h says what
 * they share); compat.h every difference between kernel versions.
 *
 * Port duties, the Linux way:
 *  - the port lock is a mutex: the core allocates areas (vmalloc_user) and
 *    bookkeeping under it; it is taken by device operations only, never by a
 *    hook nor a REMOTE section (those take remote_sections.c's spinlock);
 *  - a device's area is vmalloc_user memory, mapped into the client by the
 *    file's mmap (remap_vmalloc_range), as the kernel's kcov.c maps its own;
 *  - a task's state is found from a per-CPU pointer that preempt notifiers
 *    keep (ucov_task.h says why); a task gets its state at its first ioctl
 *    and keeps it while it traces;
 *  - a task that ends tracing is stopped at once (the sched_process_exit
 *    tracepoint, in do_exit, as kcov_task_exit) and its device detached by a
 *    work item (the port lock is a mutex; the tracepoint may not sleep);
 *  - a module's gcov units are registered when it comes (a module notifier)
 *    and unregistered when it goes, before its memory does. No constructor
 *    runs in a stock kernel (no CONFIG_CONSTRUCTORS): gcc's units are found
 *    in the module's writable data by what only a gcov_info holds, clang's
 *    by their __llvm_gcov_init functions (gcov_debugfs.c).
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "linux_port.h"
#include "ucov/port/hooks.h"
#include "ucov/port/port.h"

/* --- the hooks the instrumented modules call (the core defines them) --- */
EXPORT_SYMBOL(__sanitizer_cov_trace_pc);
EXPORT_SYMBOL(__sanitizer_cov_trace_cmp1);
EXPORT_SYMBOL(__sanitizer_cov_trace_cmp2);
EXPORT_SYMBOL(__sanitizer_cov_trace_cmp4);
EXPORT_SYMBOL(__sanitizer_cov_trace_cmp8);
EXPORT_SYMBOL(__sanitizer_cov_trace_const_cmp1);
EXPORT_SYMBOL(__sanitizer_cov_trace_const_cmp2);
EXPORT_SYMBOL(__sanitizer_cov_trace_const_cmp4);
EXPORT_SYMBOL(__sanitizer_cov_trace_const_cmp8);
EXPORT_SYMBOL(__sanitizer_cov_trace_switch);
EXPORT_SYMBOL(__cyg_profile_func_enter);
EXPORT_SYMBOL(__cyg_profile_func_exit);

/* --- the port lock and memory --- */
static DEFINE_MUTEX(port_mutex);

void ucov_port_lock(void) {
  mutex_lock(&port_mutex);
}

void ucov_port_unlock(void) {
  mutex_unlock(&port_mutex);
}

/* (kvmalloc warns above INT_MAX: such a size is no memory, said quietly) */
void *ucov_port_alloc(size_t bytes) {
  return bytes > INT_MAX ? NULL : kvzalloc(bytes, GFP_KERNEL | __GFP_NOWARN);
}

void ucov_port_free(void *p) {
  kvfree(p);
}

void ucov_port_log(const char *msg) {
  pr_info("ucov: %s\n", msg);
}

/* --- devices: their areas --- */
/*
 * A device's buffer: KCOV_INIT_TRACE's size is checked first (kcov.c's
 * bound, INT_MAX bytes, in the core). vmalloc_user warns when it fails, and
 * tries hard (the OOM killer) before it does: a buffer of more than an eighth
 * of the machine's memory is ENOMEM without a try, where kcov.c's
 * vmalloc_user would try and warn.
 */
uint64_t *ucov_port_area_alloc(struct ucov_device *dev, uint64_t bytes) {
  (void)dev;
  if (bytes > INT_MAX || bytes > ((u64)totalram_pages() << PAGE_SHIFT) / 8)
    return NULL;
  return vmalloc_user((unsigned long)bytes);
}

void ucov_port_device_release(struct ucov_device *dev) {
  vfree(dev->area);
  kfree(container_of(dev, struct linux_device, core));
}

/* --- tasks --- */
DEFINE_PER_CPU(struct ucov_task *, ucov_linux_current);
struct ucov_task ucov_linux_idle; /* every task that has no state of its own: stays 0 */

static LIST_HEAD(tasks);

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

/* The calling task's own state, made current now if it had none. Lock held. */
struct linux_task *task_own(void) {
  struct ucov_task *t = this_cpu_read(ucov_linux_current);
  struct linux_task *lt;

  if (t) /* (only the task itself sets it while it runs here) */
    return t->port == UCOV_LINUX_TASK ? container_of(t, struct linux_task, t) : NULL;
  lt = kzalloc(sizeof(*lt), GFP_KERNEL);
  if (!lt)
    return NULL;
  list_add(&lt->link, &tasks);
  task_attach(lt);
  return lt;
}

static void task_free(struct linux_task *lt) {
  list_del(&lt->link);
  kfree(lt);
  module_put(THIS_MODULE);
}

/* The calling task's state, given up if it traces nothing (no device).
 * Lock held. */
void task_settle(struct linux_task *lt) {
  if (!lt || lt->t.dev)
    return;
  task_detach(lt);
  task_free(lt);
}

int ucov_port_task_bind(struct ucov_task *task) {
  return task == &ucov_linux_idle ? -UCOV_EINVAL : 0;
}

/* The exit work items' own queue: the last one drops the module reference its
 * task state held and still runs ucov.ko's code after that, so the module's
 * exit waits for it (destroy_workqueue) before its code goes. */
static struct workqueue_struct *exit_wq;

/* A tracing task ends: nothing it runs from here records (kcov_task_exit in
 * do_exit); its device is detached by a work item. */
static void task_exit_work(struct work_struct *w) {
  struct linux_task *lt = container_of(w, struct linux_task, exit_work);

  ucov_task_exit(&lt->t); /* takes the port lock */
  ucov_port_lock();
  task_free(lt);
  ucov_port_unlock();
}

static void on_process_exit(void *data, struct task_struct *p) {
  struct ucov_task *t = this_cpu_read(ucov_linux_current);
  struct linux_task *lt;

  if (!t || p != current || !in_task())
    return;
  lt = container_of(t, struct linux_task, t);
  if (t->port == UCOV_LINUX_SECTION) { /* a kernel thread ends inside a section */
    linux_remote_section_stop(lt);
    return;
  }
  this_cpu_write(ucov_linux_current, NULL);
  preempt_notifier_unregister(&lt->pn);
  INIT_WORK(&lt->exit_work, task_exit_work);
  queue_work(exit_wq, &lt->exit_work);
}

static struct tracepoint *exit_tp;

static void find_exit_tp(struct tracepoint *tp, void *priv) {
  if (!strcmp(tp->name, "sched_process_exit"))
    exit_tp = tp;
}

static int __init ucov_init(void) {
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
  exit_wq = alloc_workqueue("ucov_exit", 0, 0);
  if (!exit_wq)
    return -ENOMEM;
  err = tracepoint_probe_register(exit_tp, on_process_exit, NULL);
  if (err) {
    destroy_workqueue(exit_wq);
    return err;
  }
  preempt_notifier_inc();
  err = linux_remote_init();
  if (err)
    goto no_remote;
  err = linux_kcov_init();
  if (err)
    goto no_kcov;
  err = linux_gcov_init();
  if (err)
    goto no_gcov;
  err = linux_proto_init();
  if (!err)
    return 0;
  linux_gcov_exit();
no_gcov:
  linux_kcov_exit();
no_kcov:
  linux_remote_exit();
no_remote:
  preempt_notifier_dec();
  tracepoint_probe_unregister(exit_tp, on_process_exit, NULL);
  destroy_workqueue(exit_wq);
  return err;
}

static void __exit ucov_exit(void) {
  linux_proto_exit();
  linux_gcov_exit();
  linux_kcov_exit();
  tracepoint_probe_unregister(exit_tp, on_process_exit, NULL);
  tracepoint_synchronize_unregister();
  destroy_workqueue(exit_wq); /* the last exit work's return */
  linux_remote_exit();
  preempt_notifier_dec();
}

module_init(ucov_init);
module_exit(ucov_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("ucov: KCOV, gcov and PGO files for instrumented modules");
