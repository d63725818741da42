/* SPDX-License-Identifier: MIT */
/* Reset baselines (see baseline.h). */
#include "baseline.h"

#include "ucov/port/port.h"
#include "ucov/port/units.h"

static UCOV_NOTRACE int ready(uint64_t **p, uint64_t n) {
  if (!*p && n && !(*p = ucov_port_alloc(n * sizeof(uint64_t))))
    return -UCOV_ENOMEM;
  return 0;
}

UCOV_NOTRACE int ucov_counts_begin(struct ucov_counts *c, struct ucov_baseline *b,
                                   enum ucov_take how) {
  c->base = b->base;
  c->move = 0;
  if (how == UCOV_TAKE_READ)
    return 0;
  if (ready(&b->base, b->n) || ready(&b->pending, b->n))
    return -UCOV_ENOMEM;
  /* Both a reset and a snapshot move a copy: a reset commits it at the end,
   * if the serialization got through (a reply that could not be written
   * resets nothing), so a snapshot pending now is given up. Every counter is
   * taken, but the copy whole is cheap insurance. */
  if (how == UCOV_TAKE_RESET)
    b->pending_token = 0;
  for (uint64_t i = 0; i < b->n; i++)
    b->pending[i] = b->base[i];
  c->base = b->base;
  c->move = b->pending;
  return 0;
}

UCOV_NOTRACE void ucov_counts_end(struct ucov_baseline *b, enum ucov_take how, uint64_t token,
                                  int err) {
  if (how == UCOV_TAKE_RESET && !err)
    ucov_baseline_commit(b);
  if (how != UCOV_TAKE_SNAPSHOT)
    return;
  b->pending_token = err ? 0 : token;
  b->pending_gen = b->gen;
}

uint64_t ucov_baseline_moves;

UCOV_NOTRACE void ucov_baseline_commit(struct ucov_baseline *b) {
  uint64_t *old = b->base;
  b->base = b->pending;
  b->pending = old;
  b->pending_token = 0;
  b->gen++;
  ucov_baseline_moves++;
  ucov_port_baseline_moved(b);
}

UCOV_NOTRACE void ucov_baseline_free(struct ucov_baseline *b) {
  ucov_port_free(b->base);
  ucov_port_free(b->pending);
  b->base = b->pending = 0;
}

UCOV_NOTRACE uint64_t ucov_baseline_count(const struct ucov_baseline *b) {
  return b->n;
}

UCOV_NOTRACE const uint64_t *ucov_baseline_values(const struct ucov_baseline *b) {
  return b->base;
}

UCOV_NOTRACE int ucov_baseline_set(struct ucov_baseline *b, const uint64_t *v, uint64_t n) {
  if (n != b->n)
    return -UCOV_EINVAL;
  if (ready(&b->base, b->n))
    return -UCOV_ENOMEM;
  for (uint64_t i = 0; i < n; i++)
    b->base[i] = v[i];
  b->gen++;
  ucov_baseline_moves++;
  return 0;
}
