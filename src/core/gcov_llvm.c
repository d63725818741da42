/* SPDX-License-Identifier: MIT */
/* clang's gcov callbacks and the compiler-rt-format .gcda writer (see gcov_llvm.h). */
#include "gcov_llvm.h"

#include "gcov.h"
#include "objects.h"
#include "ucov/port/hooks.h"
#include "ucov/port/port.h"

static struct ucov_llvm_unit *units;
static struct ucov_llvm_unit *capturing; /* the unit a writeout call is describing */
static int capture_failed;

/* The primary of the group of a unit named name (hash), or NULL. */
static UCOV_NOTRACE const char *llvm_name_of(const struct ucov_group *g) {
  return UCOV_UNIT_OF(g, struct ucov_llvm_unit, grp)->filename;
}

static struct ucov_group_index llvm_index = {.name_of = llvm_name_of};

static UCOV_NOTRACE struct ucov_llvm_unit *head_named(const char *name, uint32_t hash) {
  struct ucov_group *g;
  if (ucov_group_index_get(&llvm_index, name, hash, &g) == 0)
    return g ? UCOV_UNIT_OF(g, struct ucov_llvm_unit, grp) : 0;
  for (struct ucov_llvm_unit *h = units; h; h = h->next)
    if (h->grp.primary && h->grp.name_hash == hash && ucov_str_eq(h->filename, name))
      return h;
  return 0;
}

static UCOV_NOTRACE struct ucov_group *head_of(struct ucov_llvm_unit *u) {
  struct ucov_llvm_unit *h = u->grp.primary ? u : head_named(u->filename, u->grp.name_hash);
  return h ? &h->grp : &u->grp;
}

UCOV_NOTRACE void ucov_llvm_unit_remove(struct ucov_llvm_unit *u) {
  for (struct ucov_llvm_unit **p = &units; *p; p = &(*p)->next)
    if (*p == u) {
      ucov_group_leave_indexed(&llvm_index, head_of(u), &u->grp);
      *p = u->next;
      ucov_port_free(u->fns);
      ucov_baseline_free(&u->base);
      if (u->grp.ghost)
        ucov_port_free(u->grp.ghost_mem);
      ucov_port_free(u);
      return;
    }
}

/* u's counters and name copied into one block, u made that copy (a ghost). */
static UCOV_RACY_READS UCOV_NOTRACE void *make_ghost(struct ucov_group *grp) {
  struct ucov_llvm_unit *u = UCOV_UNIT_OF(grp, struct ucov_llvm_unit, grp);
  size_t name_len = 0;
  while (u->filename[name_len])
    name_len++;
  uint8_t *mem = ucov_port_alloc(u->base.n * sizeof(uint64_t) + name_len + 1);
  if (!mem)
    return 0;
  uint64_t *v = (uint64_t *)(void *)mem;
  for (unsigned f = 0; f < u->n_fns; f++) {
    for (uint32_t i = 0; i < u->fns[f].num; i++)
      v[i] = UCOV_LOAD_RACY(&u->fns[f].counters[i]);
    u->fns[f].counters = u->fns[f].num ? v : 0;
    v += u->fns[f].num;
  }
  ucov_copy_bytes(v, u->filename, name_len + 1);
  u->filename = (const char *)v;
  return mem;
}

static UCOV_NOTRACE int same_layout(const struct ucov_group *gg, const struct ucov_group *ug) {
  const struct ucov_llvm_unit *g = UCOV_UNIT_OF(gg, const struct ucov_llvm_unit, grp);
  const struct ucov_llvm_unit *u = UCOV_UNIT_OF(ug, const struct ucov_llvm_unit, grp);
  if (g->version != u->version || g->checksum != u->checksum || g->n_fns != u->n_fns ||
      g->base.n != u->base.n)
    return 0;
  for (unsigned f = 0; f < g->n_fns; f++) {
    const struct ucov_llvm_fn *x = &g->fns[f], *y = &u->fns[f];
    if (x->ident != y->ident || x->func_checksum != y->func_checksum ||
        x->cfg_checksum != y->cfg_checksum || x->num != y->num)
      return 0;
  }
  return 1;
}

static UCOV_RACY_READS UCOV_NOTRACE void absorb(struct ucov_group *gg, struct ucov_group *ug,
                                                const uint64_t *us) {
  struct ucov_llvm_unit *g = UCOV_UNIT_OF(gg, struct ucov_llvm_unit, grp);
  struct ucov_llvm_unit *u = UCOV_UNIT_OF(ug, struct ucov_llvm_unit, grp);
  uint64_t idx = 0;
  for (unsigned f = 0; f < g->n_fns; f++)
    for (uint32_t i = 0; i < g->fns[f].num; i++, idx++)
      ucov_group_absorb(gg, ug, us, idx, UCOV_LOAD_RACY(&u->fns[f].counters[i]),
                        &g->fns[f].counters[i]);
}

static const struct ucov_group_kind llvm_kind = {same_layout, absorb, make_ghost};

UCOV_NOTRACE int ucov_llvm_unit_retire(struct ucov_llvm_unit *u) {
  struct ucov_group *gone;
  int err = ucov_group_retire(head_of(u), &u->grp, &llvm_kind, &gone);
  if (!err && gone)
    ucov_llvm_unit_remove(UCOV_UNIT_OF(gone, struct ucov_llvm_unit, grp));
  return err;
}

/* One member merged over the members before it; the group is one run. */
static UCOV_NOTRACE int member_write(struct ucov_group *m, struct ucov_sink *out,
                                     const uint8_t *prev, size_t prev_len,
                                     const struct ucov_counts *c, void *arg) {
  (void)arg;
  return ucov_llvm_gcda_write(out, UCOV_UNIT_OF(m, struct ucov_llvm_unit, grp), prev_len ? prev : 0,
                              prev_len, !prev_len, c);
}

UCOV_NOTRACE int ucov_llvm_group_write(struct ucov_sink *sink, struct ucov_llvm_unit *head,
                                       enum ucov_take how, uint64_t token) {
  return ucov_group_write(&head->grp, sink, how, token, member_write, 0);
}

static UCOV_NOTRACE int member_reset(struct ucov_group *m) {
  return ucov_llvm_reset(UCOV_UNIT_OF(m, struct ucov_llvm_unit, grp));
}

UCOV_NOTRACE int ucov_llvm_group_reset(struct ucov_llvm_unit *head) {
  return ucov_group_reset(&head->grp, member_reset);
}

UCOV_NOTRACE struct ucov_llvm_unit *ucov_llvm_unit_named(const char *filename) {
  return head_named(filename, ucov_group_hash(filename));
}

UCOV_NOTRACE struct ucov_llvm_unit *ucov_llvm_units(void) {
  return units;
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcov_init(void (*writeout)(void), void (*reset)(void)) {
  (void)reset; /* zeroes live counters: never called */
  if (!writeout)
    return;
  ucov_port_lock();
  ucov_port_unit_source(UCOV_UNIT_FROM_CLANG, (void *)writeout, (void *)reset);
  capture_failed = 0;
  struct ucov_llvm_unit *before = units;
  writeout(); /* calls back llvm_gcda_*: the module describes itself */
  capturing = 0;
  if (capture_failed)
    ucov_port_log("ucov: gcov: out of memory: a clang unit is not registered");
  else if (units != before)
    ucov_port_unit_baseline(&units->base);
  ucov_port_unlock();
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_start_file(const char *orig_filename, uint32_t version,
                                                   uint32_t checksum) {
  struct ucov_llvm_unit *u = ucov_port_alloc(sizeof(*u));
  capturing = u;
  if (!u) {
    capture_failed = 1;
    return;
  }
  u->filename = orig_filename;
  u->version = version;
  u->checksum = checksum;
  u->grp.base = &u->base;
  u->grp.name_hash = ucov_group_hash(orig_filename);
  struct ucov_llvm_unit *head = head_named(orig_filename, u->grp.name_hash);
  ucov_group_join_indexed(&llvm_index, head ? &head->grp : 0, &u->grp);
  u->next = units;
  units = u;
  ucov_port_object_added();
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_emit_function(uint32_t ident, uint32_t func_checksum,
                                                      uint32_t cfg_checksum) {
  struct ucov_llvm_unit *u = capturing;
  if (!u)
    return;
  if (u->n_fns == u->cap) {
    unsigned cap = u->cap ? 2 * u->cap : 16;
    struct ucov_llvm_fn *fns = ucov_port_alloc(cap * sizeof(*fns));
    if (!fns) {
      capture_failed = 1;
      return;
    }
    for (unsigned i = 0; i < u->n_fns; i++)
      fns[i] = u->fns[i];
    ucov_port_free(u->fns);
    u->fns = fns;
    u->cap = cap;
  }
  struct ucov_llvm_fn *f = &u->fns[u->n_fns++];
  f->ident = ident;
  f->func_checksum = func_checksum;
  f->cfg_checksum = cfg_checksum;
  f->num = 0;
  f->counters = 0;
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_emit_arcs(uint32_t num_counters, uint64_t *counters) {
  struct ucov_llvm_unit *u = capturing;
  if (!u || !u->n_fns)
    return;
  u->fns[u->n_fns - 1].num = num_counters;
  u->fns[u->n_fns - 1].counters = counters;
  u->base.n += num_counters;
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_summary_info(void) {}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_end_file(void) {
  capturing = 0;
}

/* ---- baselines: reads, resets and snapshots of units (baseline.h) ---- */

UCOV_NOTRACE int ucov_llvm_write(struct ucov_sink *sink, struct ucov_llvm_unit *u,
                                 const uint8_t *old, size_t old_len, int new_run, unsigned flags) {
  struct ucov_counts c;
  enum ucov_take how = flags & UCOV_GCOV_RESET ? UCOV_TAKE_RESET : UCOV_TAKE_READ;
  if (ucov_counts_begin(&c, &u->base, how))
    return -UCOV_ENOMEM;
  int err = ucov_llvm_gcda_write(sink, u, old, old_len, new_run, &c);
  ucov_counts_end(&u->base, how, 0, err);
  return err;
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_llvm_reset(struct ucov_llvm_unit *u) {
  struct ucov_counts c;
  if (ucov_counts_begin(&c, &u->base, UCOV_TAKE_RESET))
    return -UCOV_ENOMEM;
  uint64_t b = 0;
  for (unsigned f = 0; f < u->n_fns; f++)
    for (uint32_t i = 0; i < u->fns[f].num; i++, b++)
      ucov_counts_take(&c, b, UCOV_LOAD_RACY(&u->fns[f].counters[i]));
  ucov_counts_end(&u->base, UCOV_TAKE_RESET, 0, 0);
  return 0;
}

UCOV_NOTRACE int ucov_llvm_snapshot(struct ucov_sink *sink, struct ucov_llvm_unit *u,
                                    uint64_t token) {
  struct ucov_counts c;
  if (ucov_counts_begin(&c, &u->base, UCOV_TAKE_SNAPSHOT))
    return -UCOV_ENOMEM;
  int err = ucov_llvm_gcda_write(sink, u, 0, 0, 1, &c);
  ucov_counts_end(&u->base, UCOV_TAKE_SNAPSHOT, token, err);
  return err;
}

UCOV_NOTRACE void ucov_llvm_commit(struct ucov_llvm_unit *u) {
  ucov_baseline_commit(&u->base);
}
