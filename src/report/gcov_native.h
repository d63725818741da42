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
#ifndef UCOV_REPORT_GCOV_NATIVE_H
#define UCOV_REPORT_GCOV_NATIVE_H

#include <stddef.h>

#include "model.h"

enum gcovn_kind {
  GCOVN_BAD = -1,  /* unreadable, or not a notes file */
  GCOVN_GCC = 0,   /* GCC 12-15: read here, gcov's counting */
  GCOVN_LLVM = 1,  /* clang's gcov format ("408*"): read here, llvm-cov's counting */
  GCOVN_OTHER = 2, /* a gcc version this reader does not know */
};

/* What the notes file at path is (its first 8 bytes). */
enum gcovn_kind gcovn_kind(const char *gcno);

/*
 * One compilation unit into the model. gcda NULL: never run (every line,
 * function and branch it has is counted, at 0). Relative source names are
 * relative to the directory the notes name (the compiler's). 0, or -1 with a
 * message in err (nothing added).
 */
int gcovn_read(struct cov_model *m, const char *gcno, const char *gcda, char *err, size_t errlen);

#endif
