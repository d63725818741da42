/* SPDX-License-Identifier: MIT */
/*
 * Reset baselines: how every counter object (gcc's and clang's gcov units,
 * LLVM profiles) resets without writing a live counter.
 *
 * A read reports live minus baseline. A reset (or a read-and-reset) moves the
 * baseline to the live values, each counter loaded once, so an increment that
 * lands after the load is in the next read: nothing is lost, whatever
 * -fprofile-update says. A two-phase reset (objects.h) first records, under a
 * token, where the baseline would move (pending), and moves it there only at
 * the commit, and only if nothing moved it meanwhile (gen).
 *
 * The serializers never see a baseline: they take each counter through a
 * struct ucov_counts, which the registry prepares for a read, a reset or a
 * snapshot.
 */
#ifndef UCOV_BASELINE_H
#define UCOV_BASELINE_H

#include <stdint.h>

#include "ucov/port/compiler.h"

struct ucov_baseline {
  uint64_t n;        /* counters (fixed when the object registers) */
  uint64_t *base;    /* NULL until the first reset */
  uint64_t *pending; /* where a commit moves base (allocated by the first snapshot) */
  uint64_t pending_token, pending_gen;
  uint64_t gen; /* changes whenever base moves */
};

/* What one serialization does with the baseline. */
enum ucov_take {
  UCOV_TAKE_READ,     /* report live - base */
  UCOV_TAKE_RESET,    /* ... and move base to live, if the serialization got through */
  UCOV_TAKE_SNAPSHOT, /* ... and record live as pending; base stays */
};

/* A serializer's view of the counters: subtract base, store live in move. */
struct ucov_counts {
  const uint64_t *base; /* NULL: nothing to subtract */
  uint64_t *move;       /* NULL: a plain read */
};

/* The count of counter i whose live value is `live` (counters wrap). */
static inline UCOV_NOTRACE uint64_t ucov_counts_take(const struct ucov_counts *c, uint64_t i,
                                                     uint64_t live) {
  uint64_t v = c->base ? live - c->base[i] : live;
  if (c->move)
    c->move[i] = live;
  return v;
}

/* A plain read of counters that have no baseline. */
#define UCOV_COUNTS_LIVE ((struct ucov_counts){0, 0})

/* Prepare c for one serialization of b's counters. 0 or -UCOV_ENOMEM (then
 * nothing changed). Lock held. */
int ucov_counts_begin(struct ucov_counts *c, struct ucov_baseline *b,
                      enum ucov_take how) UCOV_HIDDEN;

/* After the serialization (err: its result): a reset that got through moves
 * base (one that did not leaves it: no count is lost with a reply); a
 * snapshot that got through waits under token. Always call it. */
void ucov_counts_end(struct ucov_baseline *b, enum ucov_take how, uint64_t token,
                     int err) UCOV_HIDDEN;

/* The commit of a snapshot: base moves to pending. */
void ucov_baseline_commit(struct ucov_baseline *b) UCOV_HIDDEN;

/* Did base move since the snapshot pending under b's token? */
static inline UCOV_NOTRACE int ucov_baseline_stale(const struct ucov_baseline *b) {
  return b->pending_gen != b->gen;
}

void ucov_baseline_free(struct ucov_baseline *b) UCOV_HIDDEN;

/* How many times any unit's baseline moved (lock held): what was measured
 * against the baselines holds while it stays. */
extern uint64_t ucov_baseline_moves UCOV_HIDDEN;

#endif
