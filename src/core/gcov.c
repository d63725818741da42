/* SPDX-License-Identifier: MIT */
/*
 * gcc's gcov runtime entry points (__gcov_init, __gcov_exit, __gcov_dump,
 * __gcov_reset, __gcov_merge_*) and the registry of units.
 *
 * Units come from the constructors gcc emits (__gcov_init) or, for code built
 * with -fprofile-info-section=ucov_gcov_info (no constructor, for freestanding
 * targets), from that section. The registry is a list of small records the
 * port allocates; the gcov_info itself is never written.
 */
#include "gcov.h"

#include "gcov_llvm.h"

#include "ucov/port/hooks.h"
#include "ucov/port/port.h"

static struct ucov_gcov_unit *units;
static int dumped;      /* libgcov's root->dumped: a dump happened, no reset since */
static int run_counted; /* libgcov's root->run_counted: this run is in a summary */
static int exited;      /* the exit dump happened: objects are gone */

/* Units placed in a section instead of registered by a constructor. */
extern const struct gcov_info *const __start_ucov_gcov_info[]
    __attribute__((weak, visibility("hidden")));
extern const struct gcov_info *const __stop_ucov_gcov_info[]
    __attribute__((weak, visibility("hidden")));

/* Register one unit. Lock held. */
static UCOV_NOTRACE void unit_register(const struct gcov_info *info) {
  if (!info || !info->version)
    return;
  unsigned nc = gcov_counters_of(info->version);
  if (!nc) {
    ucov_port_log("ucov: gcov: object built by an unsupported GCC (12 to 15 are): ignored");
    return;
  }
  const struct gcov_info_tail *tail = gcov_info_tail(info, nc);
  if (!tail->n_functions)
    return;
  struct ucov_gcov_unit *head = ucov_gcov_unit_named(units, info->filename);
  for (struct ucov_group *g = head ? &head->grp : 0; g; g = g->twin)
    if (UCOV_UNIT_OF(g, struct ucov_gcov_unit, grp)->info == info)
      return; /* both a constructor and the section */
  struct ucov_gcov_unit *u = ucov_port_alloc(sizeof(*u));
  if (!u) {
    ucov_port_log("ucov: gcov: out of memory: a unit is not registered");
    return;
  }
  u->info = info;
  u->n_counters = nc;
  u->n_functions = tail->n_functions;
  u->functions = tail->functions;
  for (unsigned f = 0; f < u->n_functions; f++) {
    const struct gcov_fn_info *fn = u->functions[f];
    if (!fn || fn->key != info)
      continue;
    const struct gcov_ctr_info *ctr = fn->ctrs;
    for (unsigned k = 0; k < nc; k++) {
      if (!info->merge[k])
        continue;
      if (gcov_kind_is_additive(k))
        u->base.n += ctr->num;
      if (ctr->num > u->max_num)
        u->max_num = ctr->num;
      ctr++;
    }
  }
  ucov_gcov_group_join(units, u);
  u->next = units;
  units = u;
  ucov_gcov_run_max_forget();
  ucov_port_unit_baseline(&u->base);
  ucov_port_object_added();
}

static UCOV_NOTRACE void register_section_units(void) {
  static int done;
  if (done)
    return;
  done = 1;
  if (!__start_ucov_gcov_info || !__stop_ucov_gcov_info)
    return;
  for (const struct gcov_info *const *p = __start_ucov_gcov_info; p < __stop_ucov_gcov_info; p++)
    unit_register(*p);
}

UCOV_NOTRACE struct ucov_gcov_unit *ucov_gcov_units(void) {
  register_section_units();
  return units;
}

UCOV_NOTRACE int ucov_gcov_exited(void) {
  return exited;
}

UCOV_NOTRACE int ucov_gcov_run_counted(void) {
  return run_counted;
}

/* ---- baselines: reads, resets and snapshots of units (baseline.h) ---- */

/*
 * Call fn for every additive counter record of the functions u owns, with the
 * index of the record's first value among the unit's additive counters (the
 * order ucov_gcda_write takes them in).
 */
static UCOV_NOTRACE void for_each_additive(const struct ucov_gcov_unit *u,
                                           void (*fn)(const struct gcov_ctr_info *ctr,
                                                      unsigned kind, uint64_t idx, void *arg),
                                           void *arg) {
  uint64_t idx = 0;
  for (unsigned f = 0; f < u->n_functions; f++) {
    const struct gcov_fn_info *fi = u->functions[f];
    if (!fi || fi->key != u->info)
      continue;
    const struct gcov_ctr_info *ctr = fi->ctrs;
    for (unsigned k = 0; k < u->n_counters; k++) {
      if (!u->info->merge[k])
        continue;
      if (gcov_kind_is_additive(k)) {
        fn(ctr, k, idx, arg);
        idx += ctr->num;
      }
      ctr++;
    }
  }
}

UCOV_NOTRACE int ucov_gcov_write(struct ucov_sink *sink, struct ucov_gcov_unit *u,
                                 const struct ucov_gcov_summary *sum,
                                 const struct ucov_gcda_merge *merge, unsigned flags) {
  struct ucov_counts c;
  enum ucov_take how = flags & UCOV_GCOV_RESET ? UCOV_TAKE_RESET : UCOV_TAKE_READ;
  if (ucov_counts_begin(&c, &u->base, how))
    return -UCOV_ENOMEM;
  int err = ucov_gcda_write(sink, u, sum, merge, &c);
  ucov_counts_end(&u->base, how, 0, err);
  return err;
}

static UCOV_RACY_READS UCOV_NOTRACE void take_record(const struct gcov_ctr_info *ctr, unsigned kind,
                                                     uint64_t idx, void *arg) {
  (void)kind;
  for (uint32_t i = 0; i < ctr->num; i++)
    ucov_counts_take(arg, idx + i, (uint64_t)UCOV_LOAD_RACY(&ctr->values[i]));
}

UCOV_NOTRACE int ucov_gcov_reset(struct ucov_gcov_unit *u) {
  struct ucov_counts c;
  if (ucov_counts_begin(&c, &u->base, UCOV_TAKE_RESET))
    return -UCOV_ENOMEM;
  for_each_additive(u, take_record, &c);
  ucov_counts_end(&u->base, UCOV_TAKE_RESET, 0, 0);
  return 0;
}

UCOV_NOTRACE int ucov_gcov_snapshot(struct ucov_sink *sink, struct ucov_gcov_unit *u,
                                    const struct ucov_gcov_summary *sum, uint64_t token) {
  struct ucov_counts c;
  if (ucov_counts_begin(&c, &u->base, UCOV_TAKE_SNAPSHOT))
    return -UCOV_ENOMEM;
  int err = ucov_gcda_write(sink, u, sum, 0, &c);
  ucov_counts_end(&u->base, UCOV_TAKE_SNAPSHOT, token, err);
  return err;
}

UCOV_NOTRACE void ucov_gcov_commit(struct ucov_gcov_unit *u) {
  ucov_baseline_commit(&u->base);
}

struct max_arg {
  struct ucov_counts c;
  gcov_type max;
};

static UCOV_RACY_READS UCOV_NOTRACE void max_record(const struct gcov_ctr_info *ctr, unsigned kind,
                                                    uint64_t idx, void *arg) {
  struct max_arg *m = arg;
  if (kind != GCOV_COUNTER_ARCS)
    return;
  for (uint32_t i = 0; i < ctr->num; i++) {
    gcov_type v =
        (gcov_type)ucov_counts_take(&m->c, idx + i, (uint64_t)UCOV_LOAD_RACY(&ctr->values[i]));
    if (v > m->max)
      m->max = v;
  }
}

UCOV_NOTRACE gcov_type ucov_gcov_run_max(void) {
  struct max_arg m = {UCOV_COUNTS_LIVE, 0};
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u; u = u->next) {
    m.c.base = u->base.base;
    for_each_additive(u, max_record, &m);
  }
  return m.max;
}

static gcov_type run_max_kept;
static int run_max_valid;
static uint64_t run_max_moves; /* ucov_baseline_moves when it was measured */

UCOV_NOTRACE gcov_type ucov_gcov_run_max_kept(void) {
  if (!run_max_valid || run_max_moves != ucov_baseline_moves) {
    run_max_kept = ucov_gcov_run_max();
    run_max_moves = ucov_baseline_moves;
    run_max_valid = 1;
  }
  return run_max_kept;
}

UCOV_NOTRACE void ucov_gcov_run_max_forget(void) {
  run_max_valid = 0;
}

/* ---- dumps ---- */

/* Dump every unit through the port, once until the next reset. Lock held. */
static UCOV_NOTRACE void dump_all(int at_exit) {
  if (dumped)
    return;
  ucov_gcov_units();
  ucov_port_gcov_dump(at_exit);
  dumped = 1;
  run_counted = 1;
  exited |= at_exit;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_init(struct gcov_info *info) {
  ucov_port_lock();
  ucov_port_unit_source(UCOV_UNIT_FROM_GCC, info, 0);
  unit_register(info);
  ucov_port_unlock();
}

/* Forget a unit (its module goes away). Lock held. */
UCOV_NOTRACE void ucov_gcov_unit_remove(struct ucov_gcov_unit *u) {
  ucov_gcov_run_max_forget();
  for (struct ucov_gcov_unit **p = &units; *p; p = &(*p)->next)
    if (*p == u) {
      ucov_gcov_group_leave(units, u);
      *p = u->next;
      ucov_baseline_free(&u->base);
      ucov_gcov_ghost_free(u);
      ucov_port_free(u);
      return;
    }
}

/* u's module goes away: its counts stay served (gcov_twins.c). 0, or
 * -UCOV_ENOMEM with u as it was. */
UCOV_NOTRACE int ucov_gcov_unit_retire(struct ucov_gcov_unit *u) {
  struct ucov_gcov_unit *gone;
  int err = ucov_gcov_retire(units, u, &gone);
  if (!err && gone)
    ucov_gcov_unit_remove(gone);
  return err;
}

/* Called by every instrumented object's destructor: the first one of the
 * runtime's own module dumps. Other modules (shared objects) are written when
 * they go away (ucov_dso_unload), or by that dump. */
UCOV_EXPORT UCOV_NOTRACE void __gcov_exit(void) {
  if (ucov_port_same_module(__builtin_return_address(0), (const void *)&dump_all))
    ucov_gcov_exit();
}

/* The exit dump of every unit. */
UCOV_NOTRACE void ucov_gcov_exit(void) {
  ucov_port_lock();
  dump_all(1);
  ucov_port_unlock();
  ucov_port_exit_drain();
}

/* At exit for programs with clang units (which have no __gcov_exit), and
 * for what unloaded libraries left when no __gcov_exit of the runtime's own
 * module ran (a program built without ucov, its libraries with it). */
UCOV_NOTRACE void ucov_gcov_exit_llvm(void) {
  ucov_port_lock();
  int have = ucov_llvm_units() != 0 || ucov_gcov_units() != 0;
  if (have)
    dump_all(1);
  ucov_port_unlock();
  if (have)
    ucov_port_exit_drain();
}

UCOV_NOTRACE int ucov_gcov_dump_in_place(void) {
  ucov_port_lock();
  int ret = exited ? -UCOV_ESHUTDOWN : 0;
  if (!ret) {
    ucov_gcov_units();
    ucov_port_gcov_dump(2);
    run_counted = 1; /* the exit adds what comes after, not another run */
    dumped = 0;      /* and dumps again */
    ucov_port_units_rearmed();
  }
  ucov_port_unlock();
  return ret;
}

/* libgcov's public API: dump now (not again until a reset). */
UCOV_EXPORT UCOV_NOTRACE void __gcov_dump(void) {
  ucov_port_lock();
  dump_all(0);
  ucov_port_unlock();
}

/* libgcov's public API: start counting from zero. Here: baselines. */
UCOV_EXPORT UCOV_NOTRACE void __gcov_reset(void) {
  ucov_port_lock();
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u; u = u->next)
    ucov_gcov_reset(u);
  for (struct ucov_llvm_unit *u = ucov_llvm_units(); u; u = u->next)
    ucov_llvm_reset(u);
  dumped = 0;
  ucov_port_units_rearmed();
  ucov_port_unlock();
}

/*
 * A unit's merge[] entries mark which counter kinds it has. libgcov's merge
 * functions read counters from the file being merged; ucov merges by kind
 * (gcda.c) and never calls through these pointers, but they must exist.
 */
UCOV_EXPORT UCOV_NOTRACE void __gcov_merge_add(gcov_type *counters, unsigned n) {
  (void)counters;
  (void)n;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_merge_topn(gcov_type *counters, unsigned n) {
  (void)counters;
  (void)n;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_merge_ior(gcov_type *counters, unsigned n) {
  (void)counters;
  (void)n;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_merge_time_profile(gcov_type *counters, unsigned n) {
  (void)counters;
  (void)n;
}
