/* SPDX-License-Identifier: MIT */
/*
 * lcov 2's branch blocks (model.h, unit_blocks). lcov 2 captures each unit
 * (one .gcda, or one gcov JSON document) on its own: there a line's
 * branches, from every function instance the unit has on that line, add up
 * by their index into one block. Units are then merged line by line: a
 * unit's block adds into the line's block of the same number when both have
 * as many branches, else into another block of that size not merged with
 * this unit yet, else it becomes a new block, numbered next. So a header's
 * function compiled as C in one unit and as C++ (more branches: exception
 * edges) in another keeps two blocks, where summing by index would give
 * one. Where two merged branches disagree on being an exception edge, the
 * branch is none (lcov 2 says so with its "mismatch" error).
 */
#include "model.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void cov_begin_unit(struct cov_model *m) {
  if (m->unit_blocks && m->unit < UINT32_MAX)
    m->unit++;
}

/* Order: line, unit, block, branch. */
static int cmp_unit_branch(const void *a, const void *b) {
  const struct cov_branch *x = a, *y = b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->unit != y->unit)
    return x->unit < y->unit ? -1 : 1;
  if (x->block != y->block)
    return x->block < y->block ? -1 : 1;
  return x->branch < y->branch ? -1 : x->branch > y->branch;
}

/* b's counts added into a (one branch of two units, or of two instances). */
static void add_branch(struct cov_branch *a, const struct cov_branch *b) {
  a->taken = cov_sum(a->taken, b->taken);
  a->executed |= b->executed;
  a->exception = a->exception && b->exception;
}

/* A line's blocks being built: each a run of its branches in out[]. */
struct block {
  uint32_t id;
  size_t first, n;
  uint32_t merged; /* the unit last merged into it */
};

struct line_state {
  struct cov_branch *out;
  size_t n_out;
  struct block *blocks;
  size_t n_blocks, cap_blocks;
};

/* A unit's block (in[0..n), its branches summed by index) into the line's
 * blocks, as lcov 2 merges it. 0, or -1 without memory. */
static int merge_block(struct line_state *s, struct cov_branch *in, size_t n, uint32_t unit) {
  struct block *to = NULL;
  for (size_t k = 0; k < s->n_blocks && !to; k++)
    if (s->blocks[k].id == in[0].block && s->blocks[k].n == n && s->blocks[k].merged != unit)
      to = &s->blocks[k];
  for (size_t k = 0; k < s->n_blocks && !to; k++)
    if (s->blocks[k].n == n && s->blocks[k].merged != unit)
      to = &s->blocks[k];
  if (to) {
    for (size_t k = 0; k < n; k++)
      add_branch(&s->out[to->first + k], &in[k]);
    to->merged = unit;
    return 0;
  }
  if (UCOV_GROW(s->blocks, s->cap_blocks, s->n_blocks, 4))
    return -1;
  uint32_t id = (uint32_t)s->n_blocks;
  s->blocks[s->n_blocks++] = (struct block){id, s->n_out, n, unit};
  for (size_t k = 0; k < n; k++) {
    s->out[s->n_out] = in[k];
    s->out[s->n_out].block = id;
    s->out[s->n_out].branch = (uint32_t)k;
    s->out[s->n_out++].unit = 0;
  }
  return 0;
}

/* One unit's branches of one line, [from, to) of f->branches (sorted by
 * block and index): summed by index within each block, then merged. */
static int merge_unit(struct line_state *s, struct cov_branch *v, size_t from, size_t to) {
  for (size_t i = from; i < to;) {
    size_t j = i, o = i;
    for (; j < to && v[j].block == v[i].block; j++)
      if (o > i && v[o - 1].branch == v[j].branch)
        add_branch(&v[o - 1], &v[j]);
      else
        v[o++] = v[j];
    if (merge_block(s, &v[i], o - i, v[i].unit))
      return -1;
    i = j;
  }
  return 0;
}

int cov_finish_blocks(struct cov_file *f) {
  size_t i = 0;
  while (i < f->n_branches && !f->branches[i].unit)
    i++;
  if (i == f->n_branches)
    return 0;
  qsort(f->branches, f->n_branches, sizeof(*f->branches), cmp_unit_branch);
  struct line_state s = {.out = malloc(f->n_branches * sizeof(*s.out))};
  if (!s.out)
    return -1;
  int err = 0;
  for (i = 0; i < f->n_branches && !err;) {
    size_t end = i;
    while (end < f->n_branches && f->branches[end].line == f->branches[i].line)
      end++;
    s.n_blocks = 0;
    for (size_t u = i; u < end && !err;) {
      size_t w = u;
      while (w < end && f->branches[w].unit == f->branches[u].unit)
        w++;
      err = merge_unit(&s, f->branches, u, w);
      u = w;
    }
    i = end;
  }
  free(s.blocks);
  if (!err) {
    memcpy(f->branches, s.out, s.n_out * sizeof(*s.out));
    f->n_branches = s.n_out;
  }
  free(s.out);
  return err;
}
