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
 * This file has the port's duties and the task states (tasks_module.c keeps the
 * current one; builtin/ builds all of this into vmlinux); remote_sections.c the REMOTE
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
 *    keep, or in vmlinux from task_struct's kcov fields (ucov_task.h says
 *    why); a task gets its state at its first ioctl and keeps it while it
 *    traces;
 *  - a task that ends tracing is stopped at once (in do_exit: the
 *    sched_process_exit tracepoint, or kcov_task_exit itself) and its device
 *    detached by a work item (the port lock is a mutex; do_exit's hook may
 *    not sleep);
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
#include <linux/workqueue.h>
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

/* --- tasks: their states (ucov_task.h: where the current one is kept) --- */
static LIST_HEAD(tasks);

/* The calling task's own state, made current now if it had none. Lock held. */
struct linux_task *task_own(void) {
  struct ucov_task *t = ucov_linux_cur();
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
  module_put(THIS_MODULE); /* task_attach's */
}

/* The calling task's state, given up if it traces nothing (no device).
 * Lock held. */
void task_settle(struct linux_task *lt) {
  if (!lt)
    return;
  linux_task_settled(lt);
  if (lt->t.dev)
    return;
  task_detach(lt);
  task_free(lt);
}

int ucov_port_task_bind(struct ucov_task *task) {
  return task->port == UCOV_LINUX_IDLE ? -UCOV_EINVAL : 0;
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

/* Task p ends (in do_exit, on p): a section it was inside ends with it; a
 * state of its own stops recording now and is detached later (the port lock
 * is a mutex; do_exit's caller may not sleep here). */
void linux_task_exit(struct task_struct *p) {
  struct ucov_task *t = ucov_linux_cur();
  struct linux_task *lt;

  if (!t || p != current || !in_task())
    return;
  lt = container_of(t, struct linux_task, t);
  if (t->port == UCOV_LINUX_SECTION) { /* a kernel thread ends inside a section */
    linux_remote_section_stop(lt);
    return;
  }
  task_detach(lt);
  INIT_WORK(&lt->exit_work, task_exit_work);
  queue_work(exit_wq, &lt->exit_work);
}

static int __init ucov_init(void) {
  int err;

  exit_wq = alloc_workqueue("ucov_exit", 0, 0);
  if (!exit_wq)
    return -ENOMEM;
  err = linux_tasks_init();
  if (err)
    goto no_tasks;
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
  linux_tasks_exit();
no_tasks:
  destroy_workqueue(exit_wq);
  return err;
}

static void __exit ucov_exit(void) {
  linux_proto_exit();
  linux_gcov_exit();
  linux_kcov_exit();
  linux_tasks_exit();         /* no task ends into ucov.ko's code from here */
  destroy_workqueue(exit_wq); /* the last exit work's return */
  linux_remote_exit();
}

module_init(ucov_init);
module_exit(ucov_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("ucov: KCOV, gcov and PGO files for instrumented modules");
