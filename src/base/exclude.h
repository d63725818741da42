/* SPDX-License-Identifier: MIT */
/*
 * Exclusions, as lcov and gcovr make them: markers in the sources
 * ([GL]COVR?_EXCL_LINE, _START/_STOP, and _BR_ the same for branches),
 * line and branch patterns, branches on lines with no code, exception
 * branches. A pass over a finished model, so every kind of input (gcov,
 * LLVM, traces, tracefiles) is excluded alike; it reads each file's source.
 */
#ifndef UCOV_BASE_EXCLUDE_H
#define UCOV_BASE_EXCLUDE_H

#include <regex.h>
#include <stddef.h>

#include "model.h"

struct cov_excl {
  int markers;              /* honour the markers (lcov's and gcovr's default) */
  int unreachable_branches; /* gcovr: no branches on lines of only braces, comments */
  int throw_branches;       /* gcovr: no exception branches */
  int gcovr_lines;          /* --line-rule gcovr: a line never run whose code is "", "{", "}" or
                               "else" (comments aside) is no line with code */
  const char *line_pattern, *branch_pattern; /* POSIX EREs matched at a line's start */
  /* --exclude-function: functions whose whole name matches (gcovr's "/RE/"
   * or a plain RE; several joined by "|") are left out with their lines and
   * branches (from their first line to their last: the next function's
   * start when the input does not say) */
  const char *function_pattern;
  /* --exclude-function-lines: the line each function starts on has no code
   * (gcovr's: taken out, not counted as excluded) */
  int function_lines;
  /* --exclude-pattern-prefix: the markers' prefix, a regular expression
   * (gcovr's; NULL: [GL]COVR?) */
  const char *marker_prefix;
  const char *root; /* what relative source paths are relative to (NULL: here) */
  /* The text of a source at the model's revision, when it is not the file on
   * disk (a baseline's, rebuilt from the diff): malloc'd, NUL-terminated, or
   * NULL to read the file. NULL: always the file. */
  char *(*source)(void *arg, const char *path, size_t *len);
  void *source_arg;
  const char *cmd; /* who warns: "ucov report" */
  /* compiled by cov_excl_compile */
  regex_t line_re, branch_re, func_re, marker_re[2];
  int have_line_re, have_branch_re, have_func_re, have_marker_re;
};

/* Compile the patterns. 0, or -1 with msg saying which one is not an ERE. */
int cov_excl_compile(struct cov_excl *x);
void cov_excl_free(struct cov_excl *x);

/* Whether any exclusion is asked for. */
int cov_excl_active(const struct cov_excl *x);

/*
 * Take the excluded lines, branches, MC/DC conditions and functions (those
 * starting on an excluded line) out of every file of a finished model, and
 * keep what was taken in the file's excl_* fields. Unbalanced markers are
 * warned about on stderr, naming file and line. A source that cannot be read
 * has no markers. 0, or -1 without memory.
 */
int cov_exclude(struct cov_model *m, const struct cov_excl *x);

#endif
