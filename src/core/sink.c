/* SPDX-License-Identifier: MIT */
/* The core's sinks that need no port service but memory: counting, growing (see sink.h). */
#include "ucov/port/sink.h"

#include "ucov/port/compiler.h"
#include "ucov/port/port.h"

static UCOV_NOTRACE int count_write(struct ucov_sink *s, const void *data, size_t n) {
  (void)data;
  ((struct ucov_count_sink *)s)->bytes += n;
  return 0;
}

UCOV_NOTRACE void ucov_count_sink_init(struct ucov_count_sink *s) {
  s->sink.write = count_write;
  s->sink.total = 0;
  s->bytes = 0;
}

static UCOV_NOTRACE int buf_write(struct ucov_sink *s, const void *data, size_t n) {
  struct ucov_buf_sink *g = (struct ucov_buf_sink *)s;
  if (n > g->cap - g->len) {
    if (n > ((size_t)-1 >> 2) - g->len)
      return -UCOV_ENOMEM; /* no doubling would hold it */
    size_t cap = g->cap ? g->cap : 4096;
    while (cap - g->len < n)
      cap *= 2;
    uint8_t *b = ucov_port_alloc(cap);
    if (!b)
      return -UCOV_ENOMEM;
    for (size_t i = 0; i < g->len; i++)
      b[i] = g->buf[i];
    ucov_port_free(g->buf);
    g->buf = b;
    g->cap = cap;
  }
  const uint8_t *p = data;
  for (size_t i = 0; i < n; i++)
    g->buf[g->len + i] = p[i];
  g->len += n;
  return 0;
}

UCOV_NOTRACE void ucov_buf_sink_init(struct ucov_buf_sink *s) {
  s->sink.write = buf_write;
  s->sink.total = 0;
  s->buf = 0;
  s->len = s->cap = 0;
}
