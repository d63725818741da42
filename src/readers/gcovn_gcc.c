/* SPDX-License-Identifier: MIT */
/*
 * gcc's notes counted as gcov counts them: arcs solved in the order gcov
 * solves them, a line's blocks and branches collected the way gcov collects
 * them (duplicates included), the loops on a line counted with the same
 * circuit enumeration (Hawick and James) (gcovn.h).
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

/* ---- solving (gcov's solve_flow_graph) ---- */

/* The last arc of a list (successors or predecessors) whose count is not
 * known, with *total less every arc's count. */
static struct arc *unknown_arc(struct arc *a, int succ, int64_t *total) {
  struct arc *inv = NULL;
  for (; a; a = succ ? a->succ_next : a->pred_next) {
    *total = sub64(*total, a->count);
    if (!a->count_valid)
      inv = a;
  }
  return inv;
}

/* The one unknown arc of a block gets what the block's count leaves; the
 * block at its other end (other_left: its arcs still unknown on that side)
 * goes on the chain it now belongs to. */
static void settle(struct arc *inv, int64_t total, struct block *other, int64_t *other_left,
                   struct block **valid, struct block **invalid) {
  inv->count_valid = 1;
  inv->count = total;
  (*other_left)--;
  if (other->count_valid) {
    if (*other_left == 1 && !other->valid_chain) {
      other->chain = *valid;
      other->valid_chain = 1;
      *valid = other;
    }
  } else if (!*other_left && !other->invalid_chain) {
    other->chain = *invalid;
    other->invalid_chain = 1;
    *invalid = other;
  }
}

/* The arc lists were built backwards: file order again. */
void gcovn_file_order(struct function *fn) {
  for (size_t i = fn->n_blocks; i--;) {
    struct block *b = &fn->blocks[i];
    struct arc *p = NULL, *a, *nx;
    for (a = b->succ; a; p = a, a = nx) {
      nx = a->succ_next;
      a->succ_next = p;
    }
    b->succ = p;
    p = NULL;
    for (a = b->pred; a; p = a, a = nx) {
      nx = a->pred_next;
      a->pred_next = p;
    }
    b->pred = p;
  }
}

/* (Long: gcov's solve_flow_graph step for step, so that every count is gcov's.) */
void gcovn_solve(struct function *fn) {
  const int64_t *cp = fn->counts;
  size_t ci = 0;
  struct block *valid = NULL, *invalid = NULL;
  gcovn_file_order(fn);
  if (fn->n_blocks >= 2) {
    if (!fn->blocks[0].num_pred)
      fn->blocks[0].num_pred = ~(unsigned)0;
    if (!fn->blocks[1].num_succ)
      fn->blocks[1].num_succ = ~(unsigned)0;
  }
  for (size_t i = 0; i < fn->n_blocks; i++) {
    struct block *b = &fn->blocks[i];
    const struct block *prev = NULL;
    int out_of_order = 0, non_fake = 0;
    for (struct arc *a = b->succ; a; a = a->succ_next) {
      if (!a->fake)
        non_fake++;
      if (!a->on_tree) {
        if (ci < fn->n_counts)
          a->count = cp[ci++];
        a->count_valid = 1;
        b->num_succ--;
        a->dst->num_pred--;
      }
      if (prev && prev > a->dst)
        out_of_order = 1;
      prev = a->dst;
    }
    if (non_fake == 1)
      for (struct arc *a = b->succ; a; a = a->succ_next)
        if (!a->fake)
          a->is_unconditional = 1;
    if (out_of_order) { /* ascending destinations; equal ones keep their order */
      struct arc *start = b->succ;
      for (int changes = 1; changes;) {
        changes = 0;
        struct arc *a = start, *p = NULL, *n;
        while ((n = a->succ_next)) {
          if (a->dst > n->dst) {
            changes = 1;
            if (p)
              p->succ_next = n;
            else
              start = n;
            a->succ_next = n->succ_next;
            n->succ_next = a;
            p = n;
          } else {
            p = a;
            a = n;
          }
        }
      }
      b->succ = start;
    }
    b->invalid_chain = 1;
    b->chain = invalid;
    invalid = b;
  }
  while (invalid || valid) {
    struct block *b;
    while ((b = invalid)) {
      int64_t total = 0;
      invalid = b->chain;
      b->invalid_chain = 0;
      if (!b->num_succ)
        for (struct arc *a = b->succ; a; a = a->succ_next)
          total = add64(total, a->count);
      else if (!b->num_pred)
        for (struct arc *a = b->pred; a; a = a->pred_next)
          total = add64(total, a->count);
      else
        continue;
      b->count = total;
      b->count_valid = 1;
      b->chain = valid;
      b->valid_chain = 1;
      valid = b;
    }
    while ((b = valid)) {
      valid = b->chain;
      b->valid_chain = 0;
      if (b->num_succ == 1) {
        int64_t total = b->count;
        struct arc *inv = unknown_arc(b->succ, 1, &total);
        if (!inv)
          break; /* inconsistent graph: gcov would crash here */
        b->num_succ--;
        settle(inv, total, inv->dst, &inv->dst->num_pred, &valid, &invalid);
      }
      if (b->num_pred == 1) {
        int64_t total = b->count;
        struct arc *inv = unknown_arc(b->pred, 0, &total);
        if (!inv)
          break;
        b->num_pred--;
        settle(inv, total, inv->src, &inv->src->num_succ, &valid, &invalid);
      }
    }
  }
}

/* ---- lines (gcov's add_line_counts, accumulate_line_counts) ---- */

int gcovn_u32cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

int gcovn_sorted_u32(const uint32_t *v, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (v[i - 1] > v[i])
      return 0;
  return 1;
}

static int group_line(const struct function *fn, uint32_t ln, uint32_t src) {
  return fn->is_group && fn->src == src && fn->start_line <= ln && ln <= fn->end_line;
}

int gcovn_add_line_counts(struct unit *u, struct function *fn) {
  for (size_t ix = 0; ix < fn->n_blocks; ix++) {
    struct block *b = &fn->blocks[ix];
    struct line *line = NULL;
    for (size_t i = 0; i < b->n_locs; i++) {
      struct location *loc = &b->locs[i];
      for (size_t j = 0; j < loc->n; j++) {
        uint32_t ln = loc->lines[j];
        line = group_line(fn, ln, loc->src) ? gcovn_line_at(&fn->lines, ln - fn->start_line)
                                            : gcovn_line_at(&u->srcs[loc->src].lines, ln);
        if (!line)
          return gcovn_say(u, "%s", "out of memory");
        line->exists = 1;
        line->count = add64(line->count, b->count);
      }
      if (!ix || ix + 1 == fn->n_blocks || !line)
        continue; /* entry or exit block */
      if (gcovn_apush(u, &line->blocks, b))
        return gcovn_say(u, "%s", "out of memory");
      for (struct arc *a = b->succ; a; a = a->succ_next)
        if (gcovn_apush(u, &line->branches, a))
          return gcovn_say(u, "%s", "out of memory");
    }
  }
  return 0;
}

/* The loops of a line: elementary circuits through its blocks, each adding
 * its smallest remaining arc count (gcov's get_cycles_count). */
struct circ {
  const struct line *line;
  struct ptrvec path;    /* struct arc * */
  struct ptrvec blocked; /* struct block * */
  struct ptrvec *lists;  /* per blocked block: the blocks it blocks */
  size_t n_lists, cap_lists;
  int64_t count;
  int oom;
};

static void handle_cycle(struct circ *c) {
  int64_t min = INT64_MAX;
  for (size_t i = 0; i < c->path.n; i++) {
    int64_t e = ((struct arc *)c->path.v[i])->cs_count;
    if (min > e)
      min = e;
  }
  c->count = add64(c->count, min);
  for (size_t i = 0; i < c->path.n; i++) {
    struct arc *a = c->path.v[i];
    a->cs_count = sub64(a->cs_count, min);
  }
}

static void unblock(struct circ *c, const struct block *b) {
  size_t i = 0;
  while (i < c->blocked.n && c->blocked.v[i] != b)
    i++;
  if (i == c->blocked.n)
    return;
  memmove(&c->blocked.v[i], &c->blocked.v[i + 1], (c->blocked.n - i - 1) * sizeof(void *));
  c->blocked.n--;
  struct ptrvec to = c->lists[i];
  memmove(&c->lists[i], &c->lists[i + 1], (c->n_lists - i - 1) * sizeof(c->lists[0]));
  c->n_lists--;
  for (size_t k = 0; k < to.n; k++)
    unblock(c, to.v[k]);
  free(to.v);
}

static int path_has_spent_arc(const struct circ *c) {
  for (size_t i = 0; i < c->path.n; i++)
    if (((struct arc *)c->path.v[i])->cs_count <= 0)
      return 1;
  return 0;
}

static int circuit(struct circ *c, struct block *v, struct block *start, unsigned depth) {
  int found = 0;
  if (depth > 20000 || gcovn_pv_push(&c->blocked, v) ||
      UCOV_GROW(c->lists, c->cap_lists, c->n_lists, 8)) {
    c->oom = 1;
    return 0;
  }
  memset(&c->lists[c->n_lists++], 0, sizeof(c->lists[0]));
  for (struct arc *a = v->succ; a && !c->oom; a = a->succ_next) {
    struct block *w = a->dst;
    if (w < start || a->cs_count <= 0 || !gcovn_pv_has(&c->line->blocks, w))
      continue;
    if (gcovn_pv_push(&c->path, a)) {
      c->oom = 1;
      break;
    }
    if (w == start) {
      handle_cycle(c);
      found = 1;
    } else if (!path_has_spent_arc(c) && !gcovn_pv_has(&c->blocked, w)) {
      found |= circuit(c, w, start, depth + 1);
    }
    c->path.n--;
  }
  if (found) {
    unblock(c, v);
  } else {
    for (struct arc *a = v->succ; a && !c->oom; a = a->succ_next) {
      struct block *w = a->dst;
      if (w < start || a->cs_count <= 0 || !gcovn_pv_has(&c->line->blocks, w))
        continue;
      size_t i = 0;
      while (i < c->blocked.n && c->blocked.v[i] != w)
        i++;
      if (i == c->blocked.n)
        continue; /* gcov asserts it is blocked */
      if (!gcovn_pv_has(&c->lists[i], v) && gcovn_pv_push(&c->lists[i], v))
        c->oom = 1;
    }
  }
  return found;
}

int gcovn_accumulate_line(struct line *line) {
  if (!line->blocks.n)
    return 0;
  int64_t count = 0;
  for (size_t i = 0; i < line->blocks.n; i++) {
    struct block *b = line->blocks.v[i];
    for (struct arc *a = b->pred; a; a = a->pred_next)
      if (!gcovn_pv_has(&line->blocks, a->src))
        count = add64(count, a->count);
    for (struct arc *a = b->succ; a; a = a->succ_next)
      a->cs_count = a->count;
  }
  if (line->blocks.n == 1) {
    /* one block: its only circuits are its arcs to itself, each counted once */
    struct block *b = line->blocks.v[0];
    for (struct arc *a = b->succ; a; a = a->succ_next)
      if (a->dst == b && a->cs_count > 0) {
        count = add64(count, a->cs_count);
        a->cs_count = 0;
      }
    line->count = count;
    return 0;
  }
  struct circ c = {.line = line};
  for (size_t i = 0; i < line->blocks.n && !c.oom; i++) {
    c.path.n = 0;
    for (size_t k = 0; k < c.n_lists; k++)
      free(c.lists[k].v);
    c.n_lists = 0;
    c.blocked.n = 0;
    circuit(&c, line->blocks.v[i], line->blocks.v[i], 0);
  }
  for (size_t k = 0; k < c.n_lists; k++)
    free(c.lists[k].v);
  free(c.lists);
  free(c.path.v);
  free(c.blocked.v);
  line->count = add64(count, c.count);
  return c.oom ? -1 : 0;
}
