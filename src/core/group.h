/* SPDX-License-Identifier: MIT */
/*
 * Units that share one .gcda path, served as one object (gcov_twins.c).
 *
 * Several units can carry one .gcda path: copies of one shared object loaded
 * at once, or one object loaded again after it was unloaded. Their compiler's
 * runtime merges each into the same file at exit, so their counts add. Here
 * they form a group (linked by `twin`; the first registered is `primary`),
 * which the registry serves as one object: every read, snapshot and commit
 * covers the whole group, merged as the runtime merges a file. gcc's units
 * and clang's both have a struct ucov_group.
 *
 * A unit whose module goes away is retired, not dropped: its counters (and
 * what describes them) are copied, a ghost, which stays in its group so that
 * the counts it made since the last pull are served until a pull or the exit
 * takes them. A group keeps at most one ghost: a later retired unit of the
 * same compilation adds its counts into it (and the part of them a pending
 * snapshot holds into its pending point), as increments of a live unit would.
 * Lock held throughout.
 */
#ifndef UCOV_GROUP_H
#define UCOV_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "ucov/port/compiler.h"
#include "ucov/port/sink.h"

struct ucov_group {
  struct ucov_group *twin;    /* the next of its group */
  struct ucov_baseline *base; /* its unit's */
  uint32_t name_hash;
  uint8_t primary; /* the group's first: the one the registry lists */
  uint8_t ghost;   /* what a unit left when its module went (ghost_mem: the copy) */
  void *ghost_mem;
};

#define UCOV_UNIT_OF(g, type, member) ((type *)(void *)((char *)(g)-offsetof(type, member)))

uint32_t ucov_group_hash(const char *name) UCOV_HIDDEN;

/* New member g joins the group whose primary is head (NULL: g starts one). */
void ucov_group_join(struct ucov_group *head, struct ucov_group *g) UCOV_HIDDEN;
/* g leaves the group whose primary is head (g itself when g is primary). */
void ucov_group_leave(struct ucov_group *head, struct ucov_group *g) UCOV_HIDDEN;

/*
 * Group primaries by name hash, so that a new unit finds its group, and the
 * registry an object by name, without a walk of every unit: open addressing
 * with linear probing, grown at three quarters full. Each kind keeps its own
 * (gcc's units, clang's). If memory for it runs out the index turns off and
 * ucov_group_index_get answers -1: the caller walks its list, as before.
 * name_of gives a member's .gcda path.
 */
struct ucov_group_index {
  struct ucov_group **slot; /* NULL: empty; UCOV_GROUP_GONE: a removed entry */
  uint32_t cap, used;       /* used: entries and removed ones */
  uint8_t off;
  const char *(*name_of)(const struct ucov_group *g);
};
#define UCOV_GROUP_GONE ((struct ucov_group *)1)
void ucov_group_index_put(struct ucov_group_index *ix, struct ucov_group *g) UCOV_HIDDEN;
void ucov_group_index_drop(struct ucov_group_index *ix, struct ucov_group *g) UCOV_HIDDEN;
/* The primary named name (hash) in *out (NULL: none): 0, or -1 if the index is off. */
int ucov_group_index_get(const struct ucov_group_index *ix, const char *name, uint32_t hash,
                         struct ucov_group **out) UCOV_HIDDEN;
/* g joins (head NULL: starts) or leaves its group, the index kept. */
void ucov_group_join_indexed(struct ucov_group_index *ix, struct ucov_group *head,
                             struct ucov_group *g) UCOV_HIDDEN;
void ucov_group_leave_indexed(struct ucov_group_index *ix, struct ucov_group *head,
                              struct ucov_group *g) UCOV_HIDDEN;

/*
 * The group as one .gcda: fn writes member m into out, merged over prev (the
 * members before it, as one file; prev_len 0 for none), its counters taken
 * through c. how: READ, RESET (each member snapshotted, all committed once
 * the whole reply got through) or SNAPSHOT under token.
 */
typedef int (*ucov_group_write_fn)(struct ucov_group *m, struct ucov_sink *out, const uint8_t *prev,
                                   size_t prev_len, const struct ucov_counts *c, void *arg);
int ucov_group_write(struct ucov_group *head, struct ucov_sink *sink, enum ucov_take how,
                     uint64_t token, ucov_group_write_fn fn, void *arg) UCOV_HIDDEN;
uint64_t *ucov_group_pending(struct ucov_group *head, int *stale) UCOV_HIDDEN;
void ucov_group_commit(struct ucov_group *head) UCOV_HIDDEN;
/* RESET of every member (reset: one member's): 0, or the first error. */
int ucov_group_reset(struct ucov_group *head, int (*reset)(struct ucov_group *m)) UCOV_HIDDEN;

/*
 * Ghost g takes retired member u's counts. ucov_group_absorb_begin readies
 * g's baseline for u's pending snapshot (0, or -UCOV_ENOMEM with nothing
 * changed) and says (*us) where that snapshot stands; then for each of u's
 * additive counters, in order, ucov_group_absorb adds into g's counter *gv
 * what u counted since its baseline, and moves g's pending point by what
 * u's snapshot holds.
 */
int ucov_group_absorb_begin(struct ucov_group *g, struct ucov_group *u,
                            const uint64_t **us) UCOV_HIDDEN;
void ucov_group_absorb(struct ucov_group *g, const struct ucov_group *u, const uint64_t *us,
                       uint64_t idx, uint64_t live, uint64_t *gv) UCOV_HIDDEN;

/* What retiring takes of a unit kind: is u's layout ghost g's (one
 * compilation)? add u's counts into g (after ucov_group_absorb_begin, us as
 * it said); copy u into a block of its own and make u that copy (the block,
 * or NULL without memory). */
struct ucov_group_kind {
  int (*same_layout)(const struct ucov_group *g, const struct ucov_group *u);
  void (*absorb)(struct ucov_group *g, struct ucov_group *u, const uint64_t *us);
  void *(*make_ghost)(struct ucov_group *u);
};

/*
 * u's module goes away (head: its group's primary): its counts go into the
 * group's ghost, or u becomes the ghost. 0, with *gone the member the caller
 * removes now (u, whose counts are in the ghost; an older ghost of another
 * compilation, overwritten as the runtime overwrites its file; or NULL); or
 * -UCOV_ENOMEM, nothing changed.
 */
int ucov_group_retire(struct ucov_group *head, struct ucov_group *u,
                      const struct ucov_group_kind *k, struct ucov_group **gone) UCOV_HIDDEN;

/* Copy n bytes (freestanding: no memcpy). */
void ucov_copy_bytes(void *to, const void *from, size_t n) UCOV_HIDDEN;

#endif
