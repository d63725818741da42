/* SPDX-License-Identifier: MIT */
/*
 * clang's notes counted as llvm-cov gcov counts them (LLVM's GCOV.cpp):
 * tree arcs by propagation over the spanning tree, every line of a block
 * counted, loops by cycle cancelling (gcovn.h).
 */
#define _GNU_SOURCE
#include "gcovn_int.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* ---- clang's notes: llvm-cov gcov's counting (LLVM's GCOV.cpp) ---- */

/* Tree arc counts from the counted ones: each tree arc carries the excess
 * of the part of the tree beyond it (a depth-first walk, iterative). */
struct pframe {
  struct block *v;
  struct arc *pred, *cur;
  int in_dst, phase, started;
  uint64_t excess;
};

static int propagate(struct block *root) {
  struct pframe *st = NULL;
  size_t n = 0, cap = 0;
  if (UCOV_GROW(st, cap, n, 16))
    return -1;
  st[n++] = (struct pframe){.v = root};
  while (n) {
    struct pframe *u = &st[n - 1];
    if (!u->started) {
      if (u->v->visited) {
        n--;
        continue;
      }
      u->v->visited = 1;
      u->started = 1;
      u->cur = u->v->pred;
    }
    struct arc *e = u->cur;
    if (e && !u->phase) {
      u->cur = e->pred_next;
      if (e != u->pred) {
        if (!e->on_tree)
          u->excess += (uint64_t)e->count;
        else if (UCOV_GROW(st, cap, n, 16))
          goto oom;
        else
          st[n++] = (struct pframe){.v = e->src, .pred = e};
      }
      continue;
    }
    if (!u->phase) {
      u->phase = 1;
      u->cur = u->v->succ;
      continue;
    }
    if (e) {
      u->cur = e->succ_next;
      if (e != u->pred) {
        if (!e->on_tree)
          u->excess -= (uint64_t)e->count;
        else if (UCOV_GROW(st, cap, n, 16))
          goto oom;
        else
          st[n++] = (struct pframe){.v = e->dst, .pred = e, .in_dst = 1};
      }
      continue;
    }
    uint64_t excess = (int64_t)u->excess < 0 ? (uint64_t)0 - u->excess : u->excess;
    if (u->pred)
      u->pred->count = (int64_t)excess;
    int in_dst = u->in_dst;
    if (--n)
      st[n - 1].excess += in_dst ? (uint64_t)0 - excess : excess;
  }
  free(st);
  return 0;
oom:
  free(st);
  return -1;
}

/* Block counts: every arc's count added to its source block. */
static int llvm_counts(struct unit *u, struct function *fn) {
  size_t ci = 0;
  gcovn_file_order(fn);
  for (size_t i = 0; i < fn->arcs.n; i++) {
    struct arc *a = fn->arcs.v[i];
    if (a->on_tree)
      continue;
    a->count = ci < fn->n_counts ? fn->counts[ci++] : 0;
    a->src->count = add64(a->src->count, a->count);
  }
  if (!fn->has_counts || fn->n_blocks < 2)
    return 0;
  /* the exit block's arc back to the entry closes the graph */
  struct arc *back = gcovn_arena0(u, sizeof(*back));
  if (!back)
    return -1;
  struct block *entry = &fn->blocks[0], *sink = &fn->blocks[u->vnum < 408 ? fn->n_blocks - 1 : 1];
  back->src = sink;
  back->dst = entry;
  back->on_tree = 1;
  struct arc **tail = &sink->succ;
  while (*tail)
    tail = &(*tail)->succ_next;
  *tail = back;
  for (tail = &entry->pred; *tail;)
    tail = &(*tail)->pred_next;
  *tail = back;
  for (size_t b = 0; b < fn->n_blocks; b++)
    if (propagate(&fn->blocks[b]))
      return -1;
  for (size_t i = 0; i < fn->arcs.n; i++) {
    struct arc *a = fn->arcs.v[i];
    if (a->on_tree)
      a->src->count = add64(a->src->count, a->count);
  }
  return 0;
}

static struct arc start_mark; /* the incoming arc of a cycle search's start */

/* One cycle through the line's blocks from src, cancelled by its smallest
 * remaining count (returned; 0: none). */
static uint64_t augment_one_cycle(struct block *src, struct ptrvec *stack) {
  stack->n = 0;
  if (gcovn_pv_push(stack, src))
    return 0;
  src->incoming = &start_mark;
  /* a frame: the block, and its next successor arc (kept in the block's chain field) */
  src->chain = (struct block *)src->succ;
  while (stack->n) {
    struct block *v = stack->v[stack->n - 1];
    struct arc *a = (struct arc *)v->chain;
    if (!a) {
      v->traversable = 0;
      stack->n--;
      continue;
    }
    v->chain = (struct block *)a->succ_next;
    struct block *w = a->dst;
    if (!a->cs_count || !w->traversable || w == v)
      continue;
    if (!w->incoming) {
      w->incoming = a;
      w->chain = (struct block *)w->succ;
      if (gcovn_pv_push(stack, w))
        return 0;
      continue;
    }
    uint64_t min = (uint64_t)a->cs_count;
    for (struct block *x = v; x != w; x = x->incoming->src)
      if ((uint64_t)x->incoming->cs_count < min)
        min = (uint64_t)x->incoming->cs_count;
    a->cs_count = (int64_t)((uint64_t)a->cs_count - min);
    for (struct block *x = v; x != w; x = x->incoming->src)
      x->incoming->cs_count = (int64_t)((uint64_t)x->incoming->cs_count - min);
    return min;
  }
  return 0;
}

static uint64_t llvm_cycles(const struct ptrvec *blocks, struct ptrvec *stack) {
  uint64_t count = 0, d;
  do {
    for (size_t i = 0; i < blocks->n; i++) {
      struct block *b = blocks->v[i];
      b->traversable = 1;
      b->incoming = NULL;
    }
    d = 0;
    for (size_t i = 0; i < blocks->n && !d; i++) {
      struct block *b = blocks->v[i];
      if (b->traversable)
        d = augment_one_cycle(b, stack);
    }
    count += d;
  } while (d);
  for (size_t i = 0; i < blocks->n; i++)
    ((struct block *)blocks->v[i])->traversable = 0;
  return count;
}

static uint32_t last_line(const struct block *b) {
  for (size_t i = b->n_locs; i--;)
    if (b->locs[i].n)
      return b->locs[i].lines[b->locs[i].n - 1];
  return 0;
}

int gcovn_llvm_emit(struct cov_model *m, struct unit *u) {
  for (size_t i = 0; i < u->n_fns; i++) {
    struct function *fn = &u->fns[i];
    if (llvm_counts(u, fn))
      return gcovn_say(u, "%s", "out of memory");
    for (size_t b = 0; b < fn->n_blocks; b++)
      for (size_t k = 0; k < fn->blocks[b].n_locs; k++) {
        struct location *l = &fn->blocks[b].locs[k];
        struct lines *lines = &u->srcs[l->src].lines;
        for (size_t j = 0; j < l->n; j++) {
          struct line *line;
          if (gcovn_lines_resize(lines, (size_t)l->lines[j] + 1) ||
              !(line = gcovn_line_at(lines, l->lines[j])) ||
              gcovn_apush(u, &line->blocks, &fn->blocks[b]))
            return gcovn_say(u, "%s", "out of memory");
          line->exists = 1;
        }
      }
  }
  struct ptrvec stack = {0};
  for (size_t s = 0; s < u->n_srcs; s++) {
    struct source *src = &u->srcs[s];
    struct cov_file *f = cov_file(m, src->name, u->cwd);
    if (!f)
      continue;
    for (size_t i = 0; i < u->n_fns; i++) {
      const struct function *fn = &u->fns[i];
      int64_t c = fn->n_blocks ? fn->blocks[0].count : 0;
      if (fn->src == s)
        cov_add_func_end(f, fn->name, fn->start_line,
                         fn->end_line >= fn->start_line ? fn->end_line : 0,
                         c < 0 ? 0 : (uint64_t)c);
    }
    for (uint32_t ln = 1; ln < src->lines.size; ln++) {
      struct line *line = gcovn_line_if(&src->lines, ln);
      if (!line)
        continue;
      uint64_t count = 0;
      for (size_t i = 0; i < line->blocks.n; i++) {
        struct block *b = line->blocks.v[i];
        if (!b->number) {
          for (struct arc *a = b->succ; a; a = a->succ_next)
            count += (uint64_t)a->count;
        } else {
          for (struct arc *a = b->pred; a; a = a->pred_next)
            if (!gcovn_pv_has(&line->blocks, a->src))
              count += (uint64_t)a->count;
        }
        for (struct arc *a = b->succ; a; a = a->succ_next)
          a->cs_count = a->count;
      }
      count += llvm_cycles(&line->blocks, &stack);
      cov_add_line(f, ln, count);
      uint32_t k = 0;
      for (size_t i = 0; i < line->blocks.n; i++) {
        const struct block *b = line->blocks.v[i];
        if (last_line(b) != ln || !b->succ || !b->succ->succ_next)
          continue; /* a block's branches are on its last line; one arc is none */
        uint64_t total = 0;
        for (const struct arc *a = b->succ; a; a = a->succ_next)
          total += (uint64_t)a->count;
        for (const struct arc *a = b->succ; a; a = a->succ_next)
          cov_add_branch(f, ln, 0, k++, total > 0, (uint64_t)a->count);
      }
    }
  }
  free(stack.v);
  return 0;
}
