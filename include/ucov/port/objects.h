/* SPDX-License-Identifier: MIT */
/*
 * The object registry, as ports and the control plane call it: everything
 * the control plane can list, size, read and reset. Each kind of object is one table of operations
 * in objects.c (next, read, read-and-reset, reset, snapshot, commit; as Xen's coverage ops), so a
 * new kind is one new table:
 *
 *   modules                     the module map (port-provided; not resettable)
 *   xencov                      Xen's blob of every gcov unit (reset: all units;
 *                               listed beside gcov units; no snapshot)
 *   pgo/<module>.profraw        one module's LLVM raw profile (reset by baseline)
 *   gcov/<absolute path>.gcda   one gcov unit of gcc or clang (reset by baseline)
 *   kcov/<id>.kcov              a KCOV device's PC trace (reset: its count to 0)
 *
 * RESET_ALL resets the profiles and gcov units, not trace buffers.
 */
#ifndef UCOV_PORT_OBJECTS_H
#define UCOV_PORT_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/port/sink.h"

/* Longest object name (a port with small stacks, a kernel's, may build the
 * core with a shorter one: the name is on the stack). */
#ifndef UCOV_OBJECT_NAME_MAX
#define UCOV_OBJECT_NAME_MAX 4096
#endif

/*
 * Call fn for every object with its name and current size. Stops at the first
 * non-zero return and returns it. Takes the port lock.
 */
int ucov_objects_list(int (*fn)(const char *name, uint64_t size, void *arg),
                      void *arg) UCOV_PORT_API;

/* Read object `name` into sink; with reset, also reset it to what was read
 * (READ_AND_RESET). Returns 0, -UCOV_ENOENT or another negative errno. */
int ucov_object_read(const char *name, struct ucov_sink *sink, int reset) UCOV_PORT_API;

/* The size READ would produce now. */
int ucov_object_size(const char *name, uint64_t *size) UCOV_PORT_API;

/* Reset one object (-UCOV_EOPNOTSUPP for one without counters), or all. */
int ucov_object_reset(const char *name) UCOV_PORT_API;
int ucov_objects_reset_all(void) UCOV_PORT_API;

/*
 * Two-phase reset, for clients that must lose nothing even when they die.
 *
 * ucov_object_snapshot writes the token (u64, little-endian), then reads
 * object `name` into sink as READ does, and
 * remembers, under *token, where a reset to exactly what was read would move
 * its baselines; nothing moves yet. *token 0 asks for a new token (a new set
 * of snapshots); a token already issued and not yet committed adds the
 * object to its set. -UCOV_EINVAL for any other token, -UCOV_EOPNOTSUPP for
 * `modules`, -UCOV_ENOENT, -UCOV_ENOMEM, -UCOV_ESHUTDOWN.
 *
 * ucov_objects_commit(token, n) then moves the baselines of the n objects
 * snapshotted under token, all or nothing: 0 if it did, 1 if that token was
 * committed before (a retry after a lost reply, or a recovery: every commit
 * is remembered for the life of the process, not a window of them),
 * -UCOV_ESTALE if it never committed and now never will (an object was reset
 * or snapshotted again since, or n does not match: nothing moves, the counts
 * stay in the target), -UCOV_EINVAL for a token never issued, -UCOV_ENODATA
 * for one so old that its outcome was forgotten (only past 4096 ranges of
 * committed tokens), -UCOV_ENOMEM (nothing moves).
 * Counts made between the snapshot and the commit stay. A trace buffer's
 * count goes to 0 only if no PC was appended since its snapshot (else it is
 * left whole: those PCs are read again, never lost).
 */
int ucov_object_snapshot(const char *name, struct ucov_sink *sink, uint64_t *token) UCOV_PORT_API;
int ucov_objects_commit(uint64_t token, uint32_t n) UCOV_PORT_API;

/*
 * What the target knows of its tokens, as text lines for a port to keep
 * beside the process (so that a client can still decide after it is gone):
 * "issued N" (tokens 1..N were issued), "forgotten_below N" (outcomes below
 * N may be forgotten), then "committed LO HI" for each range of committed
 * tokens, oldest first. Takes the port lock.
 */
int ucov_objects_commit_record(struct ucov_sink *sink) UCOV_PORT_API;

#endif
