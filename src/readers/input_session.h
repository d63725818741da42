/* SPDX-License-Identifier: MIT */
/*
 * Inside the report inputs (inputs.h): the session that reading one
 * report's inputs keeps from its first input_read to input_finish, and the
 * readers of each kind, a file each:
 *
 *   inputs.c           the kind table, the directory walk, a file alone
 *   input_gcov.c       .gcda with their notes (natively), never-run units,
 *                      the build trees' notes
 *   input_gcov_tool.c  .gcda through a gcov (--gcov-tool) or `llvm-cov gcov`
 *   input_llvm.c       raw and indexed LLVM profiles, per program
 *   input_trace.c      PC dumps against their modules' trace-pc call sites
 *   input_xen.c        Xen's coverage blobs
 *   subprocess.c       the tools these run
 */
#ifndef UCOV_READERS_INPUT_SESSION_H
#define UCOV_READERS_INPUT_SESSION_H

#include <stddef.h>
#include <sys/types.h>

#include "inputs.h"
#include "symbols/modcache.h"
#include "base/model.h"

struct strlist {
  char **v;
  size_t n, cap;
};

/* Add a copy of s; out of memory, a message and nothing added. */
void strlist_add(struct strlist *l, const char *s);
void strlist_free(struct strlist *l);
int strlist_cmp(const void *a, const void *b); /* qsort of the strings */

/* Each family of input kinds keeps its own state, defined and owned by its
 * file: made at its first use, finished and freed through the kinds table
 * (inputs.c). */
struct gcov_state;  /* input_gcov.c: notes files seen and used, .gcda kept for the end */
struct prof_state;  /* input_llvm.c: the LLVM profiles, by program */
struct trace_state; /* input_trace.c: the traced modules and what their traces counted */

/* A file or directory by identity. */
struct ident {
  dev_t dev;
  ino_t ino;
};

#define INPUT_KINDS 7 /* the kind table's rows (inputs.c) */

struct input_session {
  const struct input_opts *o;
  /* Files and directories already read, by identity (device, inode): the
   * same data reached twice (a directory and a link to it, a file named
   * twice, a hard link) counts once. An open-addressed set; cap: 0 or a
   * power of two. */
  struct ident *ids;
  size_t n_ids, cap_ids;
  struct gcov_state *gcov; /* (NULL until a kind of its family needs it) */
  struct prof_state *prof;
  struct trace_state *trace;
  /* While a Xen blob's records are read from a temporary tree, a path in
   * that tree is said as the blob's record ("BLOB: record /path/x.gcda"). */
  const char *alias_tmp, *alias_blob;
  /* One directory's walk: its files by kind; markers of ucov pull's
   * snapshots (counts not in the tree); tracefiles and JSON met (left out),
   * and files read before. */
  struct strlist walk[INPUT_KINDS], walk_unsettled;
  size_t walk_reports, walk_again;
};

/* A message naming the user's input, never a temporary file (alias_tmp). */
void input_say(const struct input_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void input_progress(const struct input_session *s, const char *what, size_t done, size_t total);

/* input_gcov.c; input_gcno_seen: a notes file the inputs hold. */
int input_gcdas_read(struct input_session *s, struct cov_model *m, struct strlist *gcdas);
int input_gcno_seen(struct input_session *s, const char *path);
int input_gcov_finish(struct input_session *s, struct cov_model *m);
void input_gcov_free(struct input_session *s);

/* input_gcov_tool.c */
int input_gcdas_gcov(struct input_session *s, struct cov_model *m, struct strlist *gcdas);
int input_llvm_gcda(struct cov_model *m, const char *gcda_abs, const char *gcno_abs,
                    const char *tmp, size_t idx, const char *tool);
int input_find_gcno(const char *gcda, char *out, size_t len);

/* input_llvm.c */
int input_prof_add(struct input_session *s, const char *path, const char *const *bins, int n_bins);
int input_profiles_read(struct input_session *s, struct cov_model *m);
void input_profiles_free(struct input_session *s);

/* input_trace.c */
struct modmap;
int input_modmap_load(const char *path, struct modmap *map, int quiet);
int input_pcs_read(struct input_session *s, struct cov_model *m, const char *path,
                   const char *modules);
void input_trace_free(struct input_session *s);

/* input_xen.c */
#define XENCOV_MAGIC 0x58434f56u
int input_xencov_read(struct input_session *s, struct cov_model *m, const char *path);

#endif
