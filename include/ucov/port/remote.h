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
struct ucov_task;

/*
 * Register the handles of `arg` (and its common handle) for dev, with Linux's
 * checks: EINVAL for more than KCOV_REMOTE_MAX_HANDLES handles, a malformed
 * handle, a mode other than TRACE_PC/TRACE_CMP, an area size out of range;
 * EEXIST for a handle another device holds. On error nothing stays
 * registered. Port lock held (it takes the REMOTE lock).
 */
int ucov_remote_register(struct ucov_device *dev, const struct kcov_remote_arg *arg) UCOV_PORT_API;

/* Unregister every handle of dev; sections still running for them are
 * discarded at their stop. Port lock held (it takes the REMOTE lock). */
void ucov_remote_unregister(struct ucov_device *dev) UCOV_PORT_API;

/*
 * Sections, for a port that runs them itself (a kernel's, where a section
 * may start in softirq or with a spinlock held: nothing there may sleep or
 * allocate, so the port brings the area). ucov_remote_start/stop (ucov.h)
 * are these with the port lock and a pool of areas.
 */
struct ucov_remote_target {
  uint64_t seq;   /* the device's sequence: the section is delivered only if it is unchanged */
  uint64_t words; /* the area size the device asked for (kcov_remote_arg.area_size) */
  uint32_t mode;  /* UCOV_TASK_PC or UCOV_TASK_CMP */
};

/* The device that registered `handle`: 0 and *tg, or -UCOV_ENOENT. REMOTE lock held. */
int ucov_remote_find(uint64_t handle, struct ucov_remote_target *tg) UCOV_PORT_API;

/* Start a section for `handle` on t (which traces nothing), recording into
 * area (words words, at least 2; its count is reset). No lock. */
void ucov_remote_begin(struct ucov_task *t, uint64_t handle, const struct ucov_remote_target *tg,
                       uint64_t *area, uint64_t words) UCOV_PORT_API;

/* End t's section: t stops recording; its area, size and the device's
 * sequence at the start come back. The section's handle, or 0 if t was in
 * none. No lock. */
uint64_t ucov_remote_end(struct ucov_task *t, uint64_t **area, uint64_t *words,
                         uint64_t *seq) UCOV_PORT_API;

/* Append a finished section's records to the buffer of the device that
 * holds `handle`, if its sequence is still seq (not disabled or re-enabled
 * since); else drop them. No allocation. REMOTE lock held. */
void ucov_remote_deliver(uint64_t handle, uint64_t seq, const uint64_t *area,
                         uint64_t words) UCOV_PORT_API;

/*
 * The pool of finished sections' areas, kept for the next sections (as
 * kcov.c keeps its own), at most UCOV_REMOTE_POOL_BYTES in all: a client's
 * odd sizes cannot make it grow without end. Nothing here allocates or
 * frees; each call is made under the lock that guards the port's sections
 * (the port lock for ucov_remote_start/stop, a kernel's REMOTE lock).
 *  - take: an area of `words` words, or NULL;
 *  - keep: 1, area kept; 0, no room (the caller frees it);
 *  - count: the areas of `words` words kept;
 *  - evict: an area of another size taken out for the caller to free (to
 *    make room for this one), or NULL.
 */
#ifndef UCOV_REMOTE_POOL_BYTES
#define UCOV_REMOTE_POOL_BYTES (64ull << 20)
#endif
uint64_t *ucov_remote_pool_take(uint64_t words) UCOV_PORT_API;
int ucov_remote_pool_keep(uint64_t *area, uint64_t words) UCOV_PORT_API;
unsigned ucov_remote_pool_count(uint64_t words) UCOV_PORT_API;
uint64_t *ucov_remote_pool_evict(uint64_t words) UCOV_PORT_API;

/* The calling thread's common handle (0: none), and setting it. */
uint64_t ucov_remote_common(void) UCOV_PORT_API;
void ucov_remote_set_common(uint64_t handle) UCOV_PORT_API;

#endif
