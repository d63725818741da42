/* SPDX-License-Identifier: MIT */
/*
 * Report formats, each in its file: lcov tracefiles (lcov.c: read, write),
 * ucov JSON (ucov_json.c: read, write), gcov's JSON (gcov_json.c: read),
 * Cobertura XML (cobertura.c: write). Readers add to a model and say what
 * they could not read on stderr, "ucov: FILE:LINE: what", and go on.
 */
#ifndef UCOV_REPORT_FORMATS_H
#define UCOV_REPORT_FORMATS_H

#include <stdio.h>

#include "diff.h"
#include "json.h"
#include "model.h"

/* An lcov tracefile, 1.x or 2.x (TN, VER, FN/FNDA, FNL/FNA, BRDA with an
 * exception "e", MCDC). Returns the records it could not read (0: all), or
 * -1 if the file cannot be read. */
int lcov_read(struct cov_model *m, const char *path);
/* The same, only the records under test name `only` (TN:; "" for none; NULL: all). */
int lcov_read_test(struct cov_model *m, const char *path, const char *only);
/* The test names (TN:) of a tracefile, in order, once each (malloc'd). 0 or -1. */
int lcov_tests(const char *path, char ***names, size_t *n);
/* A finished model as an lcov 1.x tracefile. 0 or -1 (a write error). */
int lcov_write(const struct cov_model *m, FILE *f);
/* The same in lcov 2.x's form (FNL/FNA, MCDC, VER, exception branches). */
int lcov_write2(const struct cov_model *m, FILE *f);

/* ucov JSON (docs/formats.md). Returns 0, or -1 if root is not one (msg says why). */
int ucov_json_read(struct cov_model *m, const struct json *root);
/* diff: NULL, or each file gets "diff": {CATEGORY: [lines], ...} (readers ignore it). */
int ucov_json_write(const struct cov_model *m, FILE *f, const struct cov_diff *diff);

/* One document of `gcov --json-format --stdout`. 0, or -1 if it is not one. */
int gcov_json_read(struct cov_model *m, const struct json *root);
/* gcovr's JSON (`gcovr --json`): files relative to gcovr's root (read as
 * relative to --root, else here), its noncode lines left out, its excluded
 * ones counted as excluded. 0, or -1 if it is not gcovr JSON. */
int gcovr_json_read(struct cov_model *m, const struct json *root);

/* `llvm-cov export -format=text` output: lines (as the lcov export of that
 * llvm-cov, major version llvm_major, makes them from segments), functions,
 * branches, MC/DC conditions. 0 or -1. */
int llvm_export_read(struct cov_model *m, const struct json *root, int llvm_major);

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

#endif
