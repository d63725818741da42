/* SPDX-License-Identifier: MIT */
/*
 * REMOTE coverage (kernel/kcov.c's kcov_remote_*): handles registered by a
 * device with KCOV_REMOTE_ENABLE; a worker brackets work done for a handle
 * with ucov_remote_start/stop; the section collects into an area of its own
 * and is appended to the device's buffer at stop, unless the device was
 * disabled in between. The calling thread's common handle is inherited by the
 * threads it creates and the children it forks.
 */
#ifndef UCOV_REMOTE_H
#define UCOV_REMOTE_H

#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/kcov.h"

struct ucov_device;

/*
 * Register the handles of `arg` (and its common handle) for dev, with Linux's
 * checks: EINVAL for more than KCOV_REMOTE_MAX_HANDLES handles, a malformed
 * handle, a mode other than TRACE_PC/TRACE_CMP, an area size out of range;
 * EEXIST for a handle another device holds. On error nothing stays
 * registered. Lock held.
 */
int ucov_remote_register(struct ucov_device *dev, const struct kcov_remote_arg *arg) UCOV_PORT_API;

/* Unregister every handle of dev; sections still running for them are
 * discarded at their stop. Lock held. */
void ucov_remote_unregister(struct ucov_device *dev) UCOV_PORT_API;

/* The calling thread's common handle (0: none), and setting it. */
uint64_t ucov_remote_common(void) UCOV_PORT_API;
void ucov_remote_set_common(uint64_t handle) UCOV_PORT_API;

#endif
