/* SPDX-License-Identifier: MIT */
/*
 * Inside differential coverage (diff.h): a unified diff as read
 * (diff_read.c: its files, hunks and changed lines, moved blocks matched),
 * which diff.c uses to rebuild the baseline's text and to give each line
 * its category.
 */
#ifndef UCOV_DIFFCOV_DIFF_INT_H
#define UCOV_DIFFCOV_DIFF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "diff.h"

/* One run of changed lines ('-' and '+' together, no context line in
 * between): a hunk of the diff holds one or more of them, and its context
 * lines are in none (whatever -U the diff was made with). */
struct hunk {
  uint32_t old_start, old_n, new_start, new_n; /* starts of the ranges, even when empty */
};

/* A line the diff takes out ('-': old number) or puts in ('+': new number). */
struct dline {
  uint32_t line;
  uint32_t file; /* index in udiff.files */
  char *text;    /* whitespace at both ends taken off */
  char *raw;     /* a deleted line's text as it was (its source line), or NULL */
  uint64_t hash;
  int64_t match; /* the line it is matched with as moved (index in the other list), or -1 */
};

struct ufile {
  char *old_path, *new_path; /* NULL: /dev/null */
  struct hunk *hunks;
  size_t n_hunks, cap_hunks;
};

struct udiff {
  struct ufile *files;
  size_t n_files, cap_files;
  struct dline *minus, *plus;
  size_t n_minus, cap_minus, n_plus, cap_plus;
};

#endif
