/* SPDX-License-Identifier: MIT */
/*
 * gcov units that share one .gcda name, and what an unloaded unit leaves.
 *
 * Several units can carry one .gcda path: copies of one shared object loaded
 * at once, or one object loaded again after it was unloaded. libgcov merges
 * each into the same file at exit, so their counts add. Here they form a
 * group (linked by `twin`, the first registered is `primary`), which the
 * registry serves as one object: every read, snapshot and commit covers the
 * whole group, merged as libgcov merges a file.
 *
 * A unit whose module goes away is retired, not dropped: its gcov_info and
 * counters are copied (a ghost) and it stays in its group, so that the counts
 * it made since the last pull are served until a pull or the exit takes them.
 * A group keeps at most one ghost: a later retired unit of the same
 * compilation adds its counts (and the part of them a pending snapshot holds)
 * into it, as increments of a live unit would. Lock held throughout.
 */
#include "gcov.h"

#include "ucov/port/port.h"

UCOV_NOTRACE uint32_t ucov_gcov_name_hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static UCOV_NOTRACE int same_name(const struct ucov_gcov_unit *a, const struct ucov_gcov_unit *b) {
  if (a->name_hash != b->name_hash)
    return 0;
  const char *x = a->info->filename, *y = b->info->filename;
  while (*x && *x == *y)
    x++, y++;
  return *x == *y;
}

/* The primary unit of u's group in list. */
static UCOV_NOTRACE struct ucov_gcov_unit *group_head(struct ucov_gcov_unit *list,
                                                      struct ucov_gcov_unit *u) {
  if (u->primary)
    return u;
  for (struct ucov_gcov_unit *h = list; h; h = h->next)
    if (h->primary && same_name(h, u))
      return h;
  return u; /* (not reached: a twin always has a head) */
}

UCOV_NOTRACE void ucov_gcov_group_join(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u) {
  u->name_hash = ucov_gcov_name_hash(u->info->filename);
  u->twin = 0;
  u->primary = 1;
  for (struct ucov_gcov_unit *h = list; h; h = h->next)
    if (h->primary && same_name(h, u)) {
      u->primary = 0;
      u->twin = h->twin;
      h->twin = u;
      return;
    }
}

UCOV_NOTRACE void ucov_gcov_group_leave(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u) {
  if (u->primary) {
    if (u->twin)
      u->twin->primary = 1;
    return;
  }
  for (struct ucov_gcov_unit *h = group_head(list, u); h; h = h->twin)
    if (h->twin == u) {
      h->twin = u->twin;
      return;
    }
}

/* ---------------------------------------------------------------- ghosts */

static UCOV_NOTRACE void copy_bytes(void *to, const void *from, size_t n) {
  uint8_t *d = to;
  const uint8_t *p = from;
  for (size_t i = 0; i < n; i++) /* (freestanding: no memcpy) */
    d[i] = p[i];
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
static UCOV_RACY_READS UCOV_NOTRACE int make_ghost(struct ucov_gcov_unit *u) {
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
    return -UCOV_ENOMEM;
  copy_bytes(mem, gi, head);
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
  copy_bytes(name, gi->filename, name_len + 1);
  ng->filename = name;
  u->info = ng;
  u->functions = fns;
  u->ghost = 1;
  u->ghost_mem = mem;
  return 0;
}

/* Can u's counts be added into ghost g (one compilation: same functions,
 * same counters)? */
static UCOV_NOTRACE int same_layout(const struct ucov_gcov_unit *g,
                                    const struct ucov_gcov_unit *u) {
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

/* The token of u's snapshot that a commit may still apply, or 0. */
static UCOV_NOTRACE uint64_t live_token(const struct ucov_gcov_unit *u) {
  return u->base.pending && !ucov_baseline_stale(&u->base) ? u->base.pending_token : 0;
}

static UCOV_NOTRACE int ready(uint64_t **p, uint64_t n) {
  if (!*p && n && !(*p = ucov_port_alloc(n * sizeof(uint64_t))))
    return -UCOV_ENOMEM;
  return 0;
}

/*
 * Add retired unit u's counts into ghost g: each additive counter by what u
 * counted since its baseline (B); if a snapshot of u is pending (at S), g's
 * pending point moves by S - B, so that its commit takes exactly what the
 * client stored and the rest stays. Bitwise and time-profile counters merge
 * as libgcov merges them; TOPN lists stay g's.
 */
static UCOV_RACY_READS UCOV_NOTRACE int merge_into_ghost(struct ucov_gcov_unit *g,
                                                         struct ucov_gcov_unit *u) {
  uint64_t token = live_token(u);
  if (token && (ready(&g->base.base, g->base.n) || ready(&g->base.pending, g->base.n)))
    return -UCOV_ENOMEM;
  if (token && (g->base.pending_token != token || ucov_baseline_stale(&g->base))) {
    for (uint64_t i = 0; i < g->base.n; i++)
      g->base.pending[i] = g->base.base[i];
    g->base.pending_token = token;
    g->base.pending_gen = g->base.gen;
  }
  const uint64_t *ub = u->base.base, *us = token ? u->base.pending : 0;
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
        if (gcov_kind_is_additive(k)) {
          uint64_t b = ub ? ub[idx + i] : 0;
          *gv = (gcov_type)((uint64_t)*gv + ((uint64_t)live - b));
          if (us)
            g->base.pending[idx + i] += us[idx + i] - b;
        } else if (k == GCOV_TIME_PROFILER) {
          *gv = *gv && (!live || *gv < live) ? *gv : live;
        } else {
          *gv |= live;
        }
      }
      if (gcov_kind_is_additive(k))
        idx += gc->num;
      gc++, uc++;
    }
  }
  return 0;
}

/* The ghost of u's group, or NULL. */
static UCOV_NOTRACE struct ucov_gcov_unit *group_ghost(struct ucov_gcov_unit *list,
                                                       struct ucov_gcov_unit *u) {
  for (struct ucov_gcov_unit *m = group_head(list, u); m; m = m->twin)
    if (m->ghost && m != u)
      return m;
  return 0;
}

UCOV_NOTRACE int ucov_gcov_retire(struct ucov_gcov_unit *list, struct ucov_gcov_unit *u,
                                  struct ucov_gcov_unit **gone) {
  *gone = 0;
  if (u->ghost)
    return 0;
  struct ucov_gcov_unit *g = group_ghost(list, u);
  if (g && same_layout(g, u)) {
    int err = merge_into_ghost(g, u);
    if (!err)
      *gone = u; /* its counts are in g: the caller forgets it */
    return err;
  }
  int err = make_ghost(u);
  if (!err && g) {
    ucov_port_log("ucov: gcov: overwriting the kept counts of a different compilation of the "
                  "same .gcda path");
    *gone = g; /* as libgcov overwrites another compilation's file */
  }
  return err;
}

UCOV_NOTRACE void ucov_gcov_ghost_free(struct ucov_gcov_unit *u) {
  if (u->ghost)
    ucov_port_free(u->ghost_mem);
  u->ghost_mem = 0;
}

/* ---------------------------------------------------------- group reads */

#define PRIVATE_TOKEN (~(uint64_t)0) /* a read-and-reset's own snapshot */

/*
 * Write head's group as one .gcda: each member merged over the ones before
 * it (as libgcov merges a file), the last into sink. how: READ, RESET (each
 * member snapshotted, all committed once the whole reply got through) or
 * SNAPSHOT under token. A group of one is written as the unit alone.
 */
UCOV_NOTRACE int ucov_gcov_group_write(struct ucov_sink *sink, struct ucov_gcov_unit *head,
                                       const struct ucov_gcov_summary *sum, enum ucov_take how,
                                       uint64_t token) {
  if (!head->twin && how == UCOV_TAKE_SNAPSHOT)
    return ucov_gcov_snapshot(sink, head, sum, token);
  if (!head->twin)
    return ucov_gcov_write(sink, head, sum, 0, how == UCOV_TAKE_RESET ? UCOV_GCOV_RESET : 0);
  enum ucov_take each = how == UCOV_TAKE_READ ? UCOV_TAKE_READ : UCOV_TAKE_SNAPSHOT;
  uint64_t tok = how == UCOV_TAKE_RESET ? PRIVATE_TOKEN : token;
  struct ucov_buf_sink prev, cur;
  ucov_buf_sink_init(&prev);
  int err = 0;
  struct ucov_gcov_unit *m;
  for (m = head; m && !err; m = m->twin) {
    struct ucov_gcda_merge *merge = 0;
    if (prev.len && ucov_gcda_parse(prev.buf, prev.len, m, &merge, 0, 0) != UCOV_GCDA_MERGE)
      merge = 0; /* another compilation's counts: overwritten, as libgcov does */
    ucov_buf_sink_init(&cur);
    struct ucov_counts c;
    err = ucov_counts_begin(&c, &m->base, each);
    if (!err) {
      err = ucov_gcda_write(m->twin ? &cur.sink : sink, m, sum, merge, &c);
      ucov_counts_end(&m->base, each, tok, err);
    }
    if (merge)
      ucov_gcda_merge_free(merge);
    ucov_port_free(prev.buf);
    prev = cur;
  }
  ucov_port_free(prev.buf);
  if (how == UCOV_TAKE_RESET)
    for (m = head; m; m = m->twin)
      if (m->base.pending_token == PRIVATE_TOKEN) {
        if (!err)
          ucov_baseline_commit(&m->base);
        m->base.pending_token = 0;
      }
  return err;
}

UCOV_NOTRACE uint64_t *ucov_gcov_group_pending(struct ucov_gcov_unit *head, int *stale) {
  struct ucov_gcov_unit *m = head;
  while (m->twin && !m->base.pending_token)
    m = m->twin; /* members loaded after a snapshot hold none */
  uint64_t t = m->base.pending_token;
  *stale = 0;
  for (struct ucov_gcov_unit *x = head; x && t; x = x->twin)
    if (x->base.pending_token == t)
      *stale |= ucov_baseline_stale(&x->base);
  return &m->base.pending_token;
}

UCOV_NOTRACE void ucov_gcov_group_commit(struct ucov_gcov_unit *head) {
  int stale;
  uint64_t t = *ucov_gcov_group_pending(head, &stale);
  for (struct ucov_gcov_unit *m = head; m; m = m->twin)
    if (t && m->base.pending_token == t)
      ucov_baseline_commit(&m->base);
}

UCOV_NOTRACE int ucov_gcov_group_reset(struct ucov_gcov_unit *head) {
  int ret = 0;
  for (struct ucov_gcov_unit *m = head; m; m = m->twin) {
    int err = ucov_gcov_reset(m);
    if (err && !ret)
      ret = err;
  }
  return ret;
}
