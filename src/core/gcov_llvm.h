/* SPDX-License-Identifier: MIT */
/*
 * clang's gcov path (clang --coverage): units learnt from the writeout
 * callback each module registers with llvm_gcov_init, and their .gcda in the
 * format compiler-rt's GCDAProfiling writes (its version word decides: "408*"
 * by default in clang 14-17).
 *
 * At llvm_gcov_init the core calls the module's writeout function once, with
 * its llvm_gcda_* callbacks recording the file name, version, checksums and
 * where each function's arc counters are; after that it reads the counters
 * directly, minus a reset baseline (baseline.h), like gcc units. It never calls the
 * module's reset function (that would write live counters).
 */
#ifndef UCOV_GCOV_LLVM_H
#define UCOV_GCOV_LLVM_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "group.h"
#include "ucov/port/compiler.h"
#include "ucov/port/sink.h"

struct ucov_llvm_fn {
  uint32_t ident, func_checksum, cfg_checksum, num;
  uint64_t *counters;
};

struct ucov_llvm_unit {
  const char *filename; /* the module's string (a ghost's: its copy) */
  uint32_t version, checksum;
  unsigned n_fns, cap;
  struct ucov_llvm_fn *fns;
  struct ucov_baseline base; /* one per arc counter (base.n of them) */
  struct ucov_llvm_unit *next;
  struct ucov_group grp; /* among the units of its .gcda path (group.h) */
};

/* The registered clang units, newest first. Lock held. */
struct ucov_llvm_unit *ucov_llvm_units(void) UCOV_HIDDEN;

/* The primary unit of the group whose .gcda path is filename, or NULL. */
struct ucov_llvm_unit *ucov_llvm_unit_named(const char *filename) UCOV_HIDDEN;

/* Forget a clang unit whose module goes away. Lock held. */
void ucov_llvm_unit_remove(struct ucov_llvm_unit *u) UCOV_HIDDEN;

/* u's module goes away: its counts kept in its group's ghost (group.h). 0,
 * or -UCOV_ENOMEM with u as it was. Lock held. */
int ucov_llvm_unit_retire(struct ucov_llvm_unit *u) UCOV_HIDDEN;

/* A group (head: its primary) as one object, as ucov_gcov_group_write; RESET. */
int ucov_llvm_group_write(struct ucov_sink *sink, struct ucov_llvm_unit *head, enum ucov_take how,
                          uint64_t token) UCOV_HIDDEN;
int ucov_llvm_group_reset(struct ucov_llvm_unit *head) UCOV_HIDDEN;

/*
 * Serialize u as compiler-rt does: live minus baseline, plus the counters of
 * `old` (an existing file, NULL for none) where its records line up, and a run
 * count of old's plus new_run. flags: UCOV_GCOV_RESET moves the baseline.
 * Returns 0 or a negative errno from the sink.
 */
int ucov_llvm_write(struct ucov_sink *sink, struct ucov_llvm_unit *u, const uint8_t *old,
                    size_t old_len, int new_run, unsigned flags) UCOV_HIDDEN;

/* The format alone (gcda_llvm.c): each arc counter taken through c, in order. */
int ucov_llvm_gcda_write(struct ucov_sink *sink, const struct ucov_llvm_unit *u, const uint8_t *old,
                         size_t old_len, int new_run, const struct ucov_counts *c) UCOV_HIDDEN;

/* Move u's baseline to the live counters. 0 or -UCOV_ENOMEM. */
int ucov_llvm_reset(struct ucov_llvm_unit *u) UCOV_HIDDEN;

/* Two-phase reset of u, as ucov_gcov_snapshot and ucov_gcov_commit. */
int ucov_llvm_snapshot(struct ucov_sink *sink, struct ucov_llvm_unit *u,
                       uint64_t token) UCOV_HIDDEN;
void ucov_llvm_commit(struct ucov_llvm_unit *u) UCOV_HIDDEN;

#endif
