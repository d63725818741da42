/* SPDX-License-Identifier: MIT */
/*
 * Inside the native .gcno/.gcda reader (gcovn.h): a unit's flow
 * graph, and the calls between its files:
 *
 *   gcovn_graph.c   the graph's memory (an arena per unit) and small helpers
 *   gcovn_notes.c   reading notes and counts files of gcc's and clang's formats
 *   gcovn_gcc.c     gcc's gcov: arcs solved, lines' blocks, branches and loops
 *   gcovn_llvm.c    clang's llvm-cov gcov: propagation, cycles, lines
 *   gcovn.c         the lines into the model, and the calls of gcovn.h
 */
#ifndef UCOV_READERS_GCOVN_INT_H
#define UCOV_READERS_GCOVN_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gcovn.h"
#include "base/model.h"

#define GCNO_MAGIC 0x67636e6fu
#define GCDA_MAGIC 0x67636461u
#define TAG_FUNCTION 0x01000000u
#define TAG_BLOCKS 0x01410000u
#define TAG_ARCS 0x01430000u
#define TAG_LINES 0x01450000u
#define TAG_ARC_COUNTS 0x01a10000u

#define ARC_ON_TREE 1u
#define ARC_FAKE 2u
#define ARC_FALLTHROUGH 4u

#define MAX_FILE (1ull << 31) /* a notes or counts file larger than this is refused */
#define MAX_LINE (1u << 24)   /* line numbers past this are corrupt */

/* Wrapping arithmetic on gcov's signed counts: corrupt counts must not be UB. */
static inline int64_t add64(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t sub64(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}

struct block;

struct arc {
  struct block *src, *dst;
  struct arc *succ_next, *pred_next;
  int64_t count, cs_count;
  unsigned count_valid : 1, on_tree : 1, fake : 1, fall_through : 1, is_throw : 1,
      is_call_non_return : 1, is_unconditional : 1;
};

struct location {
  uint32_t src; /* source index */
  uint32_t *lines;
  size_t n, cap;
};

struct block {
  struct arc *succ, *pred;
  int64_t num_succ, num_pred;
  int64_t count;
  struct block *chain;
  struct location *locs;
  size_t n_locs, cap_locs;
  uint32_t number;
  unsigned count_valid : 1, valid_chain : 1, invalid_chain : 1;
  /* llvm-cov's: propagation and cycle search */
  unsigned visited : 1, traversable : 1;
  struct arc *incoming;
};

struct ptrvec {
  void **v;
  size_t n, cap;
};

struct line {
  int64_t count;
  struct ptrvec blocks;   /* struct block * (the blocks that end on the line) */
  struct ptrvec branches; /* struct arc * */
  unsigned exists : 1;
};

/* Lines of a source file or of a group function: a dense index into records. */
struct lines {
  uint32_t *slot; /* line number -> record index + 1 */
  size_t size;    /* numbers 0 .. size-1 */
  struct line *rec;
  size_t n_rec, cap_rec;
};

struct function {
  char *name;
  uint32_t ident, lineno_checksum, cfg_checksum, artificial, src;
  uint32_t start_line, start_column, end_line, end_column;
  struct block *blocks;
  size_t n_blocks;
  size_t n_counts; /* arcs not on the spanning tree: the counted ones */
  int64_t *counts;
  struct ptrvec arcs; /* every arc, in file order */
  unsigned is_group : 1, solved : 1, has_counts : 1;
  struct lines lines; /* group functions only */
};

struct source {
  char *name;
  struct lines lines;
  struct ptrvec fns; /* struct function * starting in this file */
};

struct unit {
  char *cwd;
  uint32_t version, stamp;
  int bytes; /* lengths in bytes (GCC 12 and later) */
  int llvm;  /* clang's format ("408*"): llvm-cov gcov's counting */
  int vnum;  /* its version as a number: 408 */
  struct function *fns;
  size_t n_fns, cap_fns;
  struct source *srcs;
  size_t n_srcs, cap_srcs;
  size_t last_src;
  char *last_raw; /* the file name the last lines record gave, as spelled there */
  size_t raw_src; /* and its source */
  /* the graph's small arrays live in an arena, freed at once: a unit of
   * SQLite has a million of them, and malloc/free were most of the time */
  struct ptrvec chunks;
  char *cur;
  size_t left;
  char *err;     /* a failure's message, composed through the layers: said once, */
  size_t errlen; /* where the call came in (gcovn.c) */
};

/* n bytes of the unit's arena (not zeroed: arena0 zeroes), or NULL without memory. */

/* gcovn_graph.c: n bytes of the unit's arena (arena0: zeroed); growing an
 * arena array, pushing to an arena vector; the error message; plain vectors;
 * a line's record (created, or only if it exists); the unit freed; a source
 * file's index by its canonical name. */
void *gcovn_arena(struct unit *u, size_t n);
int gcovn_agrow(struct unit *u, void **arr, size_t *cap, size_t n, size_t elem);
void *gcovn_arena0(struct unit *u, size_t n);
int gcovn_apush(struct unit *u, struct ptrvec *v, void *p);
int gcovn_say(struct unit *u, const char *fmt, const char *what);
int gcovn_pv_push(struct ptrvec *v, void *p);
int gcovn_pv_has(const struct ptrvec *v, const void *p);
struct line *gcovn_line_at(struct lines *l, uint32_t ln);
struct line *gcovn_line_if(const struct lines *l, uint32_t ln);
int gcovn_lines_resize(struct lines *l, size_t size);
void gcovn_unit_free(struct unit *u);
long gcovn_find_source(struct unit *u, const char *name);
/* gcovn_notes.c: a whole file (its failure in u's err); a unit's notes; its
 * counts added, read from f (size bytes) record by record, in memory bounded
 * by the notes whatever the file's size. */
struct stat;
FILE *gcovn_open(struct unit *u, const char *path, struct stat *st); /* regular files only */
int gcovn_load(struct unit *u, const char *path, unsigned char **buf, size_t *len);
int gcovn_read_notes(struct unit *u, const unsigned char *buf, size_t len);
int gcovn_read_counts(struct unit *u, FILE *f, uint64_t size);
/* gcovn_gcc.c: arcs in file order; the flow graph solved; line numbers
 * sorted; a function's lines; a line's count with its loops. */
void gcovn_file_order(struct function *fn);
void gcovn_solve(struct function *fn);
int gcovn_u32cmp(const void *a, const void *b);
int gcovn_sorted_u32(const uint32_t *v, size_t n);
int gcovn_add_line_counts(struct unit *u, struct function *fn);
int gcovn_accumulate_line(struct line *line);
/* gcovn_llvm.c: a clang unit counted and into the model. */
int gcovn_llvm_emit(struct cov_model *m, struct unit *u);

#endif
