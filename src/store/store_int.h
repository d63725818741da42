/* SPDX-License-Identifier: MIT */
/*
 * Inside the store: its handle and the helpers its files share (store.c,
 * store_schema.c, store_push.c, store_query.c, and store_units.c: the gcov units
 * a push stores and a report solves again).
 */
#ifndef UCOV_STORE_INT_H
#define UCOV_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h" /* SAY */
#include "store.h"

struct store {
  struct db *db;
  int pg;
  int staged; /* the temporary staging tables exist on this connection */
  int reader; /* opened to read: a store that is not there is an error, never made */
  char url[256];
};

/* An upsert's saturating sum, a printf template: %1$s the table, %2$s the
 * column (2^63-1 at most, as SUMSAT). */
extern const char store_sat[];
/* A count row's first_at on conflict (table t): the earlier of the two (NULL: none). */
#define STORE_FIRST_AT_OF(t)                                                                       \
  "first_at = CASE WHEN " t ".first_at IS NULL OR excluded.first_at < " t                          \
  ".first_at THEN excluded.first_at ELSE " t ".first_at END"
#define STORE_FIRST_AT STORE_FIRST_AT_OF("line_counts")

/* msg = what, and the engine's last error; -1. */
int store_fail(struct store *s, const char *what);
/* One statement with text then integer parameters: -1 an error, 0 no row,
 * 1 a row (its first column in *out, when out is given). */
int store_q1(struct store *s, const char *sql, const char *const *text, int n, const int64_t *ints,
             int ni, int64_t *out);
/* For a statement's effect: 0 or -1. */
int store_run(struct store *s, const char *sql, const char *const *text, int n, const int64_t *ints,
              int ni);
/* The schema made or migrated once per handle, before a push or a read:
 * 0, or -1 (msg). store_schema.c. */
int store_ready(struct store *s);
/* Every count of build `from` moved into build `to` (a migration, a
 * repeated push). store_push.c. */
int store_move_counts(struct store *s, int64_t from, int64_t to);
/* A filter's parameters bound from $first on (see store.c's filter_sql). */
void store_bind_filter(struct store *s, struct db_stmt *st, const struct store_filter *f, int first,
                       int64_t build);

/* qsort's and bsearch's order of pointers (the take sets below) */
int store_cmp_ptr(const void *a, const void *b);

/* The push's units (p->units) into the store, in its transaction: their
 * notes, where their sources went, that they ran, their counters summed
 * into unit_counts (staged in stage_arcs). 0 or -1 (msg). */
int units_push(struct store *s, const struct store_units *u, int64_t build, int64_t ctx);

/*
 * The files of m in take[0..n) (sorted by address) get their lines, functions
 * and branches from the selected units (where: the filter's WHERE clause
 * over alias l and contexts c, its parameters bound by store_bind_filter):
 * each unit solved from its counters summed over the selection. filled[i]
 * says whether take[i] got any. 0 or -1 (msg).
 */
int units_read(struct store *s, const char *where, const struct store_filter *f, int64_t build,
               struct cov_model *m, struct cov_file **take, int *filled, size_t n);

#endif
