/* SPDX-License-Identifier: MIT */
/*
 * A KCOV device: one coverage handle with its trace area, and the state
 * machine of Linux's kcov_ioctl_locked(). Ports embed struct ucov_device in
 * their own device object (memfd, arena slot, ...) and route ioctls here.
 */
#ifndef UCOV_DEVICE_H
#define UCOV_DEVICE_H

#include <stdint.h>

#include "ucov/port/compiler.h"

enum ucov_device_state {
  UCOV_DEVICE_NEW = 0, /* no area yet (KCOV_MODE_DISABLED) */
  UCOV_DEVICE_READY,   /* area allocated, not enabled (KCOV_MODE_INIT) */
  UCOV_DEVICE_ENABLED, /* bound to a task */
};

struct ucov_task;

struct ucov_device {
  enum ucov_device_state state;
  uint32_t task_mode;     /* UCOV_TASK_* bits while enabled */
  uint64_t unique_words;  /* UNIQUE: bitmap words at the start of the area */
  uint64_t size;          /* area size in words */
  uint64_t *area;         /* the port's mapping of the area */
  struct ucov_task *task; /* the task tracing into it while enabled */
  int closed;             /* the owner closed it; release when no task uses it */
  int remote;             /* KCOV_REMOTE_ENABLE: handles registered, the task does not trace */
  uint32_t remote_mode;   /* UCOV_TASK_PC or UCOV_TASK_CMP for sections */
  uint64_t remote_size;   /* words of each section's area */
  uint64_t sequence;      /* changes at every (remote) enable and disable */
  uint32_t last_mode;     /* the mode of the last (remote) enable: what the area holds */
  uint64_t pending_count; /* two-phase reset of its trace object: the count a snapshot read */
  uint64_t pending_token; /* ... and its token (0: none) */
};

/*
 * Apply a KCOV ioctl to `dev` on behalf of the calling task. Returns 0 or a
 * negative errno value (UCOV_E*). Called with the port lock held.
 */
int ucov_device_ioctl(struct ucov_device *dev, unsigned long cmd, unsigned long arg) UCOV_PORT_API;

/*
 * May the area be mapped with this length and offset? 0 or -UCOV_EINVAL, as
 * Linux's kcov_mmap: the area must exist, offset 0, length exactly size * 8.
 * Called with the port lock held.
 */
int ucov_device_mmap_check(struct ucov_device *dev, uint64_t length, uint64_t offset) UCOV_PORT_API;

/*
 * The owner closes `dev`. If no task traces into it the port releases it now,
 * otherwise when that task disables or ends (as Linux keeps a reference).
 * Called with the port lock held.
 */
void ucov_device_close(struct ucov_device *dev) UCOV_PORT_API;

/*
 * A device is enabled in the target (get) or no longer (put), counted across
 * the target: the device ioctls count their own; a port that enables a
 * device otherwise (a REMOTE registration from another process) counts it
 * here. The first get calls ucov_port_trace_live(1) (its error is get's,
 * and nothing is counted), the last put ucov_port_trace_live(0). Called with
 * the port lock held.
 */
int ucov_trace_users_get(void) UCOV_PORT_API;
void ucov_trace_users_put(void) UCOV_PORT_API;

#endif
