/* SPDX-License-Identifier: MIT */
/* The self-contained HTML report, and differential coverage against a baseline. */
#ifndef UCOV_WRITERS_HTML_H
#define UCOV_WRITERS_HTML_H

#include <stdio.h>

#include "diffcov/diff.h"
#include "base/model.h"

#include <stddef.h>
#include <stdint.h>

/* A test that ran a line, and its hits there. */
struct html_line_test {
  size_t file; /* the model's file index */
  uint32_t line;
  uint32_t test; /* index into tests[] */
  uint64_t count;
};

/* A build's coverage: lines (as ucov history counts them), functions,
 * branches (found, hit). */
struct html_build {
  int64_t id, created;
  const char *revision;
  uint64_t found[3], hit[3];
};

/* What the store adds to a page (ucov report --store URL --html). */
struct html_extra {
  const char *const *tests;
  size_t n_tests;
  /* by file and line, each line's tests most hits first (ucov who's order) */
  const struct html_line_test *who;
  size_t n_who;
  const struct html_build *builds; /* oldest first */
  size_t n_builds;
  /* a report of one test: its name and its reach over time (ucov history
   * --test), each point's hit so far and found this report's totals */
  const char *campaign;
  const struct html_build *reach;
  size_t n_reach;
};

/* The HTML report of a finished model (diff: NULL, or its categories; x:
 * NULL, or what the store adds). */
int html_write(const struct cov_model *m, FILE *f, const char *title, const struct cov_diff *diff,
               const struct html_extra *x);
/* The same as a directory, for a tree too large for one page: DIR/index.html
 * (the viewer and the index) and DIR/files/N.js, each file's data, loaded
 * when the file is opened. 0, or -1, said. */
int html_write_dir(const struct cov_model *m, const char *dir, const char *title,
                   const struct cov_diff *diff, const struct html_extra *x);

#endif
