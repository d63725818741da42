// SPDX-License-Identifier: MIT
/*
 * The Linux port of the ucov core (include/ucov/port.h), as a module for a
 * stock kernel: ucov.ko links the unmodified src/core files and gives the
 * modules built with ucov's instrumentation (kernel/linux/ucov.mk) the KCOV
 * device of Documentation/dev-tools/kcov.rst at /sys/kernel/debug/kcov, and
 * the gcov files of Documentation/dev-tools/gcov.rst under
 * /sys/kernel/debug/gcov (one x.gcda per unit at its build path, an x.gcno
 * link beside it, gcov/reset), and the ucov protocol itself on /dev/ucov.
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
 *    work item (the port lock is a mutex; the tracepoint may not sleep);
 *  - a module's gcov units are registered when it comes (a module notifier)
 *    and unregistered when it goes, before its memory does. No constructor
 *    runs in a stock kernel (no CONFIG_CONSTRUCTORS): the units are found in
 *    the module's symbol table instead, where each gcov_fn_info gcc emits is
 *    a local object __gcov_.<function> whose first field is its unit's
 *    gcov_info (CONFIG_KALLSYMS_ALL keeps data symbols there).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "ucov/device.h"
#include "ucov/frame.h"
#include "ucov/gcov.h"
#include "ucov/gcov_abi.h"
#include "ucov/kcov.h"
#include "ucov/objects.h"
#include "ucov/port.h"
#include "ucov/sink.h"
#include "ucov/task.h"
#include "ucov/version.h"

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

/* gcc's gcov runtime entry points (the core defines them; with
 * -fprofile-info-section no constructor calls __gcov_init, but the units'
 * merge[] entries name the merge functions). */
void __gcov_init(struct gcov_info *info);
void __gcov_exit(void);
void __gcov_merge_add(gcov_type *counters, unsigned n);
void __gcov_merge_topn(gcov_type *counters, unsigned n);
void __gcov_merge_ior(gcov_type *counters, unsigned n);
void __gcov_merge_time_profile(gcov_type *counters, unsigned n);
EXPORT_SYMBOL(__gcov_init);
EXPORT_SYMBOL(__gcov_exit);
EXPORT_SYMBOL(__gcov_merge_add);
EXPORT_SYMBOL(__gcov_merge_topn);
EXPORT_SYMBOL(__gcov_merge_ior);
EXPORT_SYMBOL(__gcov_merge_time_profile);

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

/* The calling task's state, given up if it traces nothing (no device, no
 * REMOTE section). Lock held. */
static void task_settle(struct linux_task *lt) {
  if (!lt || lt->t.dev || lt->t.remote_handle)
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

/*
 * REMOTE sections started by kernel code (ucov_kcov.h maps kcov.rst's
 * kcov_remote_start/stop onto these): the task gets a state of its own for
 * the section, which the core fills from the handle's device and appends at
 * the stop. In a task that may sleep (the core takes the port lock, a mutex,
 * and may allocate the section's area); in interrupt context, or in a task
 * that traces for itself, nothing.
 */
int ucov_remote_start(uint64_t handle);
void ucov_remote_stop(void);
uint64_t ucov_common_handle(void);

u64 ucov_kcov_common_handle(void) {
  return ucov_common_handle();
}
EXPORT_SYMBOL(ucov_kcov_common_handle);

void ucov_kcov_remote_start(u64 handle) {
  struct linux_task *lt;

  if (!in_task() || this_cpu_read(ucov_linux_current))
    return;
  might_sleep();
  ucov_port_lock();
  lt = task_own();
  ucov_port_unlock();
  if (!lt)
    return;
  ucov_remote_start(handle); /* takes the port lock */
  ucov_port_lock();
  task_settle(lt); /* nobody registered the handle: no section */
  ucov_port_unlock();
}
EXPORT_SYMBOL(ucov_kcov_remote_start);

void ucov_kcov_remote_stop(void) {
  struct ucov_task *t;

  if (!in_task() || !(t = this_cpu_read(ucov_linux_current)) || !t->remote_handle)
    return;
  ucov_remote_stop(); /* appends the section; takes the port lock */
  ucov_port_lock();
  task_settle(container_of(t, struct linux_task, t));
  ucov_port_unlock();
}
EXPORT_SYMBOL(ucov_kcov_remote_stop);

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

  if (!t || p != current)
    return;
  lt = container_of(t, struct linux_task, t);
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

/* --- gcov units, from each instrumented module --- */

/* The gcov_info of every __gcov_.<function> in mod's symbols, once each, into
 * *infos (kmalloc'ed). Their count, or -ENOMEM. Called as mod comes: its
 * symbol table is the loader's and does not change under us. */
static int module_units(struct module *mod, const struct gcov_info ***infos) {
  const struct gcov_info **v = NULL, **g;
  struct mod_kallsyms *ks;
  unsigned int i;
  int n = 0, cap = 0, k;

  rcu_read_lock_sched();
  ks = rcu_dereference_sched(mod->kallsyms);
  for (i = 0; ks && i < ks->num_symtab; i++) {
    const Elf_Sym *sym = &ks->symtab[i];
    const struct gcov_fn_info *fn;
    const struct gcov_info *info;

    if (strncmp(ks->strtab + sym->st_name, "__gcov_.", 8) || !within_module(sym->st_value, mod))
      continue;
    fn = (const struct gcov_fn_info *)sym->st_value;
    info = fn->key;
    if (!within_module((unsigned long)info, mod))
      continue; /* an unselected copy's: not a unit of this module */
    for (k = 0; k < n && v[k] != info; k++)
      ;
    if (k < n)
      continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      g = krealloc(v, cap * sizeof(*v), GFP_ATOMIC);
      if (!g) {
        rcu_read_unlock_sched();
        kfree(v);
        return -ENOMEM;
      }
      v = g;
    }
    v[n++] = info;
  }
  rcu_read_unlock_sched();
  *infos = v;
  return n;
}

static void units_add(struct module *mod) {
  const struct gcov_info **infos;
  int n = module_units(mod, &infos), i;

  if (n < 0) {
    pr_err("ucov: %s: out of memory: its gcov units are not served\n", mod->name);
    return;
  }
  for (i = 0; i < n; i++)
    __gcov_init((struct gcov_info *)infos[i]); /* takes the port lock */
  kfree(infos);
}

/* Before mod's memory goes: its units are forgotten (a read in progress holds
 * the port lock, so none touches them after this). */
static void units_remove(struct module *mod) {
  struct ucov_gcov_unit *u, *next;

  ucov_port_lock();
  for (u = ucov_gcov_units(); u; u = next) {
    next = u->next;
    if (within_module((unsigned long)u->info, mod))
      ucov_gcov_unit_remove(u);
  }
  ucov_port_unlock();
}

/*
 * /sys/kernel/debug/gcov: x.gcda for each unit, at its build path, with an
 * x.gcno link to the notes file beside the object; reset; and
 * kernel/gcov/base.gcno, the link to the build directory that lcov's kernel
 * mode reads (the kernel's object tree this ucov.ko was built against, where
 * kbuild runs the compiler). Made again whenever a module comes or goes.
 */
static struct dentry *gcov_dir;
static DEFINE_MUTEX(gcov_tree_mutex);
static char **gcov_names; /* the object names the files' i_private point at */
static int gcov_n_names, gcov_cap_names;

static int gcda_open(struct inode *inode, struct file *f) {
  struct ucov_buf_sink *s = kzalloc(sizeof(*s), GFP_KERNEL);
  int err;

  if (!s)
    return -ENOMEM;
  ucov_buf_sink_init(s);
  /* One snapshot per open: what the reader sees stays whole. */
  err = ucov_object_read(inode->i_private, &s->sink, 0);
  if (err) {
    ucov_port_free(s->buf);
    kfree(s);
    return err;
  }
  f->private_data = s;
  return 0;
}

static ssize_t gcda_read(struct file *f, char __user *buf, size_t n, loff_t *pos) {
  struct ucov_buf_sink *s = f->private_data;

  return simple_read_from_buffer(buf, n, pos, s->buf, s->len);
}

/* As gcov.rst: writing to a data file resets its unit's counts. */
static ssize_t gcda_write(struct file *f, const char __user *buf, size_t n, loff_t *pos) {
  int err = ucov_object_reset(file_inode(f)->i_private);

  return err ? err : (ssize_t)n;
}

static int gcda_release(struct inode *inode, struct file *f) {
  struct ucov_buf_sink *s = f->private_data;

  ucov_port_free(s->buf);
  kfree(s);
  return 0;
}

static const struct file_operations gcda_fops = {
    .owner = THIS_MODULE,
    .open = gcda_open,
    .read = gcda_read,
    .write = gcda_write,
    .release = gcda_release,
    .llseek = default_llseek,
};

/* gcov/reset: writing resets every unit; reads are empty. */
static ssize_t reset_write(struct file *f, const char __user *buf, size_t n, loff_t *pos) {
  int err = ucov_objects_reset_all();

  return err ? err : (ssize_t)n;
}

/* Reads are empty, so that cp -a copies the tree (lcov's kernel mode). */
static ssize_t reset_read(struct file *f, char __user *buf, size_t n, loff_t *pos) {
  return 0;
}

static const struct file_operations reset_fops = {
    .owner = THIS_MODULE,
    .read = reset_read,
    .write = reset_write,
    .llseek = noop_llseek,
};

/* The directory `path` (len bytes, components separated by '/') beneath
 * parent, made where missing. NULL on failure. */
static struct dentry *tree_dir(struct dentry *parent, const char *path, size_t len) {
  char comp[NAME_MAX + 1];
  size_t at = 0, k;
  struct dentry *d = parent, *next;

  while (at < len) {
    for (k = at; k < len && path[k] != '/'; k++)
      ;
    if (k - at > NAME_MAX)
      return NULL;
    if (k > at) {
      memcpy(comp, path + at, k - at);
      comp[k - at] = 0;
      next = debugfs_lookup(comp, d);
      if (next)
        dput(next); /* (the tree keeps its own reference) */
      else
        next = debugfs_create_dir(comp, d);
      if (IS_ERR_OR_NULL(next))
        return NULL;
      d = next;
    }
    at = k + 1;
  }
  return d;
}

/* One gcov object, gcov/<path>.gcda: <path>.gcda and its .gcno link (called
 * by ucov_objects_list, with the port lock held). */
static int tree_add(const char *name, uint64_t size, void *arg) {
  size_t len = strlen(name);
  const char *path, *base;
  struct dentry *dir = NULL;
  char *keep, *link, *notes;

  if (strncmp(name, "gcov/", 5) || len < 11 || strcmp(name + len - 5, ".gcda"))
    return 0;
  path = name + 5;
  base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (gcov_n_names == gcov_cap_names) {
    int cap = gcov_cap_names ? 2 * gcov_cap_names : 32;
    char **g = krealloc(gcov_names, cap * sizeof(*g), GFP_KERNEL);

    if (!g)
      return 0;
    gcov_names = g;
    gcov_cap_names = cap;
  }
  keep = kstrdup(name, GFP_KERNEL);
  link = kasprintf(GFP_KERNEL, "%.*s.gcno", (int)(len - 5 - 4), name + 4);
  notes = kasprintf(GFP_KERNEL, "%.*s.gcno", (int)(strlen(base) - 5), base);
  if (keep && link && notes)
    dir = tree_dir(gcov_dir, path, base - path);
  if (dir) {
    gcov_names[gcov_n_names++] = keep;
    debugfs_create_file(base, 0600, dir, keep, &gcda_fops);
    debugfs_create_symlink(notes, dir, link);
    keep = NULL;
  }
  kfree(keep);
  kfree(link);
  kfree(notes);
  return 0;
}

static void gcov_tree_rebuild(void) {
  struct dentry *d;
  int i;

  mutex_lock(&gcov_tree_mutex);
  debugfs_remove_recursive(gcov_dir); /* waits for the files' readers */
  for (i = 0; i < gcov_n_names; i++)
    kfree(gcov_names[i]);
  gcov_n_names = 0;
  gcov_dir = debugfs_create_dir("gcov", NULL);
  if (!IS_ERR_OR_NULL(gcov_dir)) {
    debugfs_create_file("reset", 0600, gcov_dir, NULL, &reset_fops);
    d = tree_dir(gcov_dir, "kernel/gcov", 11);
    if (d)
      debugfs_create_symlink("base.gcno", d, UCOV_OBJTREE "/kernel/gcov/base.gcno");
    ucov_objects_list(tree_add, NULL);
  }
  mutex_unlock(&gcov_tree_mutex);
}

/*
 * The module map (the "modules" object): for each module that came after
 * ucov.ko, one line per executable section, named "<module>.ko#<section
 * index>" with the section's address as its bias, so that `ucov symbolize
 * --modules` places a PC in the section of the .ko it ran in (a relocatable
 * object's symbols count from their section's start). The sections'
 * addresses are those of the module's section symbols (STT_SECTION), which
 * the loader relocated like any other: they are in its full symbol table
 * only while it comes, so they are kept then.
 */
struct mod_text {
  struct list_head link;
  struct module *mod;
  unsigned long end; /* the end of the module's text */
  int n;
  struct {
    unsigned long start;
    unsigned int shndx;
  } sec[];
};
static LIST_HEAD(mod_texts); /* under the port lock */

static void mod_text_add(struct module *mod) {
  unsigned long base = (unsigned long)mod->core_layout.base;
  unsigned long end = base + mod->core_layout.text_size;
  struct mod_kallsyms *ks;
  struct mod_text *mt;
  unsigned int i;
  int n = 0, k;

  rcu_read_lock_sched();
  ks = rcu_dereference_sched(mod->kallsyms);
  for (i = 0; ks && i < ks->num_symtab; i++)
    n += ELF_ST_TYPE(ks->symtab[i].st_info) == STT_SECTION && ks->symtab[i].st_value >= base &&
         ks->symtab[i].st_value < end;
  mt = n ? kzalloc(struct_size(mt, sec, n), GFP_ATOMIC) : NULL;
  for (i = 0; mt && i < ks->num_symtab && mt->n < n; i++) {
    const Elf_Sym *sym = &ks->symtab[i];

    if (ELF_ST_TYPE(sym->st_info) != STT_SECTION || sym->st_value < base || sym->st_value >= end)
      continue;
    for (k = mt->n; k > 0 && mt->sec[k - 1].start > sym->st_value; k--)
      mt->sec[k] = mt->sec[k - 1]; /* sorted by address */
    mt->sec[k].start = sym->st_value;
    mt->sec[k].shndx = sym->st_shndx;
    mt->n++;
  }
  rcu_read_unlock_sched();
  if (!mt)
    return;
  mt->mod = mod;
  mt->end = end;
  ucov_port_lock();
  list_add_tail(&mt->link, &mod_texts);
  ucov_port_unlock();
}

static void mod_text_remove(struct module *mod) {
  struct mod_text *mt, *next;

  ucov_port_lock();
  list_for_each_entry_safe(mt, next, &mod_texts, link) {
    if (mt->mod == mod) {
      list_del(&mt->link);
      kfree(mt);
    }
  }
  ucov_port_unlock();
}

int ucov_port_modules_write(struct ucov_sink *s) {
  struct mod_text *mt;
  char line[160];
  int i, n, err = 0;

  list_for_each_entry(mt, &mod_texts, link) {
    for (i = 0; !err && i < mt->n; i++) {
      unsigned long end = i + 1 < mt->n ? mt->sec[i + 1].start : mt->end;

      if (end == mt->sec[i].start)
        continue; /* an empty section at the same place as the next */
      n = scnprintf(line, sizeof(line), "0x%lx 0x%lx 0x0 0x%lx r-x - %s.ko#%u\n", mt->sec[i].start,
                    end, mt->sec[i].start, mt->mod->name, mt->sec[i].shndx);
      err = s->write(s, line, n);
    }
  }
  return err;
}

static int on_module(struct notifier_block *nb, unsigned long state, void *data) {
  struct module *mod = data;

  if (state == MODULE_STATE_COMING) {
    mod_text_add(mod);
    units_add(mod);
  } else if (state == MODULE_STATE_GOING) {
    units_remove(mod);
    mod_text_remove(mod);
  } else
    return NOTIFY_DONE;
  gcov_tree_rebuild();
  return NOTIFY_OK;
}

static struct notifier_block module_nb = {
    .notifier_call = on_module,
};

/*
 * /dev/ucov: the ucov protocol (docs/protocol.md) on a misc device, for `ucov
 * ls|pull|reset --dev /dev/ucov` in the system and for `ucov relay`. A
 * request frame is written (in one write or several), and its reply is there
 * to read as soon as the write that completed the request returns: the
 * request is served in that write. A frame whose header is bad gets its error
 * reply and what was written is dropped; so does a write that would
 * overflow a request. One request at a time per open file.
 */
struct proto_file {
  struct mutex lock;
  u8 in[UCOV_PROTO_HEADER + UCOV_PROTO_MAX_REQUEST];
  size_t in_len;
  u8 *out; /* the reply: header and payload (kvmalloc'ed) */
  size_t out_len, out_at;
};

static int proto_open(struct inode *inode, struct file *f) {
  struct proto_file *p = kvzalloc(sizeof(*p), GFP_KERNEL);

  if (!p)
    return -ENOMEM;
  mutex_init(&p->lock);
  f->private_data = p;
  return nonseekable_open(inode, f);
}

static int proto_release(struct inode *inode, struct file *f) {
  struct proto_file *p = f->private_data;

  kvfree(p->out);
  kvfree(p);
  return 0;
}

/* The reply to keep: a header with op and status, then len bytes. */
static int proto_reply(struct proto_file *p, uint16_t op, uint32_t status, const void *data,
                       size_t len) {
  kvfree(p->out);
  p->out_len = p->out_at = 0;
  p->out = kvmalloc(UCOV_PROTO_HEADER + len, GFP_KERNEL);
  if (!p->out)
    return -ENOMEM;
  ucov_frame_encode(p->out, op, status, (uint32_t)len);
  if (len)
    memcpy(p->out + UCOV_PROTO_HEADER, data, len);
  p->out_len = UCOV_PROTO_HEADER + len;
  return 0;
}

static int proto_error(struct proto_file *p, uint16_t op, uint32_t status) {
  const char *msg = ucov_status_str(status);

  return proto_reply(p, op, status, msg, strlen(msg));
}

/* Serve the request in p->in if it is whole. 0, or -errno. */
static int proto_serve(struct proto_file *p) {
  struct ucov_frame fr;
  struct ucov_buf_sink out;
  uint32_t st;
  u8 eno[4];
  int err;

  if (p->in_len < UCOV_PROTO_HEADER)
    return 0;
  ucov_frame_decode(p->in, &fr);
  st = ucov_frame_check(&fr);
  if (st != UCOV_ST_OK) {
    p->in_len = 0;
    return proto_error(p, fr.op, st);
  }
  if (p->in_len < UCOV_PROTO_HEADER + fr.length)
    return 0;
  ucov_buf_sink_init(&out);
  st = ucov_serve(&fr, (const char *)p->in + UCOV_PROTO_HEADER, &out.sink, eno);
  p->in_len = 0;
  if (st == UCOV_ST_OK)
    err = proto_reply(p, fr.op, st, out.buf, out.len);
  else if (st == UCOV_ST_ERRNO)
    err = proto_reply(p, fr.op, st, eno, sizeof(eno));
  else
    err = proto_error(p, fr.op, st);
  ucov_port_free(out.buf);
  return err;
}

static ssize_t proto_write(struct file *f, const char __user *buf, size_t n, loff_t *pos) {
  struct proto_file *p = f->private_data;
  ssize_t ret = n;
  int err;

  mutex_lock(&p->lock);
  if (n > sizeof(p->in) - p->in_len) {
    p->in_len = 0;
    err = proto_error(p, 0, UCOV_ST_TOO_LARGE);
    ret = err ? err : -EMSGSIZE;
  } else if (copy_from_user(p->in + p->in_len, buf, n)) {
    ret = -EFAULT;
  } else {
    p->in_len += n;
    err = proto_serve(p);
    if (err)
      ret = err;
  }
  mutex_unlock(&p->lock);
  return ret;
}

static ssize_t proto_read(struct file *f, char __user *buf, size_t n, loff_t *pos) {
  struct proto_file *p = f->private_data;
  ssize_t ret;

  mutex_lock(&p->lock);
  ret = min(n, p->out_len - p->out_at);
  if (ret && copy_to_user(buf, p->out + p->out_at, ret))
    ret = -EFAULT;
  else
    p->out_at += ret;
  mutex_unlock(&p->lock);
  return ret;
}

static __poll_t proto_poll(struct file *f, struct poll_table_struct *wait) {
  struct proto_file *p = f->private_data;

  return EPOLLOUT | EPOLLWRNORM | (p->out_at < p->out_len ? EPOLLIN | EPOLLRDNORM : 0);
}

static const struct file_operations proto_fops = {
    .owner = THIS_MODULE,
    .open = proto_open,
    .release = proto_release,
    .read = proto_read,
    .write = proto_write,
    .poll = proto_poll,
    .llseek = no_llseek,
};

static struct miscdevice proto_dev = {
    .minor = MISC_DYNAMIC_MINOR,
    .name = "ucov",
    .fops = &proto_fops,
    .mode = 0600,
};

/* INFO: this kernel. */
int ucov_port_info(struct ucov_sink *s) {
  char buf[256];
  int n = scnprintf(buf, sizeof(buf),
                    "kernel=linux %s\nversion=" UCOV_VERSION "\nprotocol=%d\ntransport=dev\n",
                    utsname()->release, UCOV_PROTO_VERSION);

  return s->write(s, buf, n);
}

static int __init ucov_init(void) {
  int err;

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
  /* Unproxied, as kcov.c's: debugfs's proxy has no mmap. */
  kcov_file = debugfs_create_file_unsafe("kcov", 0600, NULL, NULL, &kcov_fops);
  if (IS_ERR(kcov_file)) {
    preempt_notifier_dec();
    tracepoint_probe_unregister(exit_tp, on_process_exit, NULL);
    destroy_workqueue(exit_wq);
    return PTR_ERR(kcov_file);
  }
  gcov_tree_rebuild();
  err = register_module_notifier(&module_nb);
  if (!err) {
    err = misc_register(&proto_dev);
    if (err)
      unregister_module_notifier(&module_nb);
  }
  if (err) {
    debugfs_remove_recursive(gcov_dir);
    debugfs_remove(kcov_file);
    preempt_notifier_dec();
    tracepoint_probe_unregister(exit_tp, on_process_exit, NULL);
    destroy_workqueue(exit_wq);
  }
  return err;
}

static void __exit ucov_exit(void) {
  struct mod_text *mt, *next;
  int i;

  misc_deregister(&proto_dev);
  unregister_module_notifier(&module_nb);
  list_for_each_entry_safe(mt, next, &mod_texts, link) kfree(mt); /* modules without ucov's hooks */
  debugfs_remove_recursive(gcov_dir);
  for (i = 0; i < gcov_n_names; i++)
    kfree(gcov_names[i]);
  kfree(gcov_names);
  debugfs_remove(kcov_file);
  tracepoint_probe_unregister(exit_tp, on_process_exit, NULL);
  tracepoint_synchronize_unregister();
  destroy_workqueue(exit_wq); /* the last exit work's return */
  preempt_notifier_dec();
}

module_init(ucov_init);
module_exit(ucov_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("ucov: KCOV, gcov and PGO files for instrumented modules");
