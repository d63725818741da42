/* SPDX-License-Identifier: MIT */
/*
 * The --coverage units through one cursor (ucov/port/units.h): gcc's units,
 * then clang's, each written merged with the file it replaces as libgcov or
 * compiler-rt merges it. A port that writes files at exit needs only this.
 */
#include <stddef.h>
#include <stdint.h>

#include "gcov.h"
#include "gcov_llvm.h"
#include "objects.h"
#include "ucov/port/port.h"
#include "ucov/port/units.h"

_Static_assert(UCOV_UNIT_RESET == UCOV_GCOV_RESET, "one reset flag for both writers");

UCOV_NOTRACE void ucov_units_dump_begin(struct ucov_units_dump *d, unsigned flags, int fresh) {
  d->new_run = fresh || !ucov_gcov_run_counted();
  d->run_max = ucov_gcov_run_max();
  d->flags = flags;
  d->groups = fresh;
}

static UCOV_NOTRACE void unit_set_gcov(struct ucov_unit *u, struct ucov_gcov_unit *g) {
  u->llvm = 0;
  u->impl = g;
  u->filename = g->info->filename;
  u->anchor = g->info;
  u->base = &g->base;
  u->next = g->next;
}

static UCOV_NOTRACE void unit_set_llvm(struct ucov_unit *u, struct ucov_llvm_unit *l) {
  u->llvm = 1;
  u->impl = l;
  u->filename = l->filename;
  u->anchor = l->filename;
  u->base = &l->base;
  u->next = l->next;
}

UCOV_NOTRACE int ucov_unit_next(struct ucov_unit *u) {
  if (!u->impl) {
    if (ucov_gcov_units()) {
      unit_set_gcov(u, ucov_gcov_units());
      return 1;
    }
  } else if (!u->llvm && u->next) {
    unit_set_gcov(u, u->next);
    return 1;
  } else if (u->llvm) {
    if (!u->next)
      return 0;
    unit_set_llvm(u, u->next);
    return 1;
  }
  /* past gcc's units (or none): clang's first */
  if (!ucov_llvm_units())
    return 0;
  unit_set_llvm(u, ucov_llvm_units());
  return 1;
}

UCOV_NOTRACE uint64_t ucov_unit_size_bound(const struct ucov_unit *u) {
  if (!u->llvm)
    return ucov_gcov_size_bound(u->impl);
  const struct ucov_llvm_unit *l = u->impl;
  uint64_t own = 64; /* the header and summary records */
  for (unsigned f = 0; f < l->n_fns; f++)
    own += 8 + 12 + 8 + 8ull * l->fns[f].num; /* function and counter records */
  return own;
}

UCOV_NOTRACE int ucov_unit_name(const struct ucov_unit *u, char *out, size_t len) {
  return u->llvm ? ucov_llvm_object_name(u->impl, out, len)
                 : ucov_gcov_object_name(u->impl, out, len);
}

UCOV_NOTRACE int ucov_unit_write(struct ucov_sink *sink, const struct ucov_unit *u,
                                 const struct ucov_units_dump *d, const uint8_t *old,
                                 size_t old_len, char *msg, size_t msglen) {
  if (msglen)
    msg[0] = 0;
  if (!old)
    old_len = 0;
  if (d->groups && !old_len) { /* a fresh file: the group whole, from its first unit */
    const struct ucov_group *grp = u->llvm ? &((const struct ucov_llvm_unit *)u->impl)->grp
                                           : &((const struct ucov_gcov_unit *)u->impl)->grp;
    if (!grp->primary)
      return UCOV_UNIT_KEEP;
    enum ucov_take how = d->flags & UCOV_UNIT_RESET ? UCOV_TAKE_RESET : UCOV_TAKE_READ;
    if (u->llvm)
      return ucov_llvm_group_write(sink, u->impl, how, 0);
    struct ucov_gcov_summary one = {d->new_run ? 1 : 0, d->new_run ? d->run_max : 0};
    return ucov_gcov_group_write(sink, u->impl, &one, how, 0);
  }
  if (u->llvm)
    return ucov_llvm_write(sink, u->impl, old_len ? old : NULL, old_len, d->new_run, d->flags);
  struct ucov_gcda_merge *merge = NULL;
  struct ucov_gcov_summary sum = {0, 0};
  if (old_len) {
    int r = ucov_gcda_parse(old, old_len, u->impl, &merge, msg, msglen);
    if (r == UCOV_GCDA_ERROR)
      return UCOV_UNIT_KEEP; /* as libgcov: a file that cannot be merged stays */
    if (r == UCOV_GCDA_OVERWRITE)
      ucov_msg_set(msg, msglen, "overwriting profile data of a different compilation", ~0u);
    else
      sum = ucov_gcda_merge_summary(merge);
  }
  if (d->new_run) {
    sum.runs++;
    sum.sum_max += d->run_max;
  }
  int err = ucov_gcov_write(sink, u->impl, &sum, merge, d->flags);
  if (merge)
    ucov_gcda_merge_free(merge);
  return err;
}

UCOV_NOTRACE int ucov_unit_retire(struct ucov_unit *u) {
  return u->llvm ? ucov_llvm_unit_retire(u->impl) : ucov_gcov_unit_retire(u->impl);
}

UCOV_NOTRACE void ucov_unit_remove(struct ucov_unit *u) {
  if (u->llvm)
    ucov_llvm_unit_remove(u->impl);
  else
    ucov_gcov_unit_remove(u->impl);
}
