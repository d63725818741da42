/* SPDX-License-Identifier: MIT */
/*
 * LLVM code regions in the model, and the found/hit sums of a file and of a
 * model (model.h). Regions are kept one by one, each of one instance of a
 * function, so that merging two runs' models sums each region's count (a
 * region is covered when either run covered it); the sums then count, per
 * function start, the instance with the most regions and the one covering
 * the most, as llvm-cov report does for an instantiation group.
 */
#include "model.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

uint32_t cov_region_inst(const char *name) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 16777619u;
  return h;
}

int cov_add_region(struct cov_file *f, uint32_t line, uint32_t col, uint32_t inst, uint32_t index,
                   uint64_t count) {
  if (ucov_grow((void **)&f->regions, &f->cap_regions, f->n_regions, sizeof(*f->regions), 16))
    return -1;
  f->regions[f->n_regions++] = (struct cov_region){line, col, inst, index, count};
  return 0;
}

static int cmp_region(const void *a, const void *b) {
  const struct cov_region *x = a, *y = b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->col != y->col)
    return x->col < y->col ? -1 : 1;
  if (x->inst != y->inst)
    return x->inst < y->inst ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

void cov_finish_regions(struct cov_file *f) {
  size_t o = 0;
  if (f->n_regions > 1)
    qsort(f->regions, f->n_regions, sizeof(*f->regions), cmp_region);
  for (size_t i = 0; i < f->n_regions; i++) {
    if (o && !cmp_region(&f->regions[o - 1], &f->regions[i]))
      f->regions[o - 1].count = cov_sum(f->regions[o - 1].count, f->regions[i].count);
    else
      f->regions[o++] = f->regions[i];
  }
  f->n_regions = o;
}

/* Regions found and hit, per function start the most of any instance (the
 * regions finished: sorted by start, instance, index). */
static void region_sums(const struct cov_file *f, uint64_t *found, uint64_t *hit) {
  for (size_t i = 0; i < f->n_regions;) {
    const struct cov_region *g = &f->regions[i];
    uint64_t most = 0, most_hit = 0;
    while (i < f->n_regions && f->regions[i].line == g->line && f->regions[i].col == g->col) {
      uint32_t inst = f->regions[i].inst;
      uint64_t n = 0, h = 0;
      for (; i < f->n_regions && f->regions[i].line == g->line && f->regions[i].col == g->col &&
             f->regions[i].inst == inst;
           i++)
        n++, h += f->regions[i].count > 0;
      most = n > most ? n : most;
      most_hit = h > most_hit ? h : most_hit;
    }
    *found += most;
    *hit += most_hit;
  }
}

void cov_file_summary(const struct cov_file *f, struct cov_summary *s) {
  memset(s, 0, sizeof(*s));
  s->lines_found = f->n_lines;
  for (size_t i = 0; i < f->n_lines; i++)
    s->lines_hit += f->lines[i].count > 0;
  s->funcs_found = f->n_funcs;
  for (size_t i = 0; i < f->n_funcs; i++)
    s->funcs_hit += f->funcs[i].count > 0;
  s->branches_found = f->n_branches;
  for (size_t i = 0; i < f->n_branches; i++)
    s->branches_hit += f->branches[i].executed && f->branches[i].taken > 0;
  s->mcdc_found = f->n_mcdc;
  for (size_t i = 0; i < f->n_mcdc; i++)
    s->mcdc_hit += f->mcdc[i].taken > 0;
  region_sums(f, &s->regions_found, &s->regions_hit);
  s->lines_excluded = f->n_excl_lines;
  s->branches_excluded = f->excl_branches;
  s->funcs_excluded = f->excl_funcs;
}

/* (All of cov_summary's fields are uint64_t sums, added one by one.) */
#define N_SUMS (sizeof(struct cov_summary) / sizeof(uint64_t))
_Static_assert(sizeof(struct cov_summary) % sizeof(uint64_t) == 0, "cov_summary is only sums");

void cov_summary(const struct cov_model *m, struct cov_summary *s) {
  uint64_t sum[N_SUMS] = {0};
  for (size_t i = 0; i < m->n_files; i++) {
    struct cov_summary f;
    uint64_t v[N_SUMS];
    cov_file_summary(m->files[i], &f);
    memcpy(v, &f, sizeof(v));
    for (size_t k = 0; k < N_SUMS; k++)
      sum[k] += v[k];
  }
  memcpy(s, sum, sizeof(*s));
}
