/* SPDX-License-Identifier: MIT */
/*
 * The report formats written, one file each, and one interface to them all
 * (struct report_format, the table report_formats in writers.c): lcov 1.x and 2.x (lcov_write.c),
 * ucov JSON (ucov_json_write.c), Cobertura, SonarQube, JaCoCo, Coveralls, gcovr's JSON summary,
 * Markdown, the text table, HTML (html.h). Each takes a finished model and writes to a FILE; 0, or
 * -1 (a write error).
 */
#ifndef UCOV_WRITERS_WRITERS_H
#define UCOV_WRITERS_WRITERS_H

#include <stdint.h>
#include <stdio.h>

#include "base/model.h"
#include "diffcov/diff.h"

/* A finished model as an lcov 1.x tracefile. 0 or -1 (a write error). */
int lcov_write(const struct cov_model *m, FILE *f);
/* The same in lcov 2.x's form (FNL/FNA, MCDC, VER, exception branches). */
int lcov_write2(const struct cov_model *m, FILE *f);

/* ucov JSON (docs/formats.md). */
/* diff: NULL, or each file gets "diff": {CATEGORY: [lines], ...} (readers ignore it). */
int ucov_json_write(const struct cov_model *m, FILE *f, const struct cov_diff *diff);

/* Cobertura XML (coverage-04.dtd): packages are directories, classes files;
 * under --root, one <source> (the root) and paths relative to it. */
int cobertura_write(const struct cov_model *m, FILE *f);
/* One document per package, DIR/coverage-1.xml, -2, ... (for services that cap
 * a report's size). 0, or -1 with msg. */
int cobertura_write_split(const struct cov_model *m, const char *dir);

/* s escaped for an XML attribute or text (control characters but tab left out). */
void xml_attr(FILE *f, const char *s);
/* The branches of `line` found and taken, from index *k on (which moves up to them). */
void cov_line_branches(const struct cov_file *c, size_t *k, uint32_t line, uint64_t *found,
                       uint64_t *hit);
/* The length of a path's directory part (0: none). */
size_t cov_dir_len(const char *path);

/* The text table: a row per file (lines, functions, branches: percentage,
 * hit/found; the lines never run as ranges), a TOTAL row, and with a diff
 * the patch's coverage (its changed lines with code). */
int text_write(const struct cov_model *m, FILE *f, const struct cov_diff *d);

/* SonarQube's generic test coverage XML (sonar-generic-coverage.xsd). */
int sonarqube_write(const struct cov_model *m, FILE *f);
/* JaCoCo's XML report (report.dtd): a package per directory, a sourcefile and
 * a class (its functions as methods) per file; an INSTRUCTION is a line. */
int jacoco_write(const struct cov_model *m, FILE *f, const char *title);
/* Coveralls' job JSON: source files with MD5 digests, per-line coverage and
 * branches; the job (repo_token, service_name, ...) from the environment as
 * the Coveralls clients read it: COVERALLS_* first, then the CI's variables. */
int coveralls_write(const struct cov_model *m, FILE *f);
/* gcovr's JSON summary (format 0.5): totals and per-file totals, plus the
 * excluded counts and MC/DC when there are any. */
int json_summary_write(const struct cov_model *m, FILE *f, const struct cov_diff *d);
/* Markdown for a pull-request comment: totals, the changed files' categories
 * (diff: NULL for none), the `lowest` least covered files; url (NULL: none):
 * the HTML page's address, each file and uncovered line then a link to its
 * view there (URL#file=PATH&line=N). */
int markdown_write(const struct cov_model *m, FILE *f, const char *title, const char *url,
                   const struct cov_diff *diff, size_t lowest);

/* --- The one writer interface. --- */

struct html_extra; /* html.h */

/* What every writer of a report is given. */
struct report_ctx {
  const struct cov_model *m;
  const struct cov_diff *diff;   /* the differential categories, or NULL */
  const char *title;             /* --title (html, markdown, jacoco) */
  int lcov_format;               /* 1 or 2 */
  const struct html_extra *html; /* what the store adds to the HTML page, or NULL */
  const char *html_url;          /* where Markdown links its files' views, or NULL */
};

/* The report formats: --OPTION FILE writes the model with write; merge: ucov
 * merge writes it too (by its -o name's suffix). One row each, in the
 * order reports are written. A new format is its file, its row here and
 * in report_formats, and its line in the usage texts: each command's
 * --OPTION follows from the table. */
struct report_format {
  const char *option;
  int (*write)(const struct report_ctx *c, FILE *f);
  int merge;
};
enum {
  FMT_LCOV,
  FMT_COBERTURA,
  FMT_JSON,
  FMT_HTML,
  FMT_JSON_SUMMARY,
  FMT_TEXT,
  FMT_MARKDOWN,
  FMT_SONARQUBE,
  FMT_COVERALLS,
  FMT_JACOCO,
  REPORT_FORMATS
};
extern const struct report_format report_formats[REPORT_FORMATS];

#endif
