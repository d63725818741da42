/* SPDX-License-Identifier: MIT */
/*
 * gcov units: the registry of gcc-instrumented objects, their live counters
 * and reset baselines (baseline.h); and the .gcda format (gcda.c): the writer,
 * which takes counters through a struct ucov_counts and knows no baseline, and
 * the merge reader.
 */
#ifndef UCOV_GCOV_H
#define UCOV_GCOV_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "group.h"
#include "ucov/port/compiler.h"
#include "ucov/port/gcov_abi.h"
#include "ucov/port/sink.h"
#include "ucov/port/units.h"

struct ucov_gcov_unit {
  const struct gcov_info *info;
  unsigned n_counters;  /* GCOV_COUNTERS of the unit's GCC */
  unsigned n_functions; /* from the info */
  const struct gcov_fn_info *const *functions;
  struct ucov_baseline base; /* one per additive counter (base.n of them) */
  uint32_t max_num;          /* the most counters one function has of one kind */
  struct ucov_gcov_unit *next;
  struct ucov_group grp; /* among the units of its .gcda path (group.h) */
};

/* Program-wide figures of one dump, as libgcov writes them in OBJECT_SUMMARY. */
struct ucov_gcov_summary {
  uint32_t runs;
  gcov_type sum_max;
};

/*
 * A parsed .gcda to merge with, checked against a unit as libgcov does
 * (version, checksum, function idents and checksums, counter lengths).
 */
struct ucov_gcda_merge;

/* The registered units, newest first. Lock held while walking. */
struct ucov_gcov_unit *ucov_gcov_units(void) UCOV_HIDDEN;

/* The largest arcs counter of this run (live minus baseline), over all units. */
gcov_type ucov_gcov_run_max(void) UCOV_HIDDEN;

/*
 * The same, for the live reads of one session (a client's connection, a
 * listing): measured at the session's first read and kept, as libgcov
 * measures it once per dump, so that reading N units costs N, not N times
 * N. Forgotten when the session ends, when units come or go and whenever a
 * baseline moves (ucov_gcov_run_max_forget).
 */
gcov_type ucov_gcov_run_max_kept(void) UCOV_HIDDEN;
void ucov_gcov_run_max_forget(void) UCOV_HIDDEN;

/* Flags of ucov_gcov_write(). */
#define UCOV_GCOV_RESET 1u /* move the baseline to the values written */

/*
 * Serialize unit u as a .gcda into sink: live counters minus baseline, plus
 * the counts of `merge` (NULL: none), with summary `sum`; with
 * UCOV_GCOV_RESET, a read-and-reset. Returns 0 or a negative errno value.
 */
int ucov_gcov_write(struct ucov_sink *sink, struct ucov_gcov_unit *u,
                    const struct ucov_gcov_summary *sum, const struct ucov_gcda_merge *merge,
                    unsigned flags) UCOV_HIDDEN;

/*
 * The .gcda format alone: unit u with each additive counter taken through c
 * (index: its place among the unit's additive counters, in record order),
 * the others as they are, merged with `merge`. 0 or a negative errno.
 */
int ucov_gcda_write(struct ucov_sink *sink, const struct ucov_gcov_unit *u,
                    const struct ucov_gcov_summary *sum, const struct ucov_gcda_merge *merge,
                    const struct ucov_counts *c) UCOV_HIDDEN;

/* At least the bytes a .gcda of u holds (its own functions, each counter
 * record whole, TOPN lists full), computed without serializing it. */
uint64_t ucov_gcov_size_bound(const struct ucov_gcov_unit *u) UCOV_HIDDEN;

/* Move every baseline of u to the live values (RESET). Returns 0 or -UCOV_ENOMEM. */
int ucov_gcov_reset(struct ucov_gcov_unit *u) UCOV_HIDDEN;

/*
 * The first phase of a two-phase reset: write u as a live read does (sum as
 * ucov_gcov_write), and keep, under token, the baseline that read would have
 * moved to; the baseline itself stays. ucov_gcov_commit moves it there if
 * nothing moved it meanwhile. A later snapshot replaces an earlier one.
 */
int ucov_gcov_snapshot(struct ucov_sink *sink, struct ucov_gcov_unit *u,
                       const struct ucov_gcov_summary *sum, uint64_t token) UCOV_HIDDEN;
void ucov_gcov_commit(struct ucov_gcov_unit *u) UCOV_HIDDEN;

/* Results of ucov_gcda_parse(). */
enum ucov_gcda_parse_result {
  UCOV_GCDA_MERGE = 0,     /* *out is ready to merge */
  UCOV_GCDA_OVERWRITE = 1, /* another compilation's file (checksum differs): overwrite it */
  UCOV_GCDA_ERROR = -1,    /* not a .gcda of this unit: msg says why; leave the file alone */
};

/*
 * Parse an existing .gcda (buf, len) for merging into unit u. On
 * UCOV_GCDA_MERGE, *out is allocated (free with ucov_gcda_merge_free) and
 * points into buf, which must outlive it. On error, msg (size msglen) says why.
 */
int ucov_gcda_parse(const uint8_t *buf, size_t len, const struct ucov_gcov_unit *u,
                    struct ucov_gcda_merge **out, char *msg, size_t msglen) UCOV_HIDDEN;
void ucov_gcda_merge_free(struct ucov_gcda_merge *m) UCOV_HIDDEN;

/* A message into msg (len bytes): text a, then num in decimal unless it is
 * ~0u (freestanding: no snprintf). Nothing when len is 0. */
void ucov_msg_set(char *msg, size_t len, const char *a, unsigned num) UCOV_HIDDEN;

/* Runs and sum_max read from the file being merged. */
struct ucov_gcov_summary ucov_gcda_merge_summary(const struct ucov_gcda_merge *m) UCOV_HIDDEN;

/* Forget a unit whose module goes away (lock held); and a clang unit. */
void ucov_gcov_unit_remove(struct ucov_gcov_unit *u) UCOV_HIDDEN;
int ucov_gcov_unit_retire(struct ucov_gcov_unit *u) UCOV_HIDDEN;

/* ---- groups of one .gcda path, and retired units (gcov_twins.c, group.h) ---- */

/* Put new unit u (not yet in list) into its group, or make it one. */
void ucov_gcov_group_join(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u) UCOV_HIDDEN;

/* Take u (still in list) out of its group. */
void ucov_gcov_group_leave(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u) UCOV_HIDDEN;

/* The primary unit of the group whose .gcda path is filename, or NULL
 * (through the index of primaries; a walk of list if it is off). */
struct ucov_gcov_unit *ucov_gcov_unit_named(struct ucov_gcov_unit *list,
                                            const char *filename) UCOV_HIDDEN;

/* u's module goes away: its counts kept (ucov_group_retire); *gone: the
 * unit the caller removes now, or NULL. */
int ucov_gcov_retire(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u,
                     struct ucov_gcov_unit **gone) UCOV_HIDDEN;
void ucov_gcov_ghost_free(struct ucov_gcov_unit *u) UCOV_HIDDEN;

/* A group (head: its primary) as one object: read, read-and-reset or
 * snapshot (ucov_group_write); RESET. */
int ucov_gcov_group_write(struct ucov_sink *sink, struct ucov_gcov_unit *head,
                          const struct ucov_gcov_summary *sum, enum ucov_take how,
                          uint64_t token) UCOV_HIDDEN;
int ucov_gcov_group_reset(struct ucov_gcov_unit *head) UCOV_HIDDEN;

/* Is this run already in a summary (a dump happened before)? libgcov's run_counted. */
int ucov_gcov_run_counted(void) UCOV_HIDDEN;

#endif
