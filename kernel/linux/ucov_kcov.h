/* SPDX-License-Identifier: MIT */
/*
 * Included before every source of a module that ucov.mk instruments
 * (UCOV_TRACE): a stock kernel has no CONFIG_KCOV, so <linux/kcov.h> makes
 * kcov_remote_start(), kcov_remote_stop() and kcov_common_handle() empty
 * inlines, and a module's REMOTE sections (kcov.rst: work done for a client
 * in a kernel thread or a work item) would reach nothing. After it is
 * included, these names (and the _common and _usb helpers) call ucov.ko's.
 * ucov.ko's sections are for tasks that may sleep (its lock is a mutex): in
 * interrupt context, and in a task that traces for itself, they do nothing.
 */
#ifndef UCOV_LINUX_KCOV_H
#define UCOV_LINUX_KCOV_H

#include <linux/kcov.h>

u64 ucov_kcov_common_handle(void);
void ucov_kcov_remote_start(u64 handle);
void ucov_kcov_remote_stop(void);

#define kcov_common_handle() ucov_kcov_common_handle()
#define kcov_remote_start(handle) ucov_kcov_remote_start(handle)
#define kcov_remote_stop() ucov_kcov_remote_stop()
#define kcov_remote_start_common(id)                                                               \
  ucov_kcov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, (id)))
#define kcov_remote_start_usb(id)                                                                  \
  ucov_kcov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_USB, (id)))

#endif
