/* SPDX-License-Identifier: MIT */
/*
 * .gcno/.gcda read natively (see gcovn.h). The computation follows the
 * compiler's own tool step for step, because its output is the reference
 * users compare with. For gcc's notes, gcov's: arcs solved in the order gcov
 * solves them, a line's blocks and branches collected the way gcov collects
 * them (duplicates included), the loops on a line counted with the same
 * circuit enumeration (Hawick and James). For clang's, llvm-cov gcov's: tree
 * arcs by propagation over the spanning tree, every line of a block counted,
 * loops by cycle cancelling. So every count equals the tool's, not just the
 * totals.
 */
#define _GNU_SOURCE
#include "gcovn.h"
#include "gcovn_int.h"
#include "base/util.h"

#include <limits.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* ---- into the model (as gcov_json_read takes gcov's JSON) ---- */

static void emit_line(struct cov_file *f, const struct line *line, uint32_t ln) {
  if (!line || !line->exists || !ln)
    return;
  uint64_t count = line->count < 0 ? 0 : (uint64_t)line->count;
  cov_add_line(f, ln, count);
  uint32_t k = 0;
  for (size_t i = 0; i < line->branches.n; i++) {
    const struct arc *a = line->branches.v[i];
    if (a->is_unconditional || a->is_call_non_return)
      continue; /* (calls are no branches; exception edges are, marked as lcov 2 marks them) */
    cov_add_branch_e(f, ln, 0, k++, count > 0, a->count < 0 ? 0 : (uint64_t)a->count, a->is_throw);
  }
}

static int fn_start_cmp(const void *a, const void *b) {
  const struct function *x = *(struct function *const *)a, *y = *(struct function *const *)b;
  if (x->start_line != y->start_line)
    return x->start_line < y->start_line ? -1 : 1;
  return x->start_column < y->start_column ? -1 : x->start_column > y->start_column;
}

static int fn_src_line_cmp(const void *a, const void *b) {
  const struct function *x = *(struct function *const *)a, *y = *(struct function *const *)b;
  if (x->src != y->src)
    return x->src < y->src ? -1 : 1;
  return x->start_line < y->start_line ? -1 : x->start_line > y->start_line;
}

/* (Long: gcov's output order (files, functions, lines, branches), over the same sorted arrays.) */
static int emit(struct cov_model *m, struct unit *u, int have_data) {
  /* group functions: several (not artificial) starting on one line of a file */
  struct function **by_start = malloc((u->n_fns + 1) * sizeof(*by_start));
  size_t n = 0;
  if (!by_start)
    return gcovn_say(u, "%s", "out of memory");
  for (size_t i = 0; i < u->n_fns; i++)
    if (!u->fns[i].artificial)
      by_start[n++] = &u->fns[i];
  if (n > 1)
    qsort(by_start, n, sizeof(*by_start), fn_src_line_cmp);
  for (size_t i = 1; i < n; i++)
    if (by_start[i]->src == by_start[i - 1]->src &&
        by_start[i]->start_line == by_start[i - 1]->start_line)
      by_start[i]->is_group = by_start[i - 1]->is_group = 1;
  free(by_start);
  for (size_t i = 0; i < u->n_fns; i++) {
    struct function *fn = &u->fns[i];
    if (fn->artificial || (!fn->n_counts && have_data))
      continue; /* gcov drops both */
    if (gcovn_pv_push(&u->srcs[fn->src].fns, fn))
      return gcovn_say(u, "%s", "out of memory");
    for (size_t b = 0; b < fn->n_blocks; b++)
      for (size_t k = 0; k < fn->blocks[b].n_locs; k++) {
        struct location *l = &fn->blocks[b].locs[k];
        if (!l->n)
          continue;
        if (!gcovn_sorted_u32(l->lines, l->n))
          qsort(l->lines, l->n, sizeof(*l->lines), gcovn_u32cmp);
        if (gcovn_lines_resize(&u->srcs[l->src].lines, (size_t)l->lines[l->n - 1] + 1))
          return gcovn_say(u, "%s", "out of memory");
      }
    if (fn->is_group && fn->end_line >= fn->start_line &&
        gcovn_lines_resize(&fn->lines, (size_t)(fn->end_line - fn->start_line) + 1))
      return gcovn_say(u, "%s", "out of memory");
    gcovn_solve(fn);
    fn->solved = 1;
  }
  for (size_t i = 0; i < u->n_fns; i++)
    if (u->fns[i].solved && gcovn_add_line_counts(u, &u->fns[i]))
      return -1;
  for (size_t s = 0; s < u->n_srcs; s++) {
    struct source *src = &u->srcs[s];
    for (size_t i = 0; i < src->fns.n; i++) {
      struct function *fn = src->fns.v[i];
      for (size_t k = 0; fn->is_group && k < fn->lines.n_rec; k++)
        if (gcovn_accumulate_line(&fn->lines.rec[k]))
          return gcovn_say(u, "%s", "out of memory, or a line too deep to count its loops");
    }
    for (size_t k = 0; k < src->lines.n_rec; k++)
      if (gcovn_accumulate_line(&src->lines.rec[k]))
        return gcovn_say(u, "%s", "out of memory, or a line too deep to count its loops");
  }
  for (size_t s = 0; s < u->n_srcs; s++) {
    struct source *src = &u->srcs[s];
    struct cov_file *f = cov_file(m, src->name, u->cwd);
    if (!f)
      continue;
    if (src->fns.n > 1)
      qsort(src->fns.v, src->fns.n, sizeof(void *), fn_start_cmp);
    for (size_t i = 0; i < src->fns.n; i++) {
      const struct function *fn = src->fns.v[i];
      int64_t c = fn->n_blocks ? fn->blocks[0].count : 0;
      cov_add_func_end(f, fn->name, fn->start_line,
                       fn->end_line >= fn->start_line ? fn->end_line : 0, c < 0 ? 0 : (uint64_t)c);
    }
    /* gcov's order: a group function's own lines where it starts, then the file's */
    size_t fi = 0;
    for (size_t ln = 1; ln <= src->lines.size; ln++) {
      for (; fi < src->fns.n && ((struct function *)src->fns.v[fi])->start_line <= ln; fi++) {
        const struct function *fn = src->fns.v[fi];
        if (fn->start_line != ln)
          continue;
        for (size_t k = 0; k < fn->lines.size; k++)
          emit_line(f, gcovn_line_if(&fn->lines, (uint32_t)k), (uint32_t)(ln + k));
      }
      if (ln < src->lines.size)
        emit_line(f, gcovn_line_if(&src->lines, (uint32_t)ln), (uint32_t)ln);
    }
  }
  return 0;
}

/* The notes into u (its counters allocated, at 0). 0, or -1 with the
 * message in u's err, prefixed with gcno. */
static int unit_open(struct unit *u, const char *gcno, const unsigned char *nb, size_t nl) {
  if (gcovn_read_notes(u, nb, nl)) {
    char msg[256];
    snprintf(msg, sizeof(msg), "%s", u->err);
    snprintf(u->err, u->errlen, "%s: %s", gcno, msg);
    return -1;
  }
  for (size_t i = 0; i < u->n_fns; i++)
    if (u->fns[i].n_counts &&
        !(u->fns[i].counts = gcovn_arena0(u, u->fns[i].n_counts * sizeof(*u->fns[i].counts)))) {
      snprintf(u->err, u->errlen, "%s: out of memory", gcno);
      return -1;
    }
  return 0;
}

/* The notes file gcno read and opened into u (nothing keeps the file's
 * bytes: names are copied). 0, or -1 with the message in u's err. */
static int unit_load(struct unit *u, const char *gcno) {
  unsigned char *nb = NULL;
  size_t nl = 0;
  int ret = gcovn_load(u, gcno, &nb, &nl) || unit_open(u, gcno, nb, nl) ? -1 : 0;
  free(nb);
  return ret;
}

/* A .gcda's counters added to u's. 0, or -1 with the message. */
static int unit_add_gcda(struct unit *u, const char *gcda) {
  struct stat st;
  FILE *f = gcovn_open(u, gcda, &st);
  if (!f)
    return -1;
  int r = gcovn_read_counts(u, f, (uint64_t)st.st_size);
  fclose(f);
  if (r) {
    char msg[256];
    snprintf(msg, sizeof(msg), "%s", u->err);
    snprintf(u->err, u->errlen, "%s: %s", gcda, msg);
  }
  return r;
}

/* clang's notes name no directory: relative names are from the notes file's. */
static void unit_llvm_cwd(struct unit *u, const char *gcno) {
  if (u->llvm && !u->cwd) {
    const char *slash = strrchr(gcno, '/');
    u->cwd = slash ? strndup(gcno, (size_t)(slash - gcno)) : NULL;
  }
}

/* u's lines, functions and branches into m. */
static int unit_emit(struct cov_model *m, struct unit *u, const char *gcno, int have_data,
                     const char *what) {
  unit_llvm_cwd(u, gcno);
  if (u->llvm ? gcovn_llvm_emit(m, u) : emit(m, u, have_data)) {
    char msg[256];
    snprintf(msg, sizeof(msg), "%s", u->err);
    snprintf(u->err, u->errlen, "%s: %s", what, msg);
    return -1;
  }
  return 0;
}

#define UNIT_ERR (PATH_MAX + 512)

/* A unit's message, composed through the layers below (u's err), said once
 * where the call came in: ret, passed on. */
static int said(int ret, const char *err) {
  if (ret < 0)
    UCOV_ERR("%s", err);
  return ret;
}

/* The .gcda files gcdas[0..n) added to u's counters. */
static int unit_add_gcdas(struct unit *u, const char *const *gcdas, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (unit_add_gcda(u, gcdas[i]))
      return -1;
  return 0;
}

int gcovn_relative_dir(const char *gcno, char **dir) {
  char err[UNIT_ERR];
  struct unit u = {.err = err, .errlen = sizeof(err), .last_src = SIZE_MAX};
  int ret = -1;
  *dir = NULL;
  if (unit_load(&u, gcno))
    goto out;
  ret = 0;
  for (size_t i = 0; i < u.n_fns; i++)
    ret += u.srcs[u.fns[i].src].name && u.srcs[u.fns[i].src].name[0] != '/';
  for (size_t i = 0; !ret && i < u.n_srcs; i++) /* (named by lines records only) */
    ret = u.srcs[i].name && u.srcs[i].name[0] != '/';
  unit_llvm_cwd(&u, gcno);
  if (ret && !(*dir = u.cwd ? strdup(u.cwd) : NULL)) {
    snprintf(err, sizeof(err), "%s: %s", gcno, u.cwd ? "out of memory" : "no build directory");
    ret = -1;
  }
out:
  gcovn_unit_free(&u);
  return said(ret, err);
}

int gcovn_read_many(struct cov_model *m, const char *gcno, const char *const *gcdas, size_t n) {
  char err[UNIT_ERR];
  struct unit u = {.err = err, .errlen = sizeof(err), .last_src = SIZE_MAX};
  int ret = -1;
  if (unit_load(&u, gcno) || unit_add_gcdas(&u, gcdas, n))
    goto out;
  ret = unit_emit(m, &u, gcno, n > 0, n ? gcdas[0] : gcno);
out:
  gcovn_unit_free(&u);
  return said(ret, err);
}

int gcovn_counters(const char *gcno, const char *const *gcdas, size_t n_gcdas,
                   int (*fn)(void *arg, uint32_t ident, int has_counts, const int64_t *counts,
                             size_t n),
                   void *arg) {
  char err[UNIT_ERR];
  struct unit u = {.err = err, .errlen = sizeof(err), .last_src = SIZE_MAX};
  int ret = -1;
  if (unit_load(&u, gcno) || unit_add_gcdas(&u, gcdas, n_gcdas)) {
    ret = said(-1, err);
    goto out;
  }
  for (size_t i = 0; i < u.n_fns; i++)
    if (fn(arg, u.fns[i].ident, u.fns[i].has_counts, u.fns[i].counts, u.fns[i].n_counts))
      goto out; /* (fn says why) */
  ret = 0;
out:
  gcovn_unit_free(&u);
  return ret;
}

int gcovn_read_counted(struct cov_model *m, const char *gcno, const unsigned char *notes,
                       size_t len, int have_data,
                       int (*fill)(void *arg, uint32_t ident, int64_t *counts, size_t n),
                       void *arg) {
  char err[UNIT_ERR];
  struct unit u = {.err = err, .errlen = sizeof(err), .last_src = SIZE_MAX};
  int ret = -1;
  if (unit_open(&u, gcno, notes, len))
    goto out;
  for (size_t i = 0; i < u.n_fns; i++) {
    struct function *fn = &u.fns[i];
    int r = fill(arg, fn->ident, fn->counts, fn->n_counts);
    if (r < 0) {
      snprintf(err, sizeof(err), "%s: the stored counters of '%s' do not fit its notes", gcno,
               fn->name);
      goto out;
    }
    fn->has_counts = r > 0;
  }
  ret = unit_emit(m, &u, gcno, have_data, gcno);
out:
  gcovn_unit_free(&u);
  return said(ret, err);
}
