/* SPDX-License-Identifier: MIT */
/* clang's gcov callbacks and the compiler-rt-format .gcda writer (see gcov_llvm.h). */
#include "gcov_llvm.h"

#include "gcov.h"
#include "ucov/port/port.h"

void llvm_gcov_init(void (*writeout)(void), void (*reset)(void));
void llvm_gcda_start_file(const char *orig_filename, uint32_t version, uint32_t checksum);
void llvm_gcda_emit_function(uint32_t ident, uint32_t func_checksum, uint32_t cfg_checksum);
void llvm_gcda_emit_arcs(uint32_t num_counters, uint64_t *counters);
void llvm_gcda_summary_info(void);
void llvm_gcda_end_file(void);

static struct ucov_llvm_unit *units;
static struct ucov_llvm_unit *capturing; /* the unit a writeout call is describing */
static int capture_failed;

UCOV_NOTRACE void ucov_llvm_unit_remove(struct ucov_llvm_unit *u) {
  for (struct ucov_llvm_unit **p = &units; *p; p = &(*p)->next)
    if (*p == u) {
      *p = u->next;
      ucov_port_free(u->fns);
      ucov_baseline_free(&u->base);
      ucov_port_free(u);
      return;
    }
}

UCOV_NOTRACE struct ucov_llvm_unit *ucov_llvm_units(void) {
  return units;
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcov_init(void (*writeout)(void), void (*reset)(void)) {
  (void)reset; /* zeroes live counters: never called */
  if (!writeout)
    return;
  ucov_port_lock();
  capture_failed = 0;
  writeout(); /* calls back llvm_gcda_*: the module describes itself */
  capturing = 0;
  if (capture_failed)
    ucov_port_log("ucov: gcov: out of memory: a clang unit is not registered");
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
