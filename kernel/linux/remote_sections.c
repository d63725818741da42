// SPDX-License-Identifier: MIT
/*
 * ucov.ko's REMOTE sections, wherever kcov.c runs them: a module's
 * kcov_remote_start/stop (ucov_kcov.h maps them here) in task context, be it
 * a kernel thread that may sleep or code under a spinlock or with preemption
 * off, and in softirq; in hardirq and NMI they do nothing, as kcov.c's.
 *
 * A section never allocates or frees on its path, wherever it runs: whether
 * the caller may sleep cannot be read from the context (preemptible() is
 * true inside rcu_read_lock() with PREEMPT_RCU, and always false without
 * PREEMPT_COUNT), so nothing here asks. The REMOTE lock
 * (ucov_port_remote_lock, which the core's registry takes too) is a raw
 * spinlock that masks interrupts, as kcov.c's kcov_remote_lock under its
 * local lock; a section's area and task state come from reserves made where
 * sleeping is allowed, and what it gives back beyond them is freed by a
 * work item.
 *  - Task context: an area of the device's area_size from a pool, filled at
 *    KCOV_REMOTE_ENABLE (one area per online CPU of that size, kcov.c's pool
 *    filled ahead); a task state (struct linux_task, with its preempt
 *    notifier) from a fixed reserve. A section that finds the pool empty
 *    records nothing (counted, said at unload) and has a work item fill it
 *    again, where kcov.c would vmalloc in place.
 *  - Softirq: each CPU's own area of kcov.c's CONFIG_KCOV_IRQ_AREA_SIZE words
 *    and a task state of its own, made current for the section and the
 *    interrupted task's put back after (ucov_task.h).
 * Bounds: KCOV_REMOTE_ENABLE takes any area_size, as kcov.c does, but no
 * section area of more than AREA_MAX_WORDS (64 MiB; syzkaller asks for 8) is
 * made: a section of a larger size records nothing, where kcov.c would
 * vmalloc it for every section (and warn when that fails). Allocations here
 * never warn and never call the OOM killer; the core's pool keeps at most
 * UCOV_REMOTE_POOL_BYTES; everything is freed at module exit.
 */
#include <linux/interrupt.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "linux_port.h"
#include "ucov/port/port.h"
#include "ucov/port/remote.h"
#include "ucov_kcov.h"

#ifdef CONFIG_KCOV_IRQ_AREA_SIZE /* (built into vmlinux, KCOV's option) */
#define IRQ_AREA_WORDS ((u32)CONFIG_KCOV_IRQ_AREA_SIZE)
#else
#define IRQ_AREA_WORDS 0x40000u /* kcov.c's CONFIG_KCOV_IRQ_AREA_SIZE default */
#endif
#define AREA_MAX_WORDS (8u << 20) /* 64 MiB: the largest section area made */
#define STATES_PER_CPU 4          /* task states reserved per possible CPU */

static DEFINE_RAW_SPINLOCK(remote_lock);

unsigned long ucov_port_remote_lock(void) {
  unsigned long flags;

  raw_spin_lock_irqsave(&remote_lock, flags);
  return flags;
}

void ucov_port_remote_unlock(unsigned long flags) {
  raw_spin_unlock_irqrestore(&remote_lock, flags);
}

/* --- section areas: the core's pool (ucov/port/remote.h), under the REMOTE lock --- */
static u64 *area_alloc(u64 words) {
  /* No warning and no OOM killer for a size the machine has not got: the
   * section records nothing instead. */
  return __vmalloc(words * 8, GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY);
}

/* Areas a section gave back beyond the pool's room: freed by a work item
 * (vfree may sleep, and a section may be anywhere). */
static LLIST_HEAD(to_free);

static void free_work_fn(struct work_struct *w) {
  struct llist_node *n = llist_del_all(&to_free), *next;

  for (; n; n = next) {
    next = n->next;
    vfree(n);
  }
}
static DECLARE_WORK(free_work, free_work_fn);

static void area_free_later(u64 *area) {
  llist_add((struct llist_node *)area, &to_free);
  schedule_work(&free_work);
}

/* The pool found empty by a section: the size it wanted, filled again by a
 * work item (where sleeping is allowed). */
static atomic_t refill_words = ATOMIC_INIT(0);

static void refill_work_fn(struct work_struct *w) {
  u32 words = (u32)atomic_xchg(&refill_words, 0);

  if (words)
    linux_remote_reserve(words);
}
static DECLARE_WORK(refill_work, refill_work_fn);

void linux_remote_reserve(u32 area_size) {
  unsigned int want = num_online_cpus(), have;
  unsigned long flags;
  u64 *area, *old;
  int kept;

  if (area_size < 2 || area_size > AREA_MAX_WORDS ||
      (u64)area_size * 8 * want > UCOV_REMOTE_POOL_BYTES)
    return; /* (task sections of this size record nothing) */
  raw_spin_lock_irqsave(&remote_lock, flags);
  have = ucov_remote_pool_count(area_size);
  raw_spin_unlock_irqrestore(&remote_lock, flags);
  for (; have < want; have++) {
    area = area_alloc(area_size);
    if (!area)
      return;
    /* Room: areas of other sizes give way (a client's odd sizes cannot keep
     * this one out); they are only a head start for task sections. */
    raw_spin_lock_irqsave(&remote_lock, flags);
    while (!(kept = ucov_remote_pool_keep(area, area_size)) &&
           (old = ucov_remote_pool_evict(area_size))) {
      raw_spin_unlock_irqrestore(&remote_lock, flags);
      vfree(old);
      raw_spin_lock_irqsave(&remote_lock, flags);
    }
    raw_spin_unlock_irqrestore(&remote_lock, flags);
    if (!kept) {
      vfree(area);
      return;
    }
  }
}

/* --- task states for sections in task context (REMOTE lock) --- */
static struct linux_task *states;
static LIST_HEAD(free_states);

static struct linux_task *state_take(void) {
  struct linux_task *lt = list_first_entry_or_null(&free_states, struct linux_task, link);

  if (lt)
    list_del(&lt->link);
  return lt;
}

/* Sections that found no area or state where they could not allocate. */
static atomic_long_t sections_dropped;

static void task_section_start(u64 handle) {
  struct ucov_remote_target tg;
  struct linux_task *lt = NULL;
  unsigned long flags;
  u64 *area = NULL;
  int found;

  /* A task that traces for itself, or is inside a section already (kcov.c
   * warns here; a module's nesting must not cost a fuzzing VM its run). */
  if (ucov_linux_cur())
    return;
  raw_spin_lock_irqsave(&remote_lock, flags);
  found = !ucov_remote_find(handle, &tg) && tg.words >= 2 && tg.words <= AREA_MAX_WORDS;
  if (found) {
    area = ucov_remote_pool_take(tg.words);
    lt = state_take();
  }
  raw_spin_unlock_irqrestore(&remote_lock, flags);
  if (!found)
    return;
  if (!area || !lt) {
    bool kept = !area;

    atomic_long_inc(&sections_dropped);
    raw_spin_lock_irqsave(&remote_lock, flags);
    if (area)
      kept = ucov_remote_pool_keep(area, tg.words);
    if (lt)
      list_add(&lt->link, &free_states);
    raw_spin_unlock_irqrestore(&remote_lock, flags);
    if (!kept)
      area_free_later(area);
    if (!area) {
      atomic_set(&refill_words, (int)tg.words);
      schedule_work(&refill_work);
    }
    return;
  }
  lt->t.port = UCOV_LINUX_SECTION;
  ucov_remote_begin(&lt->t, handle, &tg, area, tg.words);
  task_attach(lt);
}

void linux_remote_section_stop(struct linux_task *lt) {
  u64 *area, words, seq, handle;
  unsigned long flags;
  bool kept;

  task_detach(lt);
  handle = ucov_remote_end(&lt->t, &area, &words, &seq);
  raw_spin_lock_irqsave(&remote_lock, flags);
  ucov_remote_deliver(handle, seq, area, words);
  kept = ucov_remote_pool_keep(area, words);
  list_add(&lt->link, &free_states);
  raw_spin_unlock_irqrestore(&remote_lock, flags);
  if (!kept)
    area_free_later(area);
  module_put(THIS_MODULE); /* task_attach's */
}

/* --- softirq sections: each CPU's own state and area --- */
struct softirq_cpu {
  struct ucov_task t;
  struct ucov_linux_saved saved; /* the interrupted task's, put back at the stop */
  u64 *area;
  bool active;
};
static DEFINE_PER_CPU(struct softirq_cpu, softirq_cpus);

static void softirq_section_start(u64 handle) {
  struct softirq_cpu *c = this_cpu_ptr(&softirq_cpus);
  struct ucov_remote_target tg;
  unsigned long flags;
  int err;

  if (c->active || !c->area) /* (kcov.c warns on a nested softirq section) */
    return;
  raw_spin_lock_irqsave(&remote_lock, flags);
  err = ucov_remote_find(handle, &tg);
  raw_spin_unlock_irqrestore(&remote_lock, flags);
  if (err)
    return;
  /* kcov.c: the device's mode, the CPU's area and its size. */
  c->t.port = UCOV_LINUX_SOFTIRQ;
  ucov_remote_begin(&c->t, handle, &tg, c->area, IRQ_AREA_WORDS);
  ucov_linux_cur_save(&c->saved);
  c->active = true;
  ucov_linux_cur_set(&c->t);
}

static void softirq_section_stop(void) {
  struct softirq_cpu *c = this_cpu_ptr(&softirq_cpus);
  u64 *area, words, seq, handle;
  unsigned long flags;

  if (!c->active)
    return;
  ucov_linux_cur_restore(&c->saved);
  c->active = false;
  handle = ucov_remote_end(&c->t, &area, &words, &seq);
  raw_spin_lock_irqsave(&remote_lock, flags);
  ucov_remote_deliver(handle, seq, area, words);
  raw_spin_unlock_irqrestore(&remote_lock, flags);
}

/* --- kcov.rst's entry points (ucov_kcov.h; the common handle: the tasks' file) --- */
void ucov_kcov_remote_start(u64 handle) {
  if (in_task())
    task_section_start(handle);
  else if (ucov_in_softirq_really())
    softirq_section_start(handle);
}
EXPORT_SYMBOL(ucov_kcov_remote_start);

void ucov_kcov_remote_stop(void) {
  struct ucov_task *t;

  if (in_task()) {
    t = ucov_linux_cur();
    if (t && t->port == UCOV_LINUX_SECTION)
      linux_remote_section_stop(container_of(t, struct linux_task, t));
  } else if (ucov_in_softirq_really()) {
    softirq_section_stop();
  }
}
EXPORT_SYMBOL(ucov_kcov_remote_stop);

/* include/linux/kcov.h's softirq flavour: sections only in a softirq. */
void ucov_kcov_remote_start_usb_softirq(u64 id) {
  if (in_serving_softirq() && !in_hardirq())
    ucov_kcov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_USB, id));
}
EXPORT_SYMBOL(ucov_kcov_remote_start_usb_softirq);

void ucov_kcov_remote_stop_softirq(void) {
  if (in_serving_softirq() && !in_hardirq())
    ucov_kcov_remote_stop();
}
EXPORT_SYMBOL(ucov_kcov_remote_stop_softirq);

/* --- setup and teardown --- */
int linux_remote_init(void) {
  unsigned int i, n = STATES_PER_CPU * nr_cpu_ids;
  int cpu;

  states = kcalloc(n, sizeof(*states), GFP_KERNEL);
  if (!states)
    return -ENOMEM;
  for (i = 0; i < n; i++)
    list_add(&states[i].link, &free_states);
  for_each_possible_cpu(cpu) {
    struct softirq_cpu *c = per_cpu_ptr(&softirq_cpus, cpu);

    c->area = vmalloc(IRQ_AREA_WORDS * 8);
    if (!c->area) {
      linux_remote_exit();
      return -ENOMEM;
    }
  }
  return 0;
}

/* No section runs: each holds a module reference. */
void linux_remote_exit(void) {
  u64 *area;
  int cpu;

  cancel_work_sync(&refill_work);
  flush_work(&free_work);
  free_work_fn(NULL);
  while ((area = ucov_remote_pool_evict(0))) /* (no area has 0 words: each goes) */
    vfree(area);
  for_each_possible_cpu(cpu) {
    struct softirq_cpu *c = per_cpu_ptr(&softirq_cpus, cpu);

    vfree(c->area);
    c->area = NULL;
  }
  INIT_LIST_HEAD(&free_states);
  kfree(states);
  states = NULL;
  if (atomic_long_read(&sections_dropped))
    pr_info("ucov: %ld REMOTE sections recorded nothing (no area left in the pool)\n",
            atomic_long_read(&sections_dropped));
}
