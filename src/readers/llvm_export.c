/* SPDX-License-Identifier: MIT */
/*
 * `llvm-cov export -format=text -skip-expansions` (its JSON) into the model
 * (readers.h): lines as llvm-cov's own line statistics make them from the
 * segments (what its lcov export writes), functions at their first region,
 * branches from the functions' lists (constant-folded ones left out) as
 * true/false pairs per line, a macro's at the line that expands it (as the
 * lcov export does; the expansions themselves, which repeat a function's
 * regions for each macro use, are not exported), and each MC/DC condition
 * of the decisions in a function's own code.
 */
#include "readers.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The i-th member of an array (NULL past its end). */
static const struct json *nth(const struct json *a, size_t i) {
  const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL;
  while (e && i--)
    e = e->next;
  return e;
}

static uint64_t u(const struct json *a, size_t i) {
  return json_u64(nth(a, i));
}

static int flag(const struct json *a, size_t i) {
  const struct json *v = nth(a, i);
  return v && v->type == JSON_BOOL && v->boolean;
}

/* A segment: [line, col, count, has_count, is_region_entry, is_gap_region]. */
#define SEG_LINE_MAX (1u << 24) /* no source has more lines */
struct seg {
  uint32_t line;
  uint64_t count;
  int has_count, entry, gap;
};

/*
 * DA lines from a file's segments, as llvm-cov's LineCoverageStats: a line
 * is code if a region with a count starts there (not a skipped one) or the
 * region wrapping into it from an earlier line has a count (and, since
 * LLVM 18, whenever a region with a count starts on it: any_entry); its
 * count is the largest of the wrapping count and those of the regions
 * starting on it.
 */
static void segment_lines(struct cov_file *f, const struct seg *s, size_t n, int any_entry) {
  const struct seg *wrapped = NULL;
  size_t i = 0, line_first = 0, line_n = 0;
  for (uint32_t line = n ? s[0].line : 0; i < n; line++) {
    if (line_n)
      wrapped = &s[line_first + line_n - 1];
    line_first = i;
    while (i < n && s[i].line == line)
      i++;
    line_n = i - line_first;
    const struct seg *ls = s + line_first;
    unsigned starts = 0;
    int entry_with_count = 0;
    for (size_t k = 0; k < line_n; k++) {
      starts += !ls[k].gap && ls[k].has_count && ls[k].entry;
      entry_with_count |= ls[k].entry && ls[k].has_count;
    }
    int skipped = line_n && !ls[0].has_count && ls[0].entry;
    int mapped = (!skipped && ((wrapped && wrapped->has_count) || starts)) ||
                 (any_entry && entry_with_count);
    if (!mapped)
      continue;
    uint64_t count = wrapped ? wrapped->count : 0;
    for (size_t k = 0; starts && k < line_n; k++)
      if (!ls[k].gap && ls[k].has_count && ls[k].entry && ls[k].count > count)
        count = ls[k].count;
    cov_add_line(f, line, count);
  }
}

/* A branch: where it counts (its file, and its line and column, or those of
 * the macro expansion it is in), its order of appearance, its two counts. */
struct br {
  const char *file;
  uint32_t line, col;
  size_t seq;
  uint64_t t, f;
};

static int cmp_br(const void *a, const void *b) {
  const struct br *x = a, *y = b;
  int c = strcmp(x->file, y->file);
  if (c)
    return c;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->col != y->col)
    return x->col < y->col ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct brs {
  struct br *v;
  size_t n, cap;
};

/*
 * A function's branches (llvm-cov leaves the constant-folded ones out of a
 * function's list): one in a macro expansion counts at the outermost
 * expansion's place in the file, as llvm-cov's lcov export puts it.
 */
static int function_branches(const struct json *fn, struct brs *out) {
  const struct json *names = json_get(fn, "filenames"), *regions = json_get(fn, "regions");
  size_t nf = names && names->type == JSON_ARRAY ? names->len : 0;
  struct up {
    long fid;
    uint32_t line, col;
  } *up = malloc((nf + 1) * sizeof(*up));
  if (!up)
    return -1;
  for (size_t k = 0; k < nf; k++)
    up[k].fid = -1;
  for (const struct json *r = regions ? regions->first : NULL; r; r = r->next) {
    uint64_t kind = u(r, 7), into = u(r, 6);
    if (kind == 1 && into < nf) /* an expansion region: file `into` is expanded here */
      up[into] = (struct up){(long)u(r, 5), (uint32_t)u(r, 0), (uint32_t)u(r, 1)};
  }
  const struct json *bl = json_get(fn, "branches");
  for (const struct json *b = bl ? bl->first : NULL; b; b = b->next) {
    uint64_t fid = u(b, 6);
    uint32_t line = (uint32_t)u(b, 0), col = (uint32_t)u(b, 1);
    /* A branch of a file's own code has its file id as expanded id; one in a
     * macro reaches the file through the expansions, else it is no file's. */
    int own = fid == u(b, 7);
    if (!own && (fid >= nf || up[fid].fid < 0))
      continue;
    for (size_t depth = 0; !own && fid < nf && up[fid].fid >= 0 && depth < nf; depth++) {
      line = up[fid].line;
      col = up[fid].col;
      fid = (uint64_t)up[fid].fid;
    }
    const char *file = fid < nf ? json_str(nth(names, (size_t)fid)) : NULL;
    if (!file)
      continue;
    if (UCOV_GROW(out->v, out->cap, out->n, 256)) {
      free(up);
      return -1;
    }
    out->v[out->n] = (struct br){file, line, col, out->n, u(b, 4), u(b, 5)};
    out->n++;
  }
  free(up);
  return 0;
}

/* Branches as llvm-cov's lcov export numbers them: per line, true/false pairs. */
static void add_branches(struct cov_model *m, struct brs *all) {
  if (all->n > 1)
    qsort(all->v, all->n, sizeof(*all->v), cmp_br);
  struct cov_file *f = NULL;
  const char *fname = NULL;
  for (size_t i = 0; i < all->n;) {
    if (!fname || strcmp(fname, all->v[i].file) != 0)
      f = cov_file(m, fname = all->v[i].file, NULL);
    uint32_t line = all->v[i].line, pair = 0, idx = 0;
    for (; i < all->n && all->v[i].line == line && strcmp(all->v[i].file, fname) == 0; i++) {
      const struct br *b = &all->v[i];
      int executed = b->t || b->f;
      if (f) {
        cov_add_branch(f, line, pair, idx++, executed, b->t);
        cov_add_branch(f, line, pair++, idx++, executed, b->f);
      }
    }
  }
}

static int read_file(struct cov_model *m, const struct json *fj, int llvm_major) {
  const char *path = json_str(json_get(fj, "filename"));
  if (!path)
    return -1;
  struct cov_file *f = cov_file(m, path, NULL);
  if (!f)
    return 0;
  const struct json *segs = json_get(fj, "segments");
  size_t n = segs && segs->type == JSON_ARRAY ? segs->len : 0, k = 0;
  struct seg *s = malloc((n + 1) * sizeof(*s));
  if (!s)
    return -1;
  for (const struct json *e = n ? segs->first : NULL; e; e = e->next) {
    /* llvm-cov writes them in order, within a source's lines: out of order
     * (or past SEG_LINE_MAX) they would have every line between counted */
    uint64_t line = u(e, 0);
    if (line > SEG_LINE_MAX || (k && line < s[k - 1].line)) {
      free(s);
      return SAY("%s: segments out of order, or past line %u: not llvm-cov's export", path,
                 SEG_LINE_MAX);
    }
    s[k++] = (struct seg){(uint32_t)line, u(e, 2), flag(e, 3), flag(e, 4), flag(e, 5)};
  }
  segment_lines(f, s, k, llvm_major >= 18);
  free(s);
  return 0;
}

/* Is (line, col) within [l1:c1, l2:c2] of a region? */
static int inside(const struct json *region, uint64_t line, uint64_t col) {
  uint64_t l1 = u(region, 0), c1 = u(region, 1), l2 = u(region, 2), c2 = u(region, 3);
  return (line > l1 || (line == l1 && col >= c1)) && (line < l2 || (line == l2 && col <= c2));
}

/*
 * A function's MC/DC decisions in its own code, as llvm-cov report counts
 * them (not those in the macros it expands): each condition, shown (its
 * independence pair covered) or not. A record is [l1, c1, l2, c2, (true,
 * false, file id,) expanded file id, kind, [conditions]]; without the file
 * id (LLVM 20 and before), a decision in the function's own code is one
 * that starts inside its body.
 */
static void function_mcdc(struct cov_model *m, const struct json *fn) {
  const struct json *recs = json_get(fn, "mcdc_records");
  const struct json *body = nth(json_get(fn, "regions"), 0);
  const char *file = json_str(nth(json_get(fn, "filenames"), 0));
  struct cov_file *f = NULL;
  for (const struct json *r = recs ? recs->first : NULL; r && file && body; r = r->next) {
    const struct json *conds = nth(r, r->len ? r->len - 1 : 0);
    if (!conds || conds->type != JSON_ARRAY ||
        (r->len >= 10 ? u(r, r->len - 4) != 0 : !inside(body, u(r, 0), u(r, 1))))
      continue;
    if (!f && !(f = cov_file(m, file, NULL)))
      return;
    char expr[64];
    snprintf(expr, sizeof(expr), "%" PRIu64 ":%" PRIu64 "-%" PRIu64 ":%" PRIu64, u(r, 0), u(r, 1),
             u(r, 2), u(r, 3));
    uint32_t i = 0;
    for (const struct json *c = conds->first; c; c = c->next, i++)
      cov_add_mcdc(f, (uint32_t)u(r, 0), (uint32_t)conds->len, 1,
                   c->type == JSON_BOOL && c->boolean, i, expr);
  }
}

/*
 * A function's code regions, as llvm-cov report counts them: every code
 * region of it (those of the macros it expands too), in the file of its main
 * view (the first of its files that is no expansion's), at its start there.
 */
static int function_regions(struct cov_model *m, const struct json *fn) {
  const struct json *names = json_get(fn, "filenames"), *regions = json_get(fn, "regions");
  const char *name = json_str(json_get(fn, "name"));
  size_t nf = names && names->type == JSON_ARRAY ? names->len : 0;
  if (!name || !nf || !regions || regions->type != JSON_ARRAY)
    return 0;
  unsigned char *expanded = calloc(nf, 1);
  if (!expanded)
    return -1;
  for (const struct json *r = regions->first; r; r = r->next)
    if (u(r, 7) == 1 && u(r, 6) < nf)
      expanded[u(r, 6)] = 1;
  size_t main = 0;
  while (main < nf && expanded[main])
    main++;
  free(expanded);
  const struct json *start = regions->first;
  while (start && u(start, 5) != main)
    start = start->next;
  const char *file = main < nf ? json_str(nth(names, main)) : NULL;
  struct cov_file *f = start && file ? cov_file(m, file, NULL) : NULL;
  if (!f)
    return 0;
  uint32_t inst = cov_region_inst(name), index = 0;
  for (const struct json *r = regions->first; r; r = r->next)
    if (u(r, 7) == 0 &&
        cov_add_region(f, (uint32_t)u(start, 0), (uint32_t)u(start, 1), inst, index++, u(r, 4)))
      return -1;
  return 0;
}

int llvm_export_read(struct cov_model *m, const struct json *root, int llvm_major) {
  const char *type = json_str(json_get(root, "type"));
  const struct json *data = json_get(root, "data");
  if (!type || strcmp(type, "llvm.coverage.json.export") != 0 || !data || data->type != JSON_ARRAY)
    return SAY("not llvm-cov's JSON export");
  for (const struct json *d = data->first; d; d = d->next) {
    const struct json *files = json_get(d, "files"), *fns = json_get(d, "functions");
    for (const struct json *fj = files ? files->first : NULL; fj; fj = fj->next)
      if (read_file(m, fj, llvm_major))
        return SAY("a file without a name, bad segments, or out of memory");
    struct brs all = {0};
    for (const struct json *fn = fns ? fns->first : NULL; fn; fn = fn->next)
      if (function_branches(fn, &all))
        return free(all.v), SAY("out of memory");
    add_branches(m, &all);
    free(all.v);
    /* Functions: at their first region (its file and lines), with their count. */
    for (const struct json *fn = fns ? fns->first : NULL; fn; fn = fn->next) {
      const char *name = json_str(json_get(fn, "name"));
      const struct json *r0 = nth(json_get(fn, "regions"), 0);
      const char *file = r0 ? json_str(nth(json_get(fn, "filenames"), (size_t)u(r0, 5))) : NULL;
      struct cov_file *f = name && file ? cov_file(m, file, NULL) : NULL;
      if (f)
        cov_add_func_end(f, name, (uint32_t)u(r0, 0), (uint32_t)u(r0, 2),
                         json_u64(json_get(fn, "count")));
      function_mcdc(m, fn);
      if (function_regions(m, fn))
        return SAY("out of memory");
    }
  }
  return 0;
}
