/* SPDX-License-Identifier: MIT */
/*
 * The two-phase reset's tokens (objects.h): issued in order, and which of
 * them were committed, for the COMMIT of a client that recovers.
 */
#include "objects.h"

#include "ucov/port/port.h"

/*
 * Which tokens were committed, for as long as the process lives: a client
 * that died after its COMMIT reached us, recovering after any number of
 * later commits, must learn that its snapshot counts (and one that died
 * before must learn that it does not). Kept as sorted ranges of committed
 * tokens: tokens are issued in order and nearly all commit, so a long-lived
 * target holds a handful of ranges, one more for each set that never
 * committed between two that did. Only when RANGES_MAX ranges are held is the
 * oldest one forgotten; tokens below `forgotten_below` then answer ENODATA
 * ("not known"), never a guess.
 */
struct token_range {
  uint64_t lo, hi;
};
static uint64_t last_token; /* tokens issued: 1 .. last_token */
#define RANGES_MAX 4096
static struct token_range *ranges; /* sorted, disjoint, not adjacent */
static uint32_t n_ranges, cap_ranges;
static uint64_t forgotten_below = 1;

UCOV_NOTRACE int ucov_token_committed(uint64_t token) {
  for (uint32_t i = n_ranges; i-- > 0;) /* newest first: recent tokens are asked */
    if (token >= ranges[i].lo && token <= ranges[i].hi)
      return 1;
  return 0;
}

static UCOV_NOTRACE void forget_oldest(void) {
  forgotten_below = ranges[0].hi + 1;
  for (uint32_t i = 1; i < n_ranges; i++)
    ranges[i - 1] = ranges[i];
  n_ranges--;
}

/* Room for one more range: 0, or -UCOV_ENOMEM with nothing to forget. */
static UCOV_NOTRACE int ranges_room(void) {
  if (n_ranges < cap_ranges)
    return 0;
  uint32_t cap = cap_ranges ? cap_ranges * 2 : 16;
  struct token_range *r = cap <= RANGES_MAX ? ucov_port_alloc(cap * sizeof(struct token_range)) : 0;
  if (r) {
    for (uint32_t i = 0; i < n_ranges; i++)
      r[i] = ranges[i];
    ucov_port_free(ranges);
    ranges = r;
    cap_ranges = cap;
    return 0;
  }
  if (!n_ranges)
    return -UCOV_ENOMEM;
  forget_oldest(); /* a full table, or no memory: the oldest outcome goes */
  return 0;
}

/* Record token as committed. 0, or -UCOV_ENOMEM (then it must not commit). */
UCOV_NOTRACE int ucov_token_record(uint64_t token) {
  uint32_t i = n_ranges; /* the first range after token */
  while (i > 0 && ranges[i - 1].lo > token)
    i--;
  int joins_prev = i > 0 && ranges[i - 1].hi + 1 == token;
  int joins_next = i < n_ranges && ranges[i].lo == token + 1;
  if (joins_prev && joins_next) {
    ranges[i - 1].hi = ranges[i].hi;
    for (uint32_t k = i + 1; k < n_ranges; k++)
      ranges[k - 1] = ranges[k];
    n_ranges--;
  } else if (joins_prev) {
    ranges[i - 1].hi = token;
  } else if (joins_next) {
    ranges[i].lo = token;
  } else {
    uint32_t before = n_ranges;
    if (ranges_room())
      return -UCOV_ENOMEM;
    uint32_t gone = before - n_ranges; /* (the oldest may have gone) */
    i = i > gone ? i - gone : 0;
    for (uint32_t k = n_ranges; k > i; k--)
      ranges[k] = ranges[k - 1];
    ranges[i] = (struct token_range){token, token};
    n_ranges++;
  }
  return 0;
}

UCOV_NOTRACE uint64_t ucov_token_last(void) {
  return last_token;
}

UCOV_NOTRACE uint64_t ucov_token_issue(void) {
  return ++last_token;
}

UCOV_NOTRACE int ucov_token_forgotten(uint64_t token) {
  return token < forgotten_below;
}

/* Decimal digits of v into out (at least 21 bytes): their count. */
static UCOV_NOTRACE unsigned u64_dec(uint64_t v, char *out) {
  char d[20];
  unsigned n = 0, k = 0;
  do
    d[n++] = (char)('0' + v % 10);
  while ((v /= 10) && n < 20);
  while (n)
    out[k++] = d[--n];
  return k;
}

static UCOV_NOTRACE int put_line(struct ucov_sink *sink, const char *key, uint64_t a, uint64_t b,
                                 int two) {
  char line[80];
  unsigned n = 0;
  while (*key)
    line[n++] = *key++;
  line[n++] = ' ';
  n += u64_dec(a, line + n);
  if (two) {
    line[n++] = ' ';
    n += u64_dec(b, line + n);
  }
  line[n++] = '\n';
  return sink->write(sink, line, n);
}

UCOV_NOTRACE int ucov_objects_commit_record(struct ucov_sink *sink) {
  ucov_port_lock();
  int err = put_line(sink, "issued", last_token, 0, 0);
  if (!err)
    err = put_line(sink, "forgotten_below", forgotten_below, 0, 0);
  for (uint32_t i = 0; !err && i < n_ranges; i++)
    err = put_line(sink, "committed", ranges[i].lo, ranges[i].hi, 1);
  ucov_port_unlock();
  return err;
}
