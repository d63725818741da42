/* SPDX-License-Identifier: MIT */
/*
 * The report formats read back, each in its file: lcov tracefiles
 * (lcov_read.c), ucov JSON (ucov_json_read.c), gcov's and gcovr's JSON
 * (gcov_json.c), llvm-cov's export (llvm_export.c). Readers add to a model
 * and say what they could not read (diag.h, the file and line as fields),
 * and go on. Raw data (.gcda, profiles, traces) is inputs.h's.
 */
#ifndef UCOV_READERS_READERS_H
#define UCOV_READERS_READERS_H

#include <stddef.h>

#include "base/json.h"
#include "base/model.h"

/* An lcov tracefile, 1.x or 2.x (TN, VER, FN/FNDA, FNL/FNA, BRDA with an
 * exception "e", MCDC). Returns the records it could not read (0: all), or
 * -1 if the file cannot be read. */
int lcov_read(struct cov_model *m, const char *path);
/* The same, only the records under test name `only` (TN:; "" for none; NULL: all). */
int lcov_read_test(struct cov_model *m, const char *path, const char *only);
/* The test names (TN:) of a tracefile, in order, once each (malloc'd). 0 or -1. */
int lcov_tests(const char *path, char ***names, size_t *n);
/* ucov JSON (docs/formats.md). Returns 0, or -1 if root is not one (msg says why). */
int ucov_json_read(struct cov_model *m, const struct json *root);
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

#endif
