/* SPDX-License-Identifier: MIT */
/* Differential coverage: each line's category against a baseline. */
#ifndef UCOV_DIFFCOV_DIFF_H
#define UCOV_DIFFCOV_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

/*
 * lcov 2's differential categories of a line, from the baseline's counts and
 * the current ones (a line is "new" when the diff inserts it, or when the
 * baseline had no code at its place):
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
  /* The baseline's lines of this file that are gone (DCB, DUB), by their
   * line numbers in the baseline, in order. */
  struct cov_diff_line *gone;
  size_t n_gone, cap_gone;
};

/* Aligned with the current model's files (both finished). */
struct cov_diff {
  struct cov_diff_file *files;
  size_t n_files;
  uint64_t totals[COV_DIFF_CATEGORIES];
  /* Patch coverage (with a diff): the lines with code the diff puts in
   * (moved ones too, as diff-cover and Codecov count them), and those run. */
  uint64_t patch_found, patch_hit;
  int have_patch; /* a diff was given */
};

/*
 * A unified diff (`git diff -U0 BASE`, or any -U): for each file, its old and
 * new paths (renames too), hunks, and the text of the lines it takes out and
 * puts in. Paths are relative to the repository root (git's a/ b/ taken off).
 */
struct udiff;

/* Read a unified diff. 0, or -1 with msg saying where it is malformed. */
int udiff_read(const char *path, struct udiff **out);
void udiff_free(struct udiff *u);

/*
 * The text of a source before the diff: for the file at absolute `path`
 * whose old path is in the diff (root/old path, else the one entry it ends
 * with), the current file (its new path in the old one's place) with the
 * diff undone; malloc'd, NUL-terminated. NULL when the diff does not touch
 * it (its text is the current one), it cannot be read, or no memory.
 */
char *udiff_old_text(const struct udiff *u, const char *path, const char *root, size_t *len);

/*
 * The baseline lines a diff touches, per file (its old path): every line it
 * deletes or changes, and around a pure insertion the old lines on either
 * side. What tests that ran those lines may see changed: test selection.
 */
void udiff_touched(const struct udiff *u,
                   void (*cb)(void *arg, const char *old_path, uint32_t line), void *arg);

/*
 * Each current line's category against the baseline. Without a diff (u
 * NULL) a line is matched with the baseline's line of the same number. With
 * one, unchanged lines are matched through the hunks, inserted lines are new,
 * deleted lines are gone, and a block the diff deletes in one place and
 * inserts in another (the same text, whitespace at the ends aside; one line
 * alone only when it is not trivial) is moved: matched to its baseline lines.
 * Diff paths are taken relative to `root` (a model's --root, or the current
 * directory), else matched by their ending. Without a baseline (base NULL)
 * only the lines the diff inserts are categorized (GNC, UNC): the coverage
 * of a patch. 0, or -1 without memory.
 */
int cov_diff_compute(struct cov_diff *d, const struct cov_model *cur, const struct cov_model *base,
                     const struct udiff *u, const char *root);
void cov_diff_free(struct cov_diff *d);

#endif
