/* SPDX-License-Identifier: MIT */
/*
 * gcov notes (.gcno) and counts (.gcda), read without gcov: the block graph
 * of every function, the arc counts solved by flow conservation, and from
 * them, per source file, the line counts (entries into the line's blocks
 * plus the loops that stay on the line), function entry counts and the
 * conditional branches of the blocks that end on a line, count for count as
 * the compiler's own tool reports them: gcc's notes (GCC 12 to 15: lengths
 * in bytes, unaligned strings) as `gcov --json-format --branch-probabilities`
 * does, clang's ("408*": gcc 4.8's layout in words) as `llvm-cov gcov -b -c`
 * does. Notes of another gcc version are GCOVN_OTHER: gcov reads those.
 */
#ifndef UCOV_READERS_GCOVN_H
#define UCOV_READERS_GCOVN_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

enum gcovn_kind {
  GCOVN_BAD = -1,  /* unreadable, or not a notes file */
  GCOVN_GCC = 0,   /* GCC 12-15: read here, gcov's counting */
  GCOVN_LLVM = 1,  /* clang's gcov format ("408*"): read here, llvm-cov's counting */
  GCOVN_OTHER = 2, /* a gcc version this reader does not know */
};

/* What the notes file at path is (its first 8 bytes). */
enum gcovn_kind gcovn_kind(const char *gcno);

/*
 * One compilation unit into the model, from the n runs of it (its .gcda
 * files' counters summed, then solved once: the lines of one run doing all
 * their work; gcov's line counts of each, summed, need not be). n 0: never
 * run (every line, function and branch it has is counted, at 0). Relative
 * source names are relative to the directory the notes name (the
 * compiler's). 0, or -1, said (diag.h; nothing added). So for every call
 * below.
 */
int gcovn_read_many(struct cov_model *m, const char *gcno, const char *const *gcdas, size_t n);

/*
 * Does unit gcno name sources by relative paths? How many of its functions
 * are in such sources (at least 1 if only lines name one), with *dir the
 * directory they are relative to (the compiler's, or clang's notes file's
 * own, as gcovn_read_many takes it; malloc'ed); 0; or -1.
 */
int gcovn_relative_dir(const char *gcno, char **dir);

/*
 * What adds across runs: a unit's counters (its arcs off the spanning
 * tree), summed over its .gcda files (none: all 0), function by function:
 * fn(arg, ident, has_counts, counts, n), has_counts telling whether some
 * .gcda had a record for it (llvm-cov counts a function without one
 * differently). fn returns nonzero to stop: -1, and fn says why. 0, or -1.
 */
int gcovn_counters(const char *gcno, const char *const *gcdas, size_t n_gcdas,
                   int (*fn)(void *arg, uint32_t ident, int has_counts, const int64_t *counts,
                             size_t n),
                   void *arg);

/*
 * One unit into the model from its notes' bytes (gcno: the path they were
 * read from, for clang's relative source names) and counters given back:
 * fill(arg, ident, counts, n) fills a function's n counters (left at 0:
 * none stored) and returns 1 if it had a record, 0 if not, -1 if what is
 * stored does not fit (another build's). have_data: some run's .gcda was
 * read for it. Lines are derived from these counters as from one .gcda
 * holding them all, so the counters of many runs summed give the lines of
 * one run doing all their work. 0, or -1.
 */
int gcovn_read_counted(struct cov_model *m, const char *gcno, const unsigned char *notes,
                       size_t len, int have_data,
                       int (*fill)(void *arg, uint32_t ident, int64_t *counts, size_t n),
                       void *arg);

#endif
