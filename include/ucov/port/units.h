/* SPDX-License-Identifier: MIT */
/*
 * The --coverage units (gcc's and clang's), as a port that writes their
 * files sees them: one at a time, through a cursor, each written merged with
 * the file it replaces by the rules of the compiler's own runtime (libgcov,
 * compiler-rt). The registries, the baselines and the .gcda format stay in
 * the core; a port only finds, locks and replaces files.
 *
 * Every call but ucov_gcov_exit, ucov_gcov_exit_llvm and
 * ucov_gcov_dump_in_place is made with the port lock held.
 */
#ifndef UCOV_PORT_UNITS_H
#define UCOV_PORT_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/port/sink.h"

struct ucov_baseline;

/* One unit. Fill with zeros to start; ucov_unit_next moves to the next. */
struct ucov_unit {
  int llvm;                         /* 1: a clang unit (compiler-rt's .gcda rules) */
  const char *filename;             /* the .gcda path compiled into it */
  const void *anchor;               /* an address in its module (its gcov_info, its string) */
  const struct ucov_baseline *base; /* its reset baseline (ucov_port_unit_baseline's) */
  void *impl, *next;                /* the core's */
};

/* One dump's run figures, taken once before its units are written. */
struct ucov_units_dump {
  int new_run;     /* not yet counted in a summary: this write adds a run */
  int64_t run_max; /* the largest arcs counter of this run, over all units */
  unsigned flags;  /* UCOV_UNIT_RESET */
  int groups;      /* fresh files: units of one .gcda path are written as one */
};

/* Flag of a dump: each unit's baseline moves to the values written. */
#define UCOV_UNIT_RESET 1u

/* Start a dump; `fresh`: the files are new (a tree, not the build's files),
 * so every unit counts one run whatever was dumped before. */
void ucov_units_dump_begin(struct ucov_units_dump *d, unsigned flags, int fresh) UCOV_PORT_API;

/* Move u to the next unit (the first if u is zeroed); 0 past the last. The
 * unit u is may be removed before the next call. */
int ucov_unit_next(struct ucov_unit *u) UCOV_PORT_API;

/* At least the bytes u's file holds, computed without writing it. */
uint64_t ucov_unit_size_bound(const struct ucov_unit *u) UCOV_PORT_API;

/* u's object name ("gcov/<path>.gcda"): 0, or -1 if it does not fit. */
int ucov_unit_name(const struct ucov_unit *u, char *out, size_t len) UCOV_PORT_API;

/*
 * Write u's file into sink, merged with `old` (the file it replaces, NULL or
 * old_len 0 for none). Returns 0 (write it out; msg holds a warning when
 * non-empty), UCOV_UNIT_KEEP (leave the file as it is: msg says why; the
 * compiler's runtime does the same) or a negative errno value. In a dump of
 * fresh files, the first unit of a .gcda path writes every unit of that path
 * (copies of one library loaded at once, and what unloaded ones left) and the
 * others answer UCOV_UNIT_KEEP with an empty msg.
 */
#define UCOV_UNIT_KEEP 1
int ucov_unit_write(struct ucov_sink *sink, const struct ucov_unit *u,
                    const struct ucov_units_dump *d, const uint8_t *old, size_t old_len, char *msg,
                    size_t msglen) UCOV_PORT_API;

/*
 * u's module goes away: keep its counts (its gcov_info and counters copied),
 * served with the other units of its .gcda path until a read-and-reset or the
 * exit dump takes them, as Linux's gcov_persist keeps a module's. 0; or a
 * negative errno value (a clang unit, no memory), u unchanged: write it out
 * and forget it. Units may have gone: start the cursor again.
 */
int ucov_unit_retire(struct ucov_unit *u) UCOV_PORT_API;

/* Forget u, whose module goes away (its memory goes with it). */
void ucov_unit_remove(struct ucov_unit *u) UCOV_PORT_API;

/* Has the exit dump run? Then the units' final counts are written, and a
 * later read would report nothing or count twice. */
int ucov_gcov_exited(void) UCOV_PORT_API;

/* The exit dump of every unit (__gcov_exit of the runtime's own module); and
 * the one the runtime's module makes last, for programs with clang units only
 * (which call no __gcov_exit) and for the units of libraries in a program
 * built without ucov (nothing, if a dump ran). */
void ucov_gcov_exit(void) UCOV_PORT_API;
void ucov_gcov_exit_llvm(void) UCOV_PORT_API;

/*
 * DUMP (`ucov pull --in-place`): every unit written where the exit writes it
 * (ucov_port_gcov_dump(2): merged into the files), the baselines moved to what
 * was written, this run counted: as __gcov_dump() then __gcov_reset(), losing
 * nothing. 0 or -UCOV_ESHUTDOWN. Takes the port lock.
 */
int ucov_gcov_dump_in_place(void) UCOV_PORT_API;

/*
 * A unit's reset baseline as ucov_port_unit_baseline and
 * ucov_port_baseline_moved hand it over, for a port that keeps it for
 * another process (a keeper that writes the units' files): how many
 * counters, and their values at the last reset (NULL: never reset).
 */
struct ucov_baseline;
uint64_t ucov_baseline_count(const struct ucov_baseline *b) UCOV_PORT_API;
const uint64_t *ucov_baseline_values(const struct ucov_baseline *b) UCOV_PORT_API;
/* b's values become v[0..n) (n: its count), as if a reset had put them
 * there. 0, -UCOV_EINVAL (another count) or -UCOV_ENOMEM. */
int ucov_baseline_set(struct ucov_baseline *b, const uint64_t *v, uint64_t n) UCOV_PORT_API;

#endif
