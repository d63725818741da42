// SPDX-License-Identifier: MIT
/*
 * A test module: kcov.rst's REMOTE sections in each context where kcov.c
 * records them, and one where it does not. Writing "CTX N ID" to
 * /dev/ucov-ctx runs N sections for the USB handle ID, each around one call
 * of ctx_body(), and returns when all ran:
 *   work     a work item that may sleep (kcov_remote_start_usb);
 *   spin     two work items on the unbound queue taking one spinlock with
 *            interrupts off around each section (contended);
 *   preempt  a work item with preemption off around each section;
 *   rcu      a work item inside rcu_read_lock() around each section (with
 *            PREEMPT_RCU preemption stays enabled there, yet it may not
 *            sleep);
 *   bh       a work item with softirqs off (local_bh_disable) around each
 *            section: still task context, preemption counted off;
 *   timer    a timer (softirq), re-armed until N ran;
 *   tasklet  a tasklet (softirq) with kcov_remote_start_usb_softirq and
 *            kcov_remote_stop_softirq, as USB's giveback does;
 *   hrtimer  an hrtimer in hard interrupt context: kcov.c records nothing.
 * For the softirq and hardirq kinds the writer waits in a loop of
 * instrumented code on its CPU, where they interrupt it: a writer that
 * traces for itself must get that loop's PCs and none of ctx_body's.
 * The section wrappers are not instrumented, so a section's records are
 * ctx_body's alone, the same each time.
 */
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/kcov.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "compat.h"

/* (the kernel's __no_sanitize_coverage is empty for gcc without CONFIG_KCOV) */
#ifdef __clang__
#define NOCOV __attribute__((no_sanitize("coverage"))) noinline
#else
#define NOCOV __attribute__((no_sanitize_coverage)) noinline
#endif

static volatile int sink;

/* The work each section does: the same blocks in the same order every time. */
static noinline int ctx_body(unsigned int x) {
  int acc = 0, i;

  for (i = 0; i < 8; i++) {
    if (x & (1u << i))
      acc += i;
    else
      acc ^= i;
  }
  sink = acc;
  return acc;
}

static u64 ctx_id;
static int ctx_left;
static atomic_t ctx_done;

static NOCOV void section(void) {
  kcov_remote_start_usb(ctx_id);
  ctx_body(0xa5);
  kcov_remote_stop();
  atomic_inc(&ctx_done);
}

/* --- task context --- */
static DEFINE_SPINLOCK(ctx_lock);

struct ctx_work {
  struct work_struct work;
  int n;
  int kind; /* 0: may sleep, 1: spinlock, 2: preemption off, 3: RCU, 4: softirqs off */
};

static NOCOV void ctx_work_fn(struct work_struct *w) {
  struct ctx_work *cw = container_of(w, struct ctx_work, work);
  unsigned long flags;
  int i;

  for (i = 0; i < cw->n; i++) {
    if (cw->kind == 1) {
      spin_lock_irqsave(&ctx_lock, flags);
      section();
      spin_unlock_irqrestore(&ctx_lock, flags);
    } else if (cw->kind == 2) {
      preempt_disable();
      section();
      preempt_enable();
    } else if (cw->kind == 3) {
      rcu_read_lock();
      section();
      rcu_read_unlock();
    } else if (cw->kind == 4) {
      local_bh_disable();
      section();
      local_bh_enable();
    } else {
      section();
    }
  }
}

static void run_work(int kind, int n) {
  struct ctx_work w[2];
  int k, parts = kind == 1 ? 2 : 1;

  for (k = 0; k < parts; k++) {
    w[k].n = n / parts + (k < n % parts);
    w[k].kind = kind;
    INIT_WORK_ONSTACK(&w[k].work, ctx_work_fn);
    queue_work(system_unbound_wq, &w[k].work);
  }
  for (k = 0; k < parts; k++) {
    flush_work(&w[k].work);
    destroy_work_on_stack(&w[k].work);
  }
}

/* --- interrupt context --- */
static struct timer_list ctx_timer;
static struct tasklet_struct ctx_tasklet;
static struct hrtimer ctx_hrtimer;

static NOCOV void ctx_timer_fn(struct timer_list *t) {
  section();
  if (--ctx_left > 0)
    mod_timer(&ctx_timer, jiffies);
}

static NOCOV void ctx_tasklet_fn(struct tasklet_struct *t) {
  kcov_remote_start_usb_softirq(ctx_id);
  ctx_body(0xa5);
  kcov_remote_stop_softirq();
  atomic_inc(&ctx_done);
  if (--ctx_left > 0)
    tasklet_schedule(&ctx_tasklet);
}

static NOCOV enum hrtimer_restart ctx_hrtimer_fn(struct hrtimer *t) {
  section();
  if (--ctx_left <= 0)
    return HRTIMER_NORESTART;
  hrtimer_forward_now(t, ns_to_ktime(20000));
  return HRTIMER_RESTART;
}

/* The writer's wait, in instrumented code: what interrupts it runs here. */
static noinline int wait_step(int n) {
  int i, x = 0;

  for (i = 0; i < 64; i++)
    x += i & 1 ? i : -i;
  return atomic_read(&ctx_done) >= n ? 1 : x & 0;
}

static int wait_done(int n) {
  unsigned long end = jiffies + 10 * HZ;

  while (!wait_step(n)) {
    if (time_after(jiffies, end))
      return -ETIMEDOUT;
    /* Softirqs deferred to this CPU's ksoftirqd must get to run: a
     * kernel that does not preempt would starve it behind this loop. */
    cond_resched();
    cpu_relax();
  }
  return 0;
}

static ssize_t ctx_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos) {
  char buf[64], kind[16];
  unsigned long long id;
  int n, err = 0;

  if (len >= sizeof(buf))
    return -EINVAL;
  if (copy_from_user(buf, ubuf, len))
    return -EFAULT;
  buf[len] = 0;
  if (sscanf(buf, "%15s %d %llu", kind, &n, &id) != 3 || n < 1 || n > 100000)
    return -EINVAL;
  ctx_id = id;
  atomic_set(&ctx_done, 0);
  ctx_left = n;
  if (!strcmp(kind, "work")) {
    run_work(0, n);
  } else if (!strcmp(kind, "spin")) {
    run_work(1, n);
  } else if (!strcmp(kind, "preempt")) {
    run_work(2, n);
  } else if (!strcmp(kind, "rcu")) {
    run_work(3, n);
  } else if (!strcmp(kind, "bh")) {
    run_work(4, n);
  } else if (!strcmp(kind, "timer")) {
    mod_timer(&ctx_timer, jiffies);
    err = wait_done(n);
    ucov_timer_delete_sync(&ctx_timer);
  } else if (!strcmp(kind, "tasklet")) {
    tasklet_schedule(&ctx_tasklet);
    err = wait_done(n);
    tasklet_kill(&ctx_tasklet);
  } else if (!strcmp(kind, "hrtimer")) {
    hrtimer_start(&ctx_hrtimer, ns_to_ktime(20000), HRTIMER_MODE_REL_HARD);
    err = wait_done(n);
    hrtimer_cancel(&ctx_hrtimer);
  } else {
    return -EINVAL;
  }
  return err ? err : (ssize_t)len;
}

static const struct file_operations ctx_fops = {
    .owner = THIS_MODULE,
    .write = ctx_write,
    .llseek = noop_llseek,
};

static struct miscdevice ctx_dev = {
    .minor = MISC_DYNAMIC_MINOR,
    .name = "ucov-ctx",
    .fops = &ctx_fops,
    .mode = 0666,
};

static int __init ctx_init(void) {
  timer_setup(&ctx_timer, ctx_timer_fn, 0);
  tasklet_setup(&ctx_tasklet, ctx_tasklet_fn);
  ucov_hrtimer_setup(&ctx_hrtimer, ctx_hrtimer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
  return misc_register(&ctx_dev);
}

static void __exit ctx_exit(void) {
  misc_deregister(&ctx_dev);
}

module_init(ctx_init);
module_exit(ctx_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("ucov test: REMOTE sections in task, softirq and hardirq context");
