// SPDX-License-Identifier: MIT
/*
 * The Linux port of the ucov core (include/ucov/port.h), as a module for a
 * stock kernel: ucov.ko links the unmodified src/core files and gives the
 * modules built with ucov's instrumentation (kernel/linux/ucov.mk) the KCOV
 * device of Documentation/dev-tools/kcov.rst at /sys/kernel/debug/kcov.
 *
 * Port duties, the Linux way:
 *  - the port lock is a mutex: the core allocates areas (vmalloc_user) and
 *    bookkeeping under it; it is taken by device operations only, never by a
 *    hook;
 *  - a device's area is vmalloc_user memory, mapped into the client by the
 *    file's mmap (remap_vmalloc_range), as kcov.c maps its own;
 *  - a task's state is found from a per-CPU pointer that preempt notifiers
 *    keep (ucov_task.h says why); a task gets its state at its first ioctl
 *    and keeps it while it traces;
 *  - a task that ends tracing is stopped at once (the sched_process_exit
 *    tracepoint, in do_exit, as kcov_task_exit) and its device detached by a
 *    work item (the port lock is a mutex; the tracepoint may not sleep).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "ucov/device.h"
#include "ucov/kcov.h"
#include "ucov/port.h"
#include "ucov/task.h"

/* --- the hooks the instrumented modules call (the core defines them) --- */
void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_cmp1(u8 a, u8 b);
void __sanitizer_cov_trace_cmp2(u16 a, u16 b);
void __sanitizer_cov_trace_cmp4(u32 a, u32 b);
void __sanitizer_cov_trace_cmp8(u64 a, u64 b);
void __sanitizer_cov_trace_const_cmp1(u8 a, u8 b);
void __sanitizer_cov_trace_const_cmp2(u16 a, u16 b);
void __sanitizer_cov_trace_const_cmp4(u32 a, u32 b);
void __sanitizer_cov_trace_const_cmp8(u64 a, u64 b);
void __sanitizer_cov_trace_switch(u64 val, u64 *cases);
void __cyg_profile_func_enter(void *this_fn, void *call_site);
void __cyg_profile_func_exit(void *this_fn, void *call_site);
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

void *ucov_port_alloc(size_t bytes) {
  return kvzalloc(bytes, GFP_KERNEL);
}

void ucov_port_free(void *p) {
  kvfree(p);
}

void ucov_port_log(const char *msg) {
  pr_info("ucov: %s\n", msg);
}

/* --- devices: one per open of /sys/kernel/debug/kcov --- */
struct linux_device {
  struct ucov_device core; /* first: the core hands this pointer back */
};

uint64_t *ucov_port_area_alloc(struct ucov_device *dev, uint64_t bytes) {
  (void)dev;
  return bytes > INT_MAX ? NULL : vmalloc_user((unsigned long)bytes);
}

void ucov_port_device_release(struct ucov_device *dev) {
  vfree(dev->area);
  kfree(container_of(dev, struct linux_device, core));
}

/* --- tasks --- */
DEFINE_PER_CPU(struct ucov_task *, ucov_linux_current);
struct ucov_task ucov_linux_idle; /* every task that has no state of its own: stays 0 */

struct linux_task {
  struct ucov_task t; /* first */
  struct preempt_notifier pn;
  struct task_struct *task;
  struct work_struct exit_work;
  struct list_head link; /* tasks, under the port lock */
};
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

/* The calling task's own state, made current now if it had none. Lock held. */
static struct linux_task *task_own(void) {
  struct ucov_task *t = this_cpu_read(ucov_linux_current);
  struct linux_task *lt;

  if (t) /* (only the task itself sets it while it runs here) */
    return container_of(t, struct linux_task, t);
  lt = kzalloc(sizeof(*lt), GFP_KERNEL);
  if (!lt)
    return NULL;
  lt->task = current;
  preempt_notifier_init(&lt->pn, &task_ops);
  __module_get(THIS_MODULE); /* the notifier's code stays while it is registered */
  list_add(&lt->link, &tasks);
  preempt_disable();
  preempt_notifier_register(&lt->pn);
  this_cpu_write(ucov_linux_current, &lt->t);
  preempt_enable();
  return lt;
}

static void task_free(struct linux_task *lt) {
  list_del(&lt->link);
  kfree(lt);
  module_put(THIS_MODULE);
}

/* The calling task's state, given up if it traces nothing. Lock held. */
static void task_settle(struct linux_task *lt) {
  if (!lt || lt->t.dev)
    return;
  preempt_disable();
  this_cpu_write(ucov_linux_current, NULL);
  preempt_notifier_unregister(&lt->pn);
  preempt_enable();
  task_free(lt);
}

int ucov_port_task_bind(struct ucov_task *task) {
  return task == &ucov_linux_idle ? -UCOV_EINVAL : 0;
}

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

  if (!t || p != current)
    return;
  lt = container_of(t, struct linux_task, t);
  this_cpu_write(ucov_linux_current, NULL);
  preempt_notifier_unregister(&lt->pn);
  INIT_WORK(&lt->exit_work, task_exit_work);
  schedule_work(&lt->exit_work);
}

static struct tracepoint *exit_tp;

static void find_exit_tp(struct tracepoint *tp, void *priv) {
  if (!strcmp(tp->name, "sched_process_exit"))
    exit_tp = tp;
}

/* --- /sys/kernel/debug/kcov --- */
static int kcov_open(struct inode *inode, struct file *f) {
  struct linux_device *d = kzalloc(sizeof(*d), GFP_KERNEL);

  if (!d)
    return -ENOMEM;
  f->private_data = d;
  return nonseekable_open(inode, f);
}

static int kcov_release(struct inode *inode, struct file *f) {
  struct linux_device *d = f->private_data;

  ucov_port_lock();
  ucov_device_close(&d->core);
  ucov_port_unlock();
  return 0;
}

/* KCOV_REMOTE_ENABLE's argument, copied in whole (kcov.c's bounds). */
#define REMOTE_MAX_HANDLES 0x100
static void *remote_arg(unsigned long uarg, long *err) {
  struct kcov_remote_arg head, *arg;
  size_t size;

  *err = -EFAULT;
  if (copy_from_user(&head, (void __user *)uarg, sizeof(head)))
    return NULL;
  *err = -EINVAL;
  if (head.num_handles > REMOTE_MAX_HANDLES)
    return NULL;
  size = sizeof(head) + head.num_handles * sizeof(head.handles[0]);
  *err = -ENOMEM;
  arg = kmalloc(size, GFP_KERNEL);
  if (!arg)
    return NULL;
  *err = -EFAULT;
  if (copy_from_user(arg, (void __user *)uarg, size)) {
    kfree(arg);
    return NULL;
  }
  arg->num_handles = head.num_handles; /* as read the first time */
  *err = 0;
  return arg;
}

static long kcov_ioctl(struct file *f, unsigned int cmd, unsigned long arg) {
  struct linux_device *d = f->private_data;
  void *karg = NULL;
  struct linux_task *lt;
  long err = 0;

  if (cmd == KCOV_REMOTE_ENABLE) {
    karg = remote_arg(arg, &err);
    if (!karg)
      return err;
    arg = (unsigned long)karg;
  }
  ucov_port_lock();
  lt = task_own();
  err = lt ? ucov_device_ioctl(&d->core, cmd, arg) : -ENOMEM;
  task_settle(lt);
  ucov_port_unlock();
  kfree(karg);
  return err;
}

static int kcov_mmap(struct file *f, struct vm_area_struct *vma) {
  struct linux_device *d = f->private_data;
  unsigned long size = vma->vm_end - vma->vm_start;
  int err = -EINVAL;

  ucov_port_lock();
  /* As kcov_mmap: the area, whole, from offset 0. */
  if (d->core.area && vma->vm_pgoff == 0 && size == PAGE_ALIGN(d->core.size * sizeof(u64)))
    err = remap_vmalloc_range(vma, d->core.area, 0);
  ucov_port_unlock();
  return err;
}

static const struct file_operations kcov_fops = {
    .owner = THIS_MODULE,
    .open = kcov_open,
    .release = kcov_release,
    .unlocked_ioctl = kcov_ioctl,
    .compat_ioctl = kcov_ioctl,
    .mmap = kcov_mmap,
    .llseek = no_llseek,
};

static struct dentry *kcov_file;

static int __init ucov_init(void) {
  int err;

  for_each_kernel_tracepoint(find_exit_tp, NULL);
  if (!exit_tp) {
    pr_err("ucov: no sched_process_exit tracepoint\n");
    return -ENOENT;
  }
  err = tracepoint_probe_register(exit_tp, on_process_exit, NULL);
  if (err)
    return err;
  preempt_notifier_inc();
  /* Unproxied, as kcov.c's: debugfs's proxy has no mmap. */
  kcov_file = debugfs_create_file_unsafe("kcov", 0600, NULL, NULL, &kcov_fops);
  if (IS_ERR(kcov_file)) {
    preempt_notifier_dec();
    tracepoint_probe_unregister(exit_tp, on_process_exit, NULL);
    return PTR_ERR(kcov_file);
  }
  return 0;
}

static void __exit ucov_exit(void) {
  debugfs_remove(kcov_file);
  tracepoint_probe_unregister(exit_tp, on_process_exit, NULL);
  tracepoint_synchronize_unregister();
  preempt_notifier_dec();
}

module_init(ucov_init);
module_exit(ucov_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("ucov: KCOV, gcov and PGO files for instrumented modules");
