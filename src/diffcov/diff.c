/* SPDX-License-Identifier: MIT */
/* Differential coverage: each line of the model against a baseline, through a
 * diff (diff.h); the diff itself is read by diff_read.c. */
#define _GNU_SOURCE
#include "diff.h"
#include "diff_int.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const cov_category_name[COV_DIFF_CATEGORIES] = {"",    "GNC", "UNC", "GBC", "LBC",
                                                            "CBC", "UBC", "DCB", "DUB"};

/* ---- the baseline's text ---- */

/* The diff entry whose old path is `path` (absolute): root/old_path, else
 * the one entry whose old path ends it. SIZE_MAX: none. */
static size_t entry_of_old(const struct udiff *u, const char *path, const char *root) {
  size_t only = SIZE_MAX, n = strlen(path), rn = root ? strlen(root) : 0;
  for (size_t k = 0; k < u->n_files; k++) {
    const char *o = u->files[k].old_path;
    size_t l = o ? strlen(o) : 0;
    if (!o || l >= n || path[n - l - 1] != '/' || strcmp(path + n - l, o))
      continue;
    if (root && n - l - 1 == rn && !strncmp(path, root, rn))
      return k;                                 /* root/old_path */
    only = only == SIZE_MAX ? k : SIZE_MAX - 1; /* (two: ambiguous) */
  }
  return only == SIZE_MAX - 1 ? SIZE_MAX : only;
}

/* A growing text; s NULL once out of memory. */
struct text {
  char *s;
  size_t n, cap;
};

/* (Long: gcov's output order (files, functions, lines, branches), over the same sorted arrays.) */
static void emit(struct text *t, const char *s, size_t l) {
  if (t->s && t->n + l + 1 > t->cap) {
    char *n = realloc(t->s, t->cap = 2 * (t->n + l + 1));
    if (!n)
      free(t->s);
    t->s = n;
  }
  if (t->s)
    memcpy(t->s + t->n, s, l), t->n += l;
}

char *udiff_old_text(const struct udiff *u, const char *path, const char *root, size_t *len) {
  size_t k = entry_of_old(u, path, root);
  if (k == SIZE_MAX)
    return NULL; /* not in the diff: unchanged */
  const struct ufile *uf = &u->files[k];
  /* The current text: the new path in the old one's place. */
  char *cur = NULL;
  size_t cur_len = 0;
  if (uf->new_path) {
    size_t base = strlen(path) - strlen(uf->old_path);
    char *np = NULL;
    if (asprintf(&np, "%.*s%s", (int)base, path, uf->new_path) < 0)
      return NULL;
    cur = ucov_read_text(np, &cur_len);
    free(np);
    if (!cur)
      return NULL;
  }
  /* Unchanged lines from the current text, the deleted ones from the diff,
   * run after run; the current text's lines, in order. */
  struct text t = {malloc(cur_len + 64), 0, cur_len + 64};
  size_t m = 0;
  const char *p = cur ? cur : "", *end = cur ? cur + cur_len : p;
  uint32_t at_old = 1;
  while (m < u->n_minus && u->minus[m].file < k)
    m++;
  for (size_t r = 0; t.s && r <= uf->n_hunks; r++) {
    /* unchanged lines up to the run (all that is left after the last) */
    uint32_t upto = r < uf->n_hunks ? uf->hunks[r].old_start : UINT32_MAX;
    for (; at_old < upto && p < end; at_old++) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
      emit(&t, p, l);
      p += l;
    }
    if (r == uf->n_hunks)
      break;
    const struct hunk *h = &uf->hunks[r];
    for (uint32_t i = 0; i < h->old_n; i++, at_old++) {
      while (m < u->n_minus && u->minus[m].file == k && u->minus[m].line < at_old)
        m++;
      if (m < u->n_minus && u->minus[m].file == k && u->minus[m].line == at_old) {
        emit(&t, u->minus[m].raw, strlen(u->minus[m].raw));
        emit(&t, "\n", 1);
      }
    }
    for (uint32_t i = 0; i < h->new_n && p < end; i++) { /* the inserted lines: not there */
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      p = nl ? nl + 1 : end;
    }
  }
  free(cur);
  if (t.s) {
    t.s[t.n] = 0;
    *len = t.n;
  }
  return t.s;
}

/* ---- the categories ---- */

/* The file of a finished model by path (binary search), or NULL. */
static const struct cov_file *find(const struct cov_model *m, const char *path) {
  size_t lo = 0, hi = m->n_files;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(m->files[mid]->path, path);
    if (!c)
      return m->files[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* A diff path's file in a model: root/path, else the one file ending in /path. */
static const struct cov_file *resolve(const struct cov_model *m, const char *path,
                                      const char *root) {
  if (!path)
    return NULL;
  if (path[0] == '/')
    return find(m, path);
  char *full;
  if (asprintf(&full, "%s/%s", root, path) < 0)
    return NULL;
  const struct cov_file *f = find(m, full);
  free(full);
  if (f)
    return f;
  size_t n = strlen(path);
  const struct cov_file *only = NULL;
  for (size_t i = 0; i < m->n_files; i++) {
    const char *p = m->files[i]->path;
    size_t l = strlen(p);
    if (l > n && p[l - n - 1] == '/' && !strcmp(p + l - n, path)) {
      if (only)
        return NULL; /* ambiguous */
      only = m->files[i];
    }
  }
  return only;
}

/* The baseline line of new line l of a file with these hunks: 0 when the diff inserts it. */
static uint32_t old_line(const struct ufile *uf, uint32_t l) {
  int64_t delta = 0; /* new - old after the hunks passed */
  for (size_t i = 0; uf && i < uf->n_hunks; i++) {
    const struct hunk *h = &uf->hunks[i];
    if (l < h->new_start)
      break;
    if (l < h->new_start + h->new_n)
      return 0;
    delta = (int64_t)(h->new_start + h->new_n) - (int64_t)(h->old_start + h->old_n);
  }
  int64_t o = (int64_t)l - delta;
  return o > 0 && o <= UINT32_MAX ? (uint32_t)o : 0;
}

/* The baseline's count of a line: index of the line, or -1 when it has no code. */
static ssize_t base_index(const struct cov_file *b, uint32_t line) {
  size_t lo = 0, hi = b ? b->n_lines : 0;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (b->lines[mid].line == line)
      return (ssize_t)mid;
    if (b->lines[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* One baseline file's lines: which a current line took ("used"). */
struct base_use {
  const struct cov_file *file;
  uint8_t *used;
  size_t cur; /* the current file its gone lines are counted with, or SIZE_MAX */
};

static struct base_use *use_of(struct base_use *uses, size_t n, const struct cov_file *b) {
  for (size_t i = 0; b && i < n; i++)
    if (uses[i].file == b)
      return &uses[i];
  return NULL;
}

/* What categorizing one current model against a baseline through a diff shares. */
struct dc {
  struct cov_diff *d;
  const struct cov_model *cur, *base;
  const struct udiff *u;
  int have_base;
  struct base_use *uses;                 /* per baseline file */
  const struct ufile **entry;            /* per current file: its diff entry */
  const struct cov_file **ucur, **ubase; /* per diff entry: its current and baseline files */
};

/* The category of current line l, from the baseline's line o of file from
 * (none: -1), which is then taken. */
static int dc_category(struct dc *x, const struct cov_line *l, const struct cov_file *from,
                       uint32_t o) {
  ssize_t bi = from ? base_index(from, o) : -1;
  if (bi < 0)
    return l->count ? COV_GNC : COV_UNC;
  int was = from->lines[bi].count > 0, is = l->count > 0;
  struct base_use *fu = use_of(x->uses, x->base->n_files, from);
  if (fu)
    fu->used[bi] = 1;
  return was && is ? COV_CBC : was ? COV_LBC : is ? COV_GBC : COV_UBC;
}

/* Current file i's lines categorized. 0 or -1 (out of memory). */
static int dc_file(struct dc *x, size_t i) {
  const struct cov_file *c = x->cur->files[i];
  const struct ufile *e = x->entry[i];
  const struct udiff *u = x->u;
  size_t k = e ? (size_t)(e - u->files) : 0;
  /* the baseline of this file: the diff's old path, or the same path */
  const struct cov_file *b = e ? x->ubase[k] : find(x->base, c->path);
  struct base_use *bu = use_of(x->uses, x->base->n_files, b);
  if (bu && bu->cur == SIZE_MAX)
    bu->cur = i;
  struct cov_diff_file *df = &x->d->files[i];
  if (!(df->lines = malloc((c->n_lines ? c->n_lines : 1) * sizeof(*df->lines))))
    return -1;
  size_t p = 0; /* the inserted lines of this file, in order */
  while (e && p < u->n_plus && u->plus[p].file < k)
    p++;
  for (size_t j = 0; j < c->n_lines; j++) {
    const struct cov_line *l = &c->lines[j];
    const struct cov_file *from = b;
    uint32_t o = e ? old_line(e, l->line) : l->line;
    if (e && !o) {
      /* inserted (a line of the patch): moved from a deleted line, or new */
      x->d->patch_found++;
      x->d->patch_hit += l->count > 0;
      while (p < u->n_plus && u->plus[p].file == k && u->plus[p].line < l->line)
        p++;
      from = NULL;
      if (p < u->n_plus && u->plus[p].file == k && u->plus[p].line == l->line &&
          u->plus[p].match >= 0) {
        const struct dline *m = &u->minus[u->plus[p].match];
        from = x->ubase[m->file];
        o = m->line;
      }
    }
    if (!x->have_base && o)
      continue; /* unchanged code, and nothing to compare it with */
    int cat = dc_category(x, l, from, o);
    df->lines[df->n++] = (struct cov_diff_line){l->line, (uint8_t)cat};
    df->counts[cat]++;
  }
  return 0;
}

/* Baseline lines no current line took: deleted, or no code there now.
 * 0 or -1 (out of memory). */
static int dc_deleted(struct dc *x) {
  for (size_t i = 0; i < x->base->n_files; i++) {
    const struct cov_file *b = x->base->files[i];
    for (size_t k = 0; k < b->n_lines; k++) {
      if (x->uses[i].used[k])
        continue;
      int cat = b->lines[k].count ? COV_DCB : COV_DUB;
      if (x->uses[i].cur == SIZE_MAX) {
        x->d->totals[cat]++; /* a file that is gone */
        continue;
      }
      struct cov_diff_file *df = &x->d->files[x->uses[i].cur];
      df->counts[cat]++;
      if (UCOV_GROW(df->gone, df->cap_gone, df->n_gone, 16))
        return -1;
      df->gone[df->n_gone++] = (struct cov_diff_line){b->lines[k].line, (uint8_t)cat};
    }
  }
  return 0;
}

int cov_diff_compute(struct cov_diff *d, const struct cov_model *cur, const struct cov_model *base,
                     const struct udiff *u, const char *root) {
  memset(d, 0, sizeof(*d));
  d->have_patch = u != NULL;
  static const struct cov_model none; /* no baseline: only what the diff inserts is categorized */
  struct dc x = {d, cur, base ? base : &none, u, base != NULL, NULL, NULL, NULL, NULL};
  base = x.base;
  char *cwd = NULL;
  if (!root)
    root = cwd = getcwd(NULL, 0);
  if (!root)
    root = ".";
  d->files = calloc(cur->n_files ? cur->n_files : 1, sizeof(*d->files));
  x.uses = calloc(base->n_files ? base->n_files : 1, sizeof(*x.uses));
  x.entry = calloc(cur->n_files ? cur->n_files : 1, sizeof(*x.entry));
  if (u) {
    x.ucur = calloc(u->n_files ? u->n_files : 1, sizeof(*x.ucur));
    x.ubase = calloc(u->n_files ? u->n_files : 1, sizeof(*x.ubase));
  }
  int err = !d->files || !x.uses || !x.entry || (u && (!x.ucur || !x.ubase)) ? -1 : 0;
  d->n_files = d->files ? cur->n_files : 0;
  for (size_t i = 0; !err && i < base->n_files; i++) {
    x.uses[i].file = base->files[i];
    x.uses[i].cur = SIZE_MAX;
    if (!(x.uses[i].used = calloc(base->files[i]->n_lines ? base->files[i]->n_lines : 1, 1)))
      err = -1;
  }
  for (size_t k = 0; !err && u && k < u->n_files; k++) {
    x.ucur[k] = resolve(cur, u->files[k].new_path, root);
    x.ubase[k] = resolve(base, u->files[k].old_path, root);
    for (size_t i = 0; x.ucur[k] && i < cur->n_files; i++)
      if (cur->files[i] == x.ucur[k])
        x.entry[i] = &u->files[k];
  }
  for (size_t i = 0; !err && i < cur->n_files; i++)
    err = dc_file(&x, i);
  if (!err)
    err = dc_deleted(&x);
  for (size_t i = 0; !err && i < cur->n_files; i++)
    for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++)
      d->totals[cat] += d->files[i].counts[cat];
  for (size_t i = 0; x.uses && i < base->n_files; i++)
    free(x.uses[i].used);
  free(x.uses);
  free(x.entry);
  free(x.ucur);
  free(x.ubase);
  free(cwd);
  if (err)
    cov_diff_free(d);
  return err;
}

void cov_diff_free(struct cov_diff *d) {
  for (size_t i = 0; i < d->n_files; i++)
    free(d->files[i].lines), free(d->files[i].gone);
  free(d->files);
  memset(d, 0, sizeof(*d));
}
