/* SPDX-License-Identifier: MIT */
/*
 * Included before every source of a module that ucov.mk instruments
 * (UCOV_TRACE): a stock kernel has no CONFIG_KCOV, so <linux/kcov.h> makes
 * kcov_remote_start(), kcov_remote_stop(), kcov_common_handle() and the
 * softirq flavour empty inlines, and a module's REMOTE sections (kcov.rst:
 * work done for a client in a kernel thread, a work item, a timer or a
 * softirq) would reach nothing. After it is included, these names (and the
 * _common and _usb helpers) call ucov.ko's (remote.c), with kcov.c's
 * semantics: sections in task context, sleeping or not, and in softirq;
 * none in hardirq.
 */
#ifndef UCOV_LINUX_KCOV_H
#define UCOV_LINUX_KCOV_H

#include <linux/kcov.h>

u64 ucov_kcov_common_handle(void);
void ucov_kcov_remote_start(u64 handle);
void ucov_kcov_remote_stop(void);
void ucov_kcov_remote_start_usb_softirq(u64 id);
void ucov_kcov_remote_stop_softirq(void);

/* (Built into vmlinux, CONFIG_KCOV's kcov.h declares the real names, and
 * builtin/tasks_builtin.c defines them.) */
#ifndef UCOV_LINUX_BUILTIN
#define kcov_common_handle() ucov_kcov_common_handle()
#define kcov_remote_start(handle) ucov_kcov_remote_start(handle)
#define kcov_remote_stop() ucov_kcov_remote_stop()
#define kcov_remote_start_common(id)                                                               \
  ucov_kcov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, (id)))
#define kcov_remote_start_usb(id)                                                                  \
  ucov_kcov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_USB, (id)))
/* (void in 6.1 and 6.12 alike; 6.1's kcov.h tests in_serving_softirq(),
 * 6.12's adds !in_hardirq(): ucov.ko's tests both, and a hardirq section
 * does nothing either way) */
#define kcov_remote_start_usb_softirq(id) ucov_kcov_remote_start_usb_softirq(id)
#define kcov_remote_stop_softirq() ucov_kcov_remote_stop_softirq()
#endif

#endif
