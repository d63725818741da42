/* SPDX-License-Identifier: MIT */
/* Differential coverage: each line's category against a baseline. */
#ifndef UCOV_REPORT_DIFF_H
#define UCOV_REPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/*
 * lcov 2's differential categories of a line, from the baseline's counts and
 * the current ones (a line is "new" when the baseline had no code there):
 * GNC/UNC new code covered/not, GBC baseline code newly covered, LBC
 * baseline coverage lost, CBC/UBC covered/uncovered both times, DCB/DUB
 * baseline code (covered/not) that has no code now.
 */
enum cov_category {
  COV_NONE,
  COV_GNC,
  COV_UNC,
  COV_GBC,
  COV_LBC,
  COV_CBC,
  COV_UBC,
  COV_DCB,
  COV_DUB,
  COV_DIFF_CATEGORIES
};

extern const char *const cov_category_name[COV_DIFF_CATEGORIES];

struct cov_diff_line {
  uint32_t line;
  uint8_t category;
};

struct cov_diff_file {
  struct cov_diff_line *lines; /* current lines (deleted ones are only counted) */
  size_t n;
  uint64_t counts[COV_DIFF_CATEGORIES];
};

/* Aligned with the current model's files (both finished). */
struct cov_diff {
  struct cov_diff_file *files;
  size_t n_files;
  uint64_t totals[COV_DIFF_CATEGORIES];
};

int cov_diff_compute(struct cov_diff *d, const struct cov_model *cur, const struct cov_model *base);
void cov_diff_free(struct cov_diff *d);

#endif
