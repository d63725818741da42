/* SPDX-License-Identifier: MIT */
/*
 * Every difference between the kernel versions ucov.ko builds against, in one
 * place: 5.10 (the oldest longterm kernel a distribution still ships) to the
 * newest release. One LINUX_VERSION_CODE test per difference, each naming the
 * upstream change, so that a new kernel is one more test here, never an
 * #if in a source file. The suite boots Debian 12's 6.1 and bookworm-
 * backports' 6.12; the other branches are written from the changes they name
 * (docs/porting.md, "Kernel versions").
 *
 * What the port uses, and whether it changed:
 *  - file_operations.llseek: no_llseek (gone in 6.12);
 *  - the module's memory layout: core_layout (module_memory in 6.4);
 *  - the context tests: in_hardirq() (5.11; in_irq() before);
 *  - the misc device API (misc_register, misc_deregister void since 4.3),
 *    debugfs_create_file_unsafe, debugfs_create_symlink, tracepoint probes
 *    (for_each_kernel_tracepoint, tracepoint_probe_register), preempt
 *    notifiers, vmalloc_user and remap_vmalloc_range, local_lock (5.8):
 *    unchanged from 5.10 to 6.12;
 *  - no class (misc devices make their own), no vm_flags writes
 *    (remap_vmalloc_range sets them; direct writes went in 6.3:
 *    vm_flags_set), no kallsyms walk by name (its callback changed in 6.4):
 *    none of these is used, so none needs a branch;
 *  - timers of the test module (tests/kernel/ctx): del_timer_sync renamed
 *    timer_delete_sync (6.2, the old name gone in 6.15), hrtimer_init
 *    replaced by hrtimer_setup (6.13, the old one gone in 6.15); timer_setup
 *    and tasklet_setup are there from 5.9.
 */
#ifndef UCOV_LINUX_COMPAT_H
#define UCOV_LINUX_COMPAT_H

/* (few includes: the core's files include this through ucov_task.h; each
 * user includes the headers of what it uses) */
#include <linux/preempt.h>
#include <linux/version.h>

/* 5.11, 15115830c887 ("preempt: Cleanup the macro maze a bit"): in_hardirq()
 * (in_irq() before, gone in 6.4). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define in_hardirq() hardirq_count()
#endif

/* 6.12, cb787f4ac0c2 ("[tree-wide] finally take no_llseek out"): a file that
 * called nonseekable_open needs no .llseek; no_llseek was NULL by then. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define UCOV_NO_LLSEEK NULL
#else
#define UCOV_NO_LLSEEK no_llseek
#endif

/* 6.4, ac3b43283923 ("module: replace module_layout with module_memory"):
 * the text's start and size moved from core_layout to mem[MOD_TEXT]. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define ucov_module_text_base(mod) ((unsigned long)(mod)->mem[MOD_TEXT].base)
#define ucov_module_text_size(mod) ((unsigned long)(mod)->mem[MOD_TEXT].size)
/* (a module's writable data, where gcc's gcov_info lie) */
#define ucov_module_data_base(mod) ((unsigned long)(mod)->mem[MOD_DATA].base)
#define ucov_module_data_size(mod) ((unsigned long)(mod)->mem[MOD_DATA].size)
#else
#define ucov_module_text_base(mod) ((unsigned long)(mod)->core_layout.base)
#define ucov_module_text_size(mod) ((unsigned long)(mod)->core_layout.text_size)
#define ucov_module_data_base(mod)                                                                 \
  ((unsigned long)(mod)->core_layout.base + (mod)->core_layout.ro_after_init_size)
#define ucov_module_data_size(mod)                                                                 \
  ((unsigned long)((mod)->core_layout.size - (mod)->core_layout.ro_after_init_size))
#endif

/* 6.2, 9b13df3fb64e ("timers: Rename del_timer_sync() to
 * timer_delete_sync()"); the old name went in 6.15. (A name of ucov's own:
 * some 6.1 stable kernels carry the new name too.) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define ucov_timer_delete_sync(t) timer_delete_sync(t)
#else
#define ucov_timer_delete_sync(t) del_timer_sync(t)
#endif

/* 6.13, 908a1d775422 ("hrtimers: Introduce hrtimer_setup() to replace
 * hrtimer_init()"); hrtimer_init went in 6.15. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ucov_hrtimer_setup(timer, fn, clock, mode) hrtimer_setup((timer), (fn), (clock), (mode))
#else
#define ucov_hrtimer_setup(timer, fn, clock, mode)                                                 \
  do {                                                                                             \
    hrtimer_init((timer), (clock), (mode));                                                        \
    (timer)->function = (fn);                                                                      \
  } while (0)
#endif

#endif
