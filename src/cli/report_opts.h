/* SPDX-License-Identifier: MIT */
/*
 * What ucov report, merge and push share (report_opts.c): their options,
 * the table of report formats, reading the inputs, and what a command's
 * parse leaves to free.
 */
#ifndef UCOV_CLI_REPORT_OPTS_H
#define UCOV_CLI_REPORT_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "base/exclude.h"
#include "readers/inputs.h"
#include "base/model.h"
#include "writers/writers.h"

/* The options of report, merge and push, as given. */
struct outputs {
  const char *path[REPORT_FORMATS]; /* each format's --OPTION FILE, or NULL */
  const char *cobertura_split;      /* --cobertura-split DIR */
  const char *html_dir;             /* --html-dir DIR */
  const char *html_url;             /* --html-url URL */
  const char *title;
  char *func_joined; /* the --exclude-function patterns, joined (malloc'd) */
  const char *root, *diff;
  const char *store, *shard, *revision, *config, *build, *since;
  const char **tests;
  int n_tests;
  char **baselines;
  int n_baselines;
  int lcov_format; /* 1 or 2 */
  int summary;
  int no_demangle;       /* --no-demangle: C++ names as the compiler wrote them */
  const char *diff_base; /* --diff-base REF: the diff from REF's merge base, by git */
  double fail_under[4];  /* lines, functions, branches, patch: percent (negative: no gate) */
  struct cov_excl excl;
};

/* Where the Markdown report links its files' views: --html-url, else the
 * page this run writes (--html FILE, --html-dir DIR's index.html) as a path
 * relative to the Markdown file; NULL: no links (or out of memory). Malloc'd. */
char *report_html_url(const struct outputs *out);

/* Is any report asked for (a format, --cobertura-split or --html-dir)? */
int outputs_any(const struct outputs *out);

/* The options; merge_out: ucov merge's -o (NULL: report's or push's
 * options). Returns optind, or -1 (said). */
int report_parse(int argc, char **argv, const char *usage, struct cov_model *m,
                 struct input_opts *in, struct outputs *out, const char **merge_out, int *quiet);

/* argv[first..argc) read into m, finished and excluded; push: with the units
 * of the build trees that no run reached, at zero. The problems said. */
int report_read_inputs(struct cov_model *m, int argc, char **argv, int first,
                       const struct input_opts *in, const struct cov_excl *x, int push);

/* Write a report to path ("-": standard output). 0 or -1 (said). */
int report_write_one(const char *path, const struct report_format *fmt, const struct report_ctx *c);

/* What a command's parse and reading left to free. */
void report_release(struct cov_model *m, struct input_opts *in, struct outputs *out);

/* Options that belong to other commands: a usage error naming the first. */
int only_for(const char *what, const char *opt, const void *given);

/* Room for one more pointer in a list of n; 0 (with a message) if there is none. */
int grow_list(void **list, int n);

#endif
