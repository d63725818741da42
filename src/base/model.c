/* SPDX-License-Identifier: MIT */
/* The coverage model: files, lines, functions, branches; adding, finishing, merging (see
 * model.h; path rules: model_paths.c, regions and sums: model_regions.c). */
#define _GNU_SOURCE
#include "model.h"
#include "demangle.h"
#include "model_int.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cov_init(struct cov_model *m) {
  memset(m, 0, sizeof(*m));
}

static void free_file(struct cov_file *f) {
  for (size_t i = 0; i < f->n_funcs; i++)
    free(f->funcs[i].name);
  for (size_t i = 0; i < f->n_mcdc; i++)
    free(f->mcdc[i].expr);
  free(f->mcdc);
  free(f->regions);
  free(f->excl_lines);
  free(f->test);
  free(f->version);
  free(f->funcs);
  free(f->lines);
  free(f->branches);
  free(f->path);
  free(f);
}

void cov_free(struct cov_model *m) {
  for (size_t i = 0; i < m->n_files; i++)
    free_file(m->files[i]);
  free(m->files);
  free(m->slots);
  for (size_t i = 0; i < m->n_maps; i++) {
    free(m->maps[i].from);
    free(m->maps[i].to);
  }
  free(m->maps);
  for (size_t i = 0; i < m->n_include; i++)
    free(m->include[i]);
  for (size_t i = 0; i < m->n_exclude; i++)
    free(m->exclude[i]);
  free(m->include);
  free(m->exclude);
  free(m->root);
  free(m->cwd);
  cov_free_rejected(m);
  cov_init(m);
}

/* Grow an array to hold one more element. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem) {
  return ucov_grow(arr, cap, n, elem, 8);
}

static uint64_t hash_str(const char *s) {
  return ucov_hash_str(s);
}

static int index_rebuild(struct cov_model *m, size_t n_slots) {
  size_t *slots = calloc(n_slots, sizeof(*slots));
  if (!slots)
    return -1;
  for (size_t i = 0; i < m->n_files; i++) {
    size_t s = hash_str(m->files[i]->path) & (n_slots - 1);
    while (slots[s])
      s = (s + 1) & (n_slots - 1);
    slots[s] = i + 1;
  }
  free(m->slots);
  m->slots = slots;
  m->n_slots = n_slots;
  return 0;
}

/* Whether absolute, normalized path p is dir or beneath it. */
static int beneath(const char *p, const char *dir) {
  size_t n = strlen(dir);
  if (n == 1)
    return 1; /* "/" */
  return strncmp(p, dir, n) == 0 && (p[n] == '/' || p[n] == 0);
}

#define PATH_BUF 8192
static struct cov_file *find_file(struct cov_model *m, char *p, int add);

struct cov_file *cov_file(struct cov_model *m, const char *path, const char *dir) {
  char p[PATH_BUF];
  if (path[0] != '/' && !(dir && dir[0])) {
    if (!m->root && !m->cwd && !(m->cwd = getcwd(NULL, 0)))
      return NULL;
    dir = m->root ? m->root : m->cwd;
  }
  if (path[0] != '/')
    snprintf(p, sizeof(p), "%s/%s", dir, path);
  else
    snprintf(p, sizeof(p), "%s", path);
  cov_normalize(p);
  int seen = m->path_seen && m->reading_unit;
  char *raw = seen ? strdup(p) : NULL;
  struct cov_file *f = find_file(m, p, 1);
  if (seen) {
    if (raw)
      m->path_seen(m->path_seen_arg, raw, f ? f->path : NULL);
    free(raw);
  }
  if (f)
    f->unit = m->unit;
  if (f && m->reading_unit)
    f->from_units = 1;
  else if (f)
    f->from_other = 1;
  return f;
}

/* cov_file's rest: the maps, the filters, the index (p: absolute, normalized,
 * in a buffer of PATH_BUF bytes); a file not there is added if add. */
static struct cov_file *find_file(struct cov_model *m, char *p, int add) {
  for (size_t i = 0; i < m->n_maps; i++) {
    size_t l = strlen(m->maps[i].from);
    if (strncmp(p, m->maps[i].from, l) == 0 && (p[l] == '/' || p[l] == 0)) {
      char q[8192];
      snprintf(q, sizeof(q), "%s%s", m->maps[i].to, p + l);
      if (q[0] != '/') { /* NEW relative: to the root, else here */
        if (!m->root && !m->cwd && !(m->cwd = getcwd(NULL, 0)))
          return NULL;
        if ((size_t)snprintf(p, PATH_BUF, "%s/%s", m->root ? m->root : m->cwd, q) >= PATH_BUF)
          return NULL; /* (no source path is that long) */
      } else {
        strcpy(p, q);
      }
      cov_normalize(p);
      break;
    }
  }
  if (m->n_slots < 2 * (m->n_files + 1) && index_rebuild(m, m->n_slots ? m->n_slots * 2 : 64))
    return NULL;
  size_t s = hash_str(p) & (m->n_slots - 1);
  for (; m->slots[s]; s = (s + 1) & (m->n_slots - 1))
    if (strcmp(m->files[m->slots[s] - 1]->path, p) == 0)
      return m->files[m->slots[s] - 1]; /* (kept by the path rules when added) */
  if ((m->root && !beneath(p, m->root)) || !cov_path_kept(m, p) || !add ||
      grow((void **)&m->files, &m->cap_files, m->n_files, sizeof(*m->files)))
    return NULL;
  struct cov_file *f = calloc(1, sizeof(*f));
  if (!f || !(f->path = strdup(p))) {
    free(f);
    return NULL;
  }
  m->files[m->n_files++] = f;
  m->slots[s] = m->n_files;
  return f;
}

struct cov_file *cov_file_there(struct cov_model *m, const char *path) {
  char p[PATH_BUF];
  if (path[0] != '/' || (size_t)snprintf(p, sizeof(p), "%s", path) >= sizeof(p))
    return NULL;
  cov_normalize(p);
  return find_file(m, p, 0);
}

int cov_add_line(struct cov_file *f, uint32_t line, uint64_t count) {
  if (grow((void **)&f->lines, &f->cap_lines, f->n_lines, sizeof(*f->lines)))
    return -1;
  f->lines[f->n_lines++] = (struct cov_line){line, count};
  return 0;
}

int cov_add_func_end(struct cov_file *f, const char *name, uint32_t line, uint32_t end_line,
                     uint64_t count) {
  if (grow((void **)&f->funcs, &f->cap_funcs, f->n_funcs, sizeof(*f->funcs)))
    return -1;
  char *n = strdup(name);
  if (!n)
    return -1;
  f->funcs[f->n_funcs++] = (struct cov_func){n, line, count, end_line};
  return 0;
}

int cov_add_func(struct cov_file *f, const char *name, uint32_t line, uint64_t count) {
  return cov_add_func_end(f, name, line, 0, count);
}

int cov_add_branch_e(struct cov_file *f, uint32_t line, uint32_t block, uint32_t branch,
                     int executed, uint64_t taken, int exception) {
  if (grow((void **)&f->branches, &f->cap_branches, f->n_branches, sizeof(*f->branches)))
    return -1;
  f->branches[f->n_branches++] =
      (struct cov_branch){line, block, branch, executed != 0, taken, exception != 0, f->unit};
  return 0;
}

int cov_add_branch(struct cov_file *f, uint32_t line, uint32_t block, uint32_t branch, int executed,
                   uint64_t taken) {
  return cov_add_branch_e(f, line, block, branch, executed, taken, 0);
}

int cov_add_mcdc(struct cov_file *f, uint32_t line, uint32_t group_size, int sense, uint64_t taken,
                 uint32_t index, const char *expr) {
  if (grow((void **)&f->mcdc, &f->cap_mcdc, f->n_mcdc, sizeof(*f->mcdc)))
    return -1;
  char *e = strdup(expr ? expr : "");
  if (!e)
    return -1;
  f->mcdc[f->n_mcdc++] = (struct cov_mcdc){line, group_size, index, sense != 0, taken, e};
  return 0;
}

int cov_set_test(struct cov_file *f, const char *test) {
  if (!test)
    return 0;
  if (f->test) {
    f->mixed_tests |= strcmp(f->test, test) != 0;
    return 0;
  }
  return (f->test = strdup(test)) ? 0 : -1;
}

int cov_set_version(struct cov_file *f, const char *version) {
  if (!version || f->version)
    return 0;
  return (f->version = strdup(version)) ? 0 : -1;
}

int cov_add_excluded(struct cov_file *f, uint32_t line) {
  size_t n = f->n_excl_lines;
  if (n < 8 ? n == 0 : (n & (n - 1)) == 0) { /* capacity: 8, then powers of two */
    uint32_t *g = realloc(f->excl_lines, (n < 8 ? 8 : 2 * n) * sizeof(*g));
    if (!g)
      return -1;
    f->excl_lines = g;
  }
  f->excl_lines[f->n_excl_lines++] = line;
  return 0;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static int cmp_line(const void *a, const void *b) {
  const struct cov_line *x = a, *y = b;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* Functions by name: one entry per name (the first line it was seen at). */
static int cmp_func_name(const void *a, const void *b) {
  const struct cov_func *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->line < y->line ? -1 : x->line > y->line);
}

/* Then by line, as lcov lists them. */
static int cmp_func_line(const void *a, const void *b) {
  const struct cov_func *x = a, *y = b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int cmp_mcdc(const void *a, const void *b) {
  const struct cov_mcdc *x = a, *y = b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->group_size != y->group_size)
    return x->group_size < y->group_size ? -1 : 1;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  if (x->sense != y->sense)
    return x->sense < y->sense ? -1 : 1;
  return strcmp(x->expr, y->expr);
}

static int cmp_branch(const void *a, const void *b) {
  const struct cov_branch *x = a, *y = b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->block != y->block)
    return x->block < y->block ? -1 : 1;
  return x->branch < y->branch ? -1 : x->branch > y->branch;
}

static int cmp_file(const void *a, const void *b) {
  return strcmp((*(struct cov_file *const *)a)->path, (*(struct cov_file *const *)b)->path);
}

/* qsort, which must not see a NULL array even when empty; an array already
 * in order (what most inputs add) is left as it is. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  const char *p = base;
  size_t i = 1;
  while (i < n && cmp(p + (i - 1) * size, p + i * size) <= 0)
    i++;
  if (i < n)
    qsort(base, n, size, cmp);
}

void cov_sort_excluded(struct cov_file *f) {
  sort(f->excl_lines, f->n_excl_lines, sizeof(*f->excl_lines), cmp_u32);
  size_t o = 0;
  for (size_t i = 0; i < f->n_excl_lines; i++)
    if (!o || f->excl_lines[o - 1] != f->excl_lines[i])
      f->excl_lines[o++] = f->excl_lines[i];
  f->n_excl_lines = o;
}

static void finish_file(struct cov_file *f, int demangle) {
  size_t o = 0;
  if (demangle)
    cov_demangle_funcs(f);
  sort(f->lines, f->n_lines, sizeof(*f->lines), cmp_line);
  for (size_t i = 0; i < f->n_lines; i++) {
    if (o && f->lines[o - 1].line == f->lines[i].line)
      f->lines[o - 1].count = cov_sum(f->lines[o - 1].count, f->lines[i].count);
    else
      f->lines[o++] = f->lines[i];
  }
  f->n_lines = o;
  o = 0;
  sort(f->funcs, f->n_funcs, sizeof(*f->funcs), cmp_func_name);
  for (size_t i = 0; i < f->n_funcs; i++) {
    if (o && strcmp(f->funcs[o - 1].name, f->funcs[i].name) == 0) {
      f->funcs[o - 1].count = cov_sum(f->funcs[o - 1].count, f->funcs[i].count);
      if (f->funcs[i].end_line > f->funcs[o - 1].end_line)
        f->funcs[o - 1].end_line = f->funcs[i].end_line;
      free(f->funcs[i].name);
    } else {
      f->funcs[o++] = f->funcs[i];
    }
  }
  f->n_funcs = o;
  sort(f->funcs, f->n_funcs, sizeof(*f->funcs), cmp_func_line);
  o = 0;
  cov_finish_blocks(f); /* (without memory: summed by index, as without units) */
  sort(f->branches, f->n_branches, sizeof(*f->branches), cmp_branch);
  for (size_t i = 0; i < f->n_branches; i++) {
    struct cov_branch *b = &f->branches[i];
    if (o && !cmp_branch(&f->branches[o - 1], b)) {
      struct cov_branch *a = &f->branches[o - 1];
      a->taken = cov_sum(a->taken, b->taken);
      a->executed |= b->executed;
      a->exception |= b->exception;
    } else {
      f->branches[o++] = *b;
    }
  }
  f->n_branches = o;
  o = 0;
  sort(f->mcdc, f->n_mcdc, sizeof(*f->mcdc), cmp_mcdc);
  for (size_t i = 0; i < f->n_mcdc; i++) {
    if (o && !cmp_mcdc(&f->mcdc[o - 1], &f->mcdc[i])) {
      f->mcdc[o - 1].taken = cov_sum(f->mcdc[o - 1].taken, f->mcdc[i].taken);
      free(f->mcdc[i].expr);
    } else {
      f->mcdc[o++] = f->mcdc[i];
    }
  }
  f->n_mcdc = o;
  cov_finish_regions(f);
  cov_sort_excluded(f);
}

void cov_finish(struct cov_model *m) {
  for (size_t i = 0; i < m->n_files; i++)
    finish_file(m->files[i], !m->no_demangle);
  sort(m->files, m->n_files, sizeof(*m->files), cmp_file);
  index_rebuild(m, m->n_slots ? m->n_slots : 64);
}

int cov_merge_file(struct cov_file *d, const struct cov_file *s) {
  for (size_t k = 0; k < s->n_lines; k++)
    if (cov_add_line(d, s->lines[k].line, s->lines[k].count))
      return -1;
  for (size_t k = 0; k < s->n_funcs; k++)
    if (cov_add_func_end(d, s->funcs[k].name, s->funcs[k].line, s->funcs[k].end_line,
                         s->funcs[k].count))
      return -1;
  for (size_t k = 0; k < s->n_branches; k++) {
    const struct cov_branch *b = &s->branches[k];
    if (cov_add_branch_e(d, b->line, b->block, b->branch, b->executed, b->taken, b->exception))
      return -1;
  }
  for (size_t k = 0; k < s->n_mcdc; k++) {
    const struct cov_mcdc *c = &s->mcdc[k];
    if (cov_add_mcdc(d, c->line, c->group_size, c->sense, c->taken, c->index, c->expr))
      return -1;
  }
  for (size_t k = 0; k < s->n_regions; k++) {
    const struct cov_region *r = &s->regions[k];
    if (cov_add_region(d, r->line, r->col, r->inst, r->index, r->count))
      return -1;
  }
  if (cov_set_test(d, s->test) || cov_set_version(d, s->version))
    return -1;
  d->mixed_tests |= s->mixed_tests;
  for (size_t k = 0; k < s->n_excl_lines; k++)
    if (cov_add_excluded(d, s->excl_lines[k]))
      return -1;
  d->excl_branches += s->excl_branches;
  d->excl_funcs += s->excl_funcs;
  return 0;
}

int cov_merge(struct cov_model *dst, const struct cov_model *src) {
  for (size_t i = 0; i < src->n_files; i++) {
    struct cov_file *d = cov_file(dst, src->files[i]->path, NULL);
    if (d && cov_merge_file(d, src->files[i])) /* (NULL: filtered out) */
      return -1;
  }
  return 0;
}
