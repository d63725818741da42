/* SPDX-License-Identifier: MIT */
/*
 * Groups of units of one .gcda path, and retired units (group.h); gcc's units
 * in them (clang's: gcov_llvm.c).
 */
#include "gcov.h"
#include "group.h"
#include "objects.h"

#include "ucov/port/port.h"

/* ---------------------------------------------------------------- groups */

UCOV_NOTRACE uint32_t ucov_group_hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

UCOV_NOTRACE void ucov_copy_bytes(void *to, const void *from, size_t n) {
  uint8_t *d = to;
  const uint8_t *p = from;
  for (size_t i = 0; i < n; i++)
    d[i] = p[i];
}

UCOV_NOTRACE void ucov_group_join(struct ucov_group *head, struct ucov_group *g) {
  g->primary = !head;
  g->twin = head ? head->twin : 0;
  if (head)
    head->twin = g;
}

UCOV_NOTRACE void ucov_group_leave(struct ucov_group *head, struct ucov_group *g) {
  if (g->primary) {
    if (g->twin)
      g->twin->primary = 1;
    return;
  }
  for (struct ucov_group *m = head; m; m = m->twin)
    if (m->twin == g) {
      m->twin = g->twin;
      return;
    }
}

/* -- the index of primaries -- */

static UCOV_NOTRACE int index_grow(struct ucov_group_index *ix) {
  uint32_t cap = ix->cap ? 2 * ix->cap : 256, live = 0;
  for (uint32_t i = 0; i < ix->cap; i++)
    live += ix->slot[i] && ix->slot[i] != UCOV_GROUP_GONE;
  while (live >= cap / 2 && cap < (1u << 30))
    cap *= 2; /* (removed entries are dropped: a table of them need not grow) */
  if (live >= cap / 2)
    return -1;
  struct ucov_group **slot = ucov_port_alloc((size_t)cap * sizeof(*slot));
  if (!slot)
    return -1;
  for (uint32_t i = 0; i < ix->cap; i++) {
    struct ucov_group *g = ix->slot[i];
    if (!g || g == UCOV_GROUP_GONE)
      continue;
    uint32_t j = g->name_hash & (cap - 1);
    while (slot[j])
      j = (j + 1) & (cap - 1);
    slot[j] = g;
  }
  ucov_port_free(ix->slot);
  ix->slot = slot;
  ix->cap = cap;
  ix->used = live;
  return 0;
}

/* Turned off for want of memory: the callers walk their lists from now on. */
static UCOV_NOTRACE void index_off(struct ucov_group_index *ix) {
  ucov_port_free(ix->slot);
  ix->slot = 0;
  ix->cap = ix->used = 0;
  ix->off = 1;
}

UCOV_NOTRACE void ucov_group_index_put(struct ucov_group_index *ix, struct ucov_group *g) {
  if (ix->off)
    return;
  if ((uint64_t)(ix->used + 1) * 4 > (uint64_t)ix->cap * 3 && index_grow(ix)) {
    index_off(ix);
    return;
  }
  uint32_t j = g->name_hash & (ix->cap - 1);
  while (ix->slot[j] && ix->slot[j] != UCOV_GROUP_GONE)
    j = (j + 1) & (ix->cap - 1);
  ix->used += !ix->slot[j];
  ix->slot[j] = g;
}

UCOV_NOTRACE void ucov_group_index_drop(struct ucov_group_index *ix, struct ucov_group *g) {
  if (ix->off || !ix->cap)
    return;
  for (uint32_t j = g->name_hash & (ix->cap - 1); ix->slot[j]; j = (j + 1) & (ix->cap - 1))
    if (ix->slot[j] == g) {
      ix->slot[j] = UCOV_GROUP_GONE;
      return;
    }
}

UCOV_NOTRACE int ucov_group_index_get(const struct ucov_group_index *ix, const char *name,
                                      uint32_t hash, struct ucov_group **out) {
  *out = 0;
  if (ix->off)
    return -1;
  for (uint32_t j = hash & (ix->cap - 1); ix->cap && ix->slot[j]; j = (j + 1) & (ix->cap - 1)) {
    struct ucov_group *g = ix->slot[j];
    if (g != UCOV_GROUP_GONE && g->name_hash == hash && ucov_str_eq(ix->name_of(g), name)) {
      *out = g;
      return 0;
    }
  }
  return 0;
}

UCOV_NOTRACE void ucov_group_join_indexed(struct ucov_group_index *ix, struct ucov_group *head,
                                          struct ucov_group *g) {
  ucov_group_join(head, g);
  if (g->primary)
    ucov_group_index_put(ix, g);
}

UCOV_NOTRACE void ucov_group_leave_indexed(struct ucov_group_index *ix, struct ucov_group *head,
                                           struct ucov_group *g) {
  int was_primary = g->primary;
  ucov_group_leave(head, g);
  if (was_primary) {
    ucov_group_index_drop(ix, g);
    if (g->twin)
      ucov_group_index_put(ix, g->twin); /* its group's primary now */
  }
}

UCOV_NOTRACE int ucov_group_retire(struct ucov_group *head, struct ucov_group *u,
                                   const struct ucov_group_kind *k, struct ucov_group **gone) {
  *gone = 0;
  if (u->ghost)
    return 0;
  struct ucov_group *g = head;
  while (g && (!g->ghost || g == u))
    g = g->twin;
  if (g && k->same_layout(g, u)) {
    const uint64_t *us;
    if (ucov_group_absorb_begin(g, u, &us))
      return -UCOV_ENOMEM;
    k->absorb(g, u, us);
    *gone = u;
    return 0;
  }
  void *mem = k->make_ghost(u);
  if (!mem)
    return -UCOV_ENOMEM;
  u->ghost = 1;
  u->ghost_mem = mem;
  if (g) {
    ucov_port_log("ucov: gcov: overwriting the kept counts of a different compilation of the "
                  "same .gcda path");
    *gone = g;
  }
  return 0;
}

#define PRIVATE_TOKEN (~(uint64_t)0) /* a read-and-reset's own snapshot */

UCOV_NOTRACE int ucov_group_write(struct ucov_group *head, struct ucov_sink *sink,
                                  enum ucov_take how, uint64_t token, ucov_group_write_fn fn,
                                  void *arg) {
  enum ucov_take each = how == UCOV_TAKE_READ ? UCOV_TAKE_READ : UCOV_TAKE_SNAPSHOT;
  uint64_t tok = how == UCOV_TAKE_RESET ? PRIVATE_TOKEN : token;
  if (!head->twin) /* a group of one: the unit alone, straight into the sink */
    each = how, tok = token;
  struct ucov_buf_sink prev, cur;
  ucov_buf_sink_init(&prev);
  int err = 0;
  struct ucov_group *m;
  for (m = head; m && !err; m = m->twin) {
    ucov_buf_sink_init(&cur);
    struct ucov_counts c;
    err = ucov_counts_begin(&c, m->base, each);
    if (!err) {
      err = fn(m, m->twin ? &cur.sink : sink, prev.buf, prev.len, &c, arg);
      ucov_counts_end(m->base, each, tok, err);
    }
    ucov_port_free(prev.buf);
    prev = cur;
  }
  ucov_port_free(prev.buf);
  if (how == UCOV_TAKE_RESET && head->twin)
    for (m = head; m; m = m->twin)
      if (m->base->pending_token == PRIVATE_TOKEN) {
        if (!err)
          ucov_baseline_commit(m->base);
        m->base->pending_token = 0;
      }
  return err;
}

UCOV_NOTRACE uint64_t *ucov_group_pending(struct ucov_group *head, int *stale) {
  struct ucov_group *m = head;
  while (m->twin && !m->base->pending_token)
    m = m->twin; /* members loaded after a snapshot hold none */
  uint64_t t = m->base->pending_token;
  *stale = 0;
  for (struct ucov_group *x = head; x && t; x = x->twin)
    if (x->base->pending_token == t)
      *stale |= ucov_baseline_stale(x->base);
  return &m->base->pending_token;
}

UCOV_NOTRACE void ucov_group_commit(struct ucov_group *head) {
  int stale;
  uint64_t t = *ucov_group_pending(head, &stale);
  for (struct ucov_group *m = head; m; m = m->twin)
    if (t && m->base->pending_token == t)
      ucov_baseline_commit(m->base);
}

UCOV_NOTRACE int ucov_group_reset(struct ucov_group *head, int (*reset)(struct ucov_group *m)) {
  int ret = 0;
  for (struct ucov_group *m = head; m; m = m->twin) {
    int err = reset(m);
    if (err && !ret)
      ret = err; /* the first error; the others are reset still */
  }
  return ret;
}

static UCOV_NOTRACE int ready(uint64_t **p, uint64_t n) {
  if (!*p && n && !(*p = ucov_port_alloc(n * sizeof(uint64_t))))
    return -UCOV_ENOMEM;
  return 0;
}

UCOV_NOTRACE int ucov_group_absorb_begin(struct ucov_group *g, struct ucov_group *u,
                                         const uint64_t **us) {
  struct ucov_baseline *gb = g->base, *ub = u->base;
  uint64_t token = ub->pending && !ucov_baseline_stale(ub) ? ub->pending_token : 0;
  *us = 0;
  if (!token)
    return 0;
  if (ready(&gb->base, gb->n) || ready(&gb->pending, gb->n))
    return -UCOV_ENOMEM;
  if (gb->pending_token != token || ucov_baseline_stale(gb)) {
    for (uint64_t i = 0; i < gb->n; i++)
      gb->pending[i] = gb->base[i];
    gb->pending_token = token;
    gb->pending_gen = gb->gen;
  }
  *us = ub->pending;
  return 0;
}

UCOV_NOTRACE void ucov_group_absorb(struct ucov_group *g, const struct ucov_group *u,
                                    const uint64_t *us, uint64_t idx, uint64_t live, uint64_t *gv) {
  uint64_t b = u->base->base ? u->base->base[idx] : 0;
  *gv += live - b;
  if (us)
    g->base->pending[idx] += us[idx] - b;
}

/* ------------------------------------------------------------ gcc units */

static UCOV_NOTRACE const char *gcc_name_of(const struct ucov_group *g) {
  return UCOV_UNIT_OF(g, struct ucov_gcov_unit, grp)->info->filename;
}

static struct ucov_group_index gcc_index = {.name_of = gcc_name_of};

/* The primary of the group of units named name (hash) in list, or NULL. */
static UCOV_NOTRACE struct ucov_gcov_unit *head_named(struct ucov_gcov_unit *list, const char *name,
                                                      uint32_t hash) {
  struct ucov_group *g;
  if (ucov_group_index_get(&gcc_index, name, hash, &g) == 0)
    return g ? UCOV_UNIT_OF(g, struct ucov_gcov_unit, grp) : 0;
  for (struct ucov_gcov_unit *h = list; h; h = h->next)
    if (h->grp.primary && h->grp.name_hash == hash && ucov_str_eq(h->info->filename, name))
      return h;
  return 0;
}

UCOV_NOTRACE struct ucov_gcov_unit *ucov_gcov_unit_named(struct ucov_gcov_unit *list,
                                                         const char *filename) {
  return head_named(list, filename, ucov_group_hash(filename));
}

static UCOV_NOTRACE struct ucov_gcov_unit *head_of(struct ucov_gcov_unit *list,
                                                   struct ucov_gcov_unit *u) {
  struct ucov_gcov_unit *h =
      u->grp.primary ? u : head_named(list, u->info->filename, u->grp.name_hash);
  return h ? h : u; /* (a twin always has a head) */
}

UCOV_NOTRACE void ucov_gcov_group_join(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u) {
  u->grp.base = &u->base;
  u->grp.name_hash = ucov_group_hash(u->info->filename);
  struct ucov_gcov_unit *head = head_named(list, u->info->filename, u->grp.name_hash);
  ucov_group_join_indexed(&gcc_index, head ? &head->grp : 0, &u->grp);
}

UCOV_NOTRACE void ucov_gcov_group_leave(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u) {
  ucov_group_leave_indexed(&gcc_index, &head_of(list, u)->grp, &u->grp);
}

static UCOV_NOTRACE size_t align8(size_t n) {
  return (n + 7) & ~(size_t)7;
}

static UCOV_NOTRACE int owns(const struct ucov_gcov_unit *u, unsigned f) {
  const struct gcov_fn_info *fn = u->functions[f];
  return fn && fn->key == u->info;
}

static UCOV_NOTRACE unsigned kinds_of(const struct ucov_gcov_unit *u) {
  unsigned n = 0;
  for (unsigned k = 0; k < u->n_counters; k++)
    n += u->info->merge[k] != 0;
  return n;
}

/*
 * Copy u's gcov_info, the functions it owns and their counters into one
 * block, and make u that copy: its module may now go. Functions it does not
 * own become empty slots (written as libgcov writes them: length 0). The
 * baseline stays as it is: the counters are the same, at the same indexes.
 */
static UCOV_RACY_READS UCOV_NOTRACE void *make_ghost(struct ucov_group *grp) {
  struct ucov_gcov_unit *u = UCOV_UNIT_OF(grp, struct ucov_gcov_unit, grp);
  const struct gcov_info *gi = u->info;
  unsigned nc = u->n_counters, kinds = kinds_of(u);
  size_t head = sizeof(struct gcov_info) + nc * sizeof(gcov_merge_fn);
  size_t at_fns = align8(head + sizeof(struct gcov_info_tail));
  size_t size = at_fns + align8(u->n_functions * sizeof(void *));
  size_t fn_size = align8(sizeof(struct gcov_fn_info) + kinds * sizeof(struct gcov_ctr_info));
  for (unsigned f = 0; f < u->n_functions; f++) {
    if (!owns(u, f))
      continue;
    size += fn_size;
    for (unsigned j = 0; j < kinds; j++)
      size += (size_t)u->functions[f]->ctrs[j].num * sizeof(gcov_type);
  }
  size_t name_len = 0;
  while (gi->filename[name_len])
    name_len++;
  size += name_len + 1;
  uint8_t *mem = ucov_port_alloc(size);
  if (!mem)
    return 0;
  ucov_copy_bytes(mem, gi, head);
  struct gcov_info *ng = (struct gcov_info *)(void *)mem;
  struct gcov_info_tail *tail = (struct gcov_info_tail *)(void *)&ng->merge[nc];
  const struct gcov_fn_info **fns = (const struct gcov_fn_info **)(void *)(mem + at_fns);
  tail->n_functions = u->n_functions;
  tail->functions = fns;
  ng->next = 0;
  uint8_t *p = mem + at_fns + align8(u->n_functions * sizeof(void *));
  for (unsigned f = 0; f < u->n_functions; f++) {
    if (!owns(u, f))
      continue;
    const struct gcov_fn_info *of = u->functions[f];
    struct gcov_fn_info *nf = (struct gcov_fn_info *)(void *)p;
    p += fn_size;
    nf->key = ng;
    nf->ident = of->ident;
    nf->lineno_checksum = of->lineno_checksum;
    nf->cfg_checksum = of->cfg_checksum;
    for (unsigned j = 0; j < kinds; j++) {
      uint32_t num = of->ctrs[j].num;
      gcov_type *v = (gcov_type *)(void *)p;
      for (uint32_t i = 0; i < num; i++)
        v[i] = UCOV_LOAD_RACY(&of->ctrs[j].values[i]);
      nf->ctrs[j].num = num;
      nf->ctrs[j].values = v;
      p += (size_t)num * sizeof(gcov_type);
    }
    fns[f] = nf;
  }
  char *name = (char *)p;
  ucov_copy_bytes(name, gi->filename, name_len + 1);
  ng->filename = name;
  u->info = ng;
  u->functions = fns;
  return mem;
}

/* Can u's counts be added into ghost g (one compilation: same functions,
 * same counters)? */
static UCOV_NOTRACE int same_layout(const struct ucov_group *gg, const struct ucov_group *ug) {
  const struct ucov_gcov_unit *g = UCOV_UNIT_OF(gg, const struct ucov_gcov_unit, grp);
  const struct ucov_gcov_unit *u = UCOV_UNIT_OF(ug, const struct ucov_gcov_unit, grp);
  const struct gcov_info *a = g->info, *b = u->info;
  if (a->version != b->version || a->stamp != b->stamp || a->checksum != b->checksum ||
      g->n_counters != u->n_counters || g->n_functions != u->n_functions || g->base.n != u->base.n)
    return 0;
  for (unsigned k = 0; k < g->n_counters; k++)
    if (!a->merge[k] != !b->merge[k])
      return 0;
  unsigned kinds = kinds_of(g);
  for (unsigned f = 0; f < g->n_functions; f++) {
    if (owns(g, f) != owns(u, f))
      return 0;
    if (!owns(g, f))
      continue;
    const struct gcov_fn_info *x = g->functions[f], *y = u->functions[f];
    if (x->ident != y->ident || x->lineno_checksum != y->lineno_checksum ||
        x->cfg_checksum != y->cfg_checksum)
      return 0;
    for (unsigned j = 0; j < kinds; j++)
      if (x->ctrs[j].num != y->ctrs[j].num)
        return 0;
  }
  return 1;
}

/* Add retired unit u's counts into ghost g (group.h); bitwise and
 * time-profile counters merge as libgcov merges them, TOPN lists stay g's. */
static UCOV_RACY_READS UCOV_NOTRACE void absorb(struct ucov_group *gg, struct ucov_group *ug,
                                                const uint64_t *us) {
  struct ucov_gcov_unit *g = UCOV_UNIT_OF(gg, struct ucov_gcov_unit, grp);
  struct ucov_gcov_unit *u = UCOV_UNIT_OF(ug, struct ucov_gcov_unit, grp);
  uint64_t idx = 0;
  for (unsigned f = 0; f < g->n_functions; f++) {
    if (!owns(g, f))
      continue;
    const struct gcov_ctr_info *gc = g->functions[f]->ctrs, *uc = u->functions[f]->ctrs;
    for (unsigned k = 0; k < g->n_counters; k++) {
      if (!g->info->merge[k])
        continue;
      for (uint32_t i = 0; i < gc->num && !gcov_kind_is_topn(k); i++) {
        gcov_type *gv = &gc->values[i];
        gcov_type live = UCOV_LOAD_RACY(&uc->values[i]);
        if (gcov_kind_is_additive(k))
          ucov_group_absorb(gg, ug, us, idx + i, (uint64_t)live, (uint64_t *)gv);
        else if (k == GCOV_TIME_PROFILER)
          *gv = *gv && (!live || *gv < live) ? *gv : live;
        else
          *gv |= live;
      }
      if (gcov_kind_is_additive(k))
        idx += gc->num;
      gc++, uc++;
    }
  }
}

static const struct ucov_group_kind gcc_kind = {same_layout, absorb, make_ghost};

UCOV_NOTRACE int ucov_gcov_retire(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u,
                                  struct ucov_gcov_unit **gone) {
  struct ucov_group *g;
  int err = ucov_group_retire(&head_of(list, u)->grp, &u->grp, &gcc_kind, &g);
  *gone = g ? UCOV_UNIT_OF(g, struct ucov_gcov_unit, grp) : 0;
  return err;
}

UCOV_NOTRACE void ucov_gcov_ghost_free(struct ucov_gcov_unit *u) {
  if (u->grp.ghost)
    ucov_port_free(u->grp.ghost_mem);
  u->grp.ghost_mem = 0;
}

struct gcc_write {
  const struct ucov_gcov_summary *sum;
};

/* One gcc member merged over the members before it (another compilation's
 * counts are overwritten, as libgcov overwrites its file). */
static UCOV_NOTRACE int gcc_member_write(struct ucov_group *m, struct ucov_sink *out,
                                         const uint8_t *prev, size_t prev_len,
                                         const struct ucov_counts *c, void *arg) {
  struct gcc_write *w = arg;
  struct ucov_gcov_unit *u = UCOV_UNIT_OF(m, struct ucov_gcov_unit, grp);
  struct ucov_gcda_merge *merge = 0;
  if (prev_len && ucov_gcda_parse(prev, prev_len, u, &merge, 0, 0) != UCOV_GCDA_MERGE)
    merge = 0;
  int err = ucov_gcda_write(out, u, w->sum, merge, c);
  if (merge)
    ucov_gcda_merge_free(merge);
  return err;
}

UCOV_NOTRACE int ucov_gcov_group_write(struct ucov_sink *sink, struct ucov_gcov_unit *head,
                                       const struct ucov_gcov_summary *sum, enum ucov_take how,
                                       uint64_t token) {
  struct gcc_write w = {sum};
  return ucov_group_write(&head->grp, sink, how, token, gcc_member_write, &w);
}

static UCOV_NOTRACE int gcc_member_reset(struct ucov_group *m) {
  return ucov_gcov_reset(UCOV_UNIT_OF(m, struct ucov_gcov_unit, grp));
}

UCOV_NOTRACE int ucov_gcov_group_reset(struct ucov_gcov_unit *head) {
  return ucov_group_reset(&head->grp, gcc_member_reset);
}
