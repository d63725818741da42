/* SPDX-License-Identifier: MIT */
/*
 * The coverage model every input fills and every writer reads: source file
 * -> lines, functions and branches, with counts. Adding is summing (counts
 * of the same line, function or branch add, saturating), so merging models
 * is associative and commutative; cov_finish puts everything in one
 * canonical order (files by path, lines by number, ...).
 */
#ifndef UCOV_BASE_MODEL_H
#define UCOV_BASE_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct cov_line {
  uint32_t line;
  uint64_t count;
};

struct cov_func {
  char *name;
  uint32_t line;
  uint64_t count;
  uint32_t end_line; /* 0: not known (lcov 2's FNL and llvm-cov give it) */
};

/* lcov's BRDA: a branch of a block on a line; taken, or never executed ('-');
 * exception: an exception edge (lcov 2 writes its block "e<block>"). */
struct cov_branch {
  uint32_t line, block, branch;
  int executed;
  uint64_t taken;
  int exception;
  uint32_t unit; /* the unit it was read in, until cov_finish (unit_blocks; 0: none) */
};

/* One MC/DC condition outcome (lcov 2's MCDC record): in the decision on
 * `line` of group_size conditions, condition `index` (expr: its text) shown
 * to independently affect the outcome when `sense` (true or false): taken
 * counts the tests that showed it (0: not shown). */
struct cov_mcdc {
  uint32_t line, group_size, index;
  int sense;
  uint64_t taken;
  char *expr;
};

/*
 * One LLVM code region of one instance of a function (llvm-cov's regions):
 * the instance (a hash of its mangled name) of the function that starts at
 * line:col, the region's place among that instance's code regions, and its
 * count. A file's regions, as llvm-cov report counts them, are per function
 * start (an instantiation group: a template's instances, a static function
 * in several objects) the most any one instance has and covers.
 */
struct cov_region {
  uint32_t line, col, inst, index;
  uint64_t count;
};

struct cov_file {
  char *path;
  struct cov_line *lines;
  size_t n_lines, cap_lines;
  struct cov_func *funcs;
  size_t n_funcs, cap_funcs;
  struct cov_branch *branches;
  size_t n_branches, cap_branches;
  struct cov_mcdc *mcdc;
  size_t n_mcdc, cap_mcdc;
  struct cov_region *regions;
  size_t n_regions, cap_regions;
  char *test;      /* lcov's TN of the records read for it (NULL: none) */
  int mixed_tests; /* records under several test names were summed */
  char *version;   /* lcov 2's VER: the source file's version */
  /* What exclusions (exclude.h) took out: the instrumented lines, sorted,
   * and how many branches and functions. */
  uint32_t *excl_lines;
  size_t n_excl_lines;
  uint64_t excl_branches, excl_funcs;
  /* Where its counts came from: gcov units read natively while the model's
   * reading_unit was set (a store keeps their counters and derives these
   * lines from the sums), and anything else. */
  unsigned from_units : 1, from_other : 1;
  uint32_t unit; /* the model's unit when cov_file last gave it out */
};

struct cov_rule {
  char *from, *to; /* --prefix-map OLD=NEW */
};

struct cov_model {
  struct cov_file **files;
  size_t n_files, cap_files;
  size_t *slots; /* open-addressing index of files by path: file index + 1 */
  size_t n_slots;
  /* Path rules applied by cov_file: prefix maps, then include/exclude globs. */
  struct cov_rule *maps;
  size_t n_maps;
  char **include, **exclude;
  size_t n_include, n_exclude;
  /* The paths the globs left out (a set: rslots index rejected + 1). */
  char **rejected;
  size_t n_rejected, cap_rejected, *rslots, n_rslots;
  /* --root: the directory output paths are relative to (absolute, no
   * trailing slash; NULL: paths as they are). Sources outside it are left
   * out (as gcovr -r does). */
  char *root;
  /* The current directory, once a relative path needed it (no --root). */
  char *cwd;
  /* Set while a gcov unit is read natively for a push: the files it adds
   * to are from_units, and path_seen (when set) hears each source path as
   * the unit names it (made absolute and normalized, before the prefix
   * maps) and the file it went to (NULL: left out). */
  int reading_unit;
  void (*path_seen)(void *arg, const char *raw, const char *path);
  void *path_seen_arg;
  /* --no-demangle: C++ function names as the compiler wrote them (else
   * cov_finish demangles them, and the variants of one constructor or
   * destructor, C1/C2, D0/D1/D2, become one function, as gcovr and llvm-cov
   * show them). */
  int no_demangle;
  /* --lcov-format 2: branches kept in blocks as lcov 2 keeps them
   * (model_blocks.c): each unit read (cov_begin_unit) is merged into the
   * others' blocks line by line, at cov_finish. unit: the current one. */
  int unit_blocks;
  uint32_t unit;
};

struct cov_summary {
  uint64_t lines_found, lines_hit;
  uint64_t funcs_found, funcs_hit;
  uint64_t branches_found, branches_hit;
  uint64_t mcdc_found, mcdc_hit;
  uint64_t regions_found, regions_hit;
  uint64_t lines_excluded, branches_excluded, funcs_excluded;
};

void cov_init(struct cov_model *m);
void cov_free(struct cov_model *m);

/* Path rules (copied). A rule that cannot be parsed returns -1. */
int cov_add_prefix_map(struct cov_model *m, const char *old_eq_new);
void cov_add_include(struct cov_model *m, const char *glob);
void cov_add_exclude(struct cov_model *m, const char *glob);
/* Make the relative globs (not starting with "/", "*", "?" or "[") relative
 * to base: "src/x" is base/src/x. 0, or -1 without memory. */
int cov_anchor_globs(struct cov_model *m, const char *base);

/*
 * The file of a source path (found or added), after the prefix maps and
 * lexical normalization ("a/./b", "a/x/../b"); NULL if the include/exclude
 * globs or --root leave it out (or no memory). Every path is made absolute
 * before anything else: a relative one is relative to dir, else to the root
 * (--root), else to the current directory, so the same source from a
 * tracefile written with --root and one without is one file.
 */
struct cov_file *cov_file(struct cov_model *m, const char *path, const char *dir);
/* The file an absolute path goes to, if the model has it (nothing added). */
struct cov_file *cov_file_there(struct cov_model *m, const char *path);

/* The repository root of the outputs (copied; made absolute, lexically
 * normalized). 0, or -1 without memory. */
int cov_set_root(struct cov_model *m, const char *dir);
/* path made absolute (from the working directory) and lexically normal
 * ("a/./b", "a/x/../b" as "a/b"): malloc'd, or NULL without memory. */
char *cov_absolute(const char *path);
/* A source path as outputs write it: relative to the root when it is under it. */
const char *cov_display(const struct cov_model *m, const char *path);
/* Where a source is read from: a relative path is taken relative to the root
 * (written to buf), or to the current directory without one. */
const char *cov_source_path(const struct cov_model *m, const char *path, char *buf, size_t len);

/* Add counts (0 on success, -1 without memory). */
int cov_add_line(struct cov_file *f, uint32_t line, uint64_t count);
int cov_add_func(struct cov_file *f, const char *name, uint32_t line, uint64_t count);
int cov_add_branch(struct cov_file *f, uint32_t line, uint32_t block, uint32_t branch, int executed,
                   uint64_t taken);
/* The function's last line, when known (a function added before without it). */
int cov_add_func_end(struct cov_file *f, const char *name, uint32_t line, uint32_t end_line,
                     uint64_t count);
int cov_add_branch_e(struct cov_file *f, uint32_t line, uint32_t block, uint32_t branch,
                     int executed, uint64_t taken, int exception);
int cov_add_mcdc(struct cov_file *f, uint32_t line, uint32_t group_size, int sense, uint64_t taken,
                 uint32_t index, const char *expr);
/* A code region (struct cov_region); counts of the same one add. */
int cov_add_region(struct cov_file *f, uint32_t line, uint32_t col, uint32_t inst, uint32_t index,
                   uint64_t count);
/* The instance id of a function's (mangled) name. */
uint32_t cov_region_inst(const char *name);
/* Sort and coalesce a file's regions (cov_finish does it). */
void cov_finish_regions(struct cov_file *f);

/* The test name a record of the file was read under (lcov's TN); several
 * different names mark the file mixed. 0 or -1 without memory. */
int cov_set_test(struct cov_file *f, const char *test);
int cov_set_version(struct cov_file *f, const char *version);
/* What exclusions took out of the file before (ucov JSON's "excluded"). */
int cov_add_excluded(struct cov_file *f, uint32_t line);
/* The excluded lines in order, once each. */
void cov_sort_excluded(struct cov_file *f);

/* A unit (a .gcda, a gcov JSON document) begins: its branches are one
 * unit's (with unit_blocks; nothing otherwise). */
void cov_begin_unit(struct cov_model *m);
/* lcov 2's blocks of a file's branches read in units (cov_finish does it).
 * 0, or -1 without memory (the branches as they were). */
int cov_finish_blocks(struct cov_file *f);

/* Sort and coalesce: one entry per line, function, branch; files by path. */
void cov_finish(struct cov_model *m);

/* Add every count of src to dst (both finished or not; dst is left unfinished). */
int cov_merge(struct cov_model *dst, const struct cov_model *src);
/* One file's counts added to another's. 0, or -1 without memory. */
int cov_merge_file(struct cov_file *dst, const struct cov_file *src);

/* Found and hit counts of a (finished) file, or added over all files. */
void cov_file_summary(const struct cov_file *f, struct cov_summary *s);
void cov_summary(const struct cov_model *m, struct cov_summary *s);

/* Saturating addition of counts. */
static inline uint64_t cov_sum(uint64_t a, uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

#endif
