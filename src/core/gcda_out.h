/* SPDX-License-Identifier: MIT */
/* A buffered word writer over a sink, shared by the .gcda serializers. */
#ifndef UCOV_CORE_GCDA_OUT_H
#define UCOV_CORE_GCDA_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "gcov_abi.h"
#include "sink.h"

struct gcda_out {
  struct ucov_sink *sink;
  int err;
  size_t n;
  uint8_t buf[4096];
};

/* Not zero-initialized: the 4 KiB buffer needs no memset (no libc in the core). */
static inline UCOV_NOTRACE void out_init(struct gcda_out *o, struct ucov_sink *sink) {
  o->sink = sink;
  o->err = 0;
  o->n = 0;
}

static inline UCOV_NOTRACE void out_flush(struct gcda_out *o) {
  if (o->n && !o->err)
    o->err = o->sink->write(o->sink, o->buf, o->n);
  o->n = 0;
}

static inline UCOV_NOTRACE void out_bytes(struct gcda_out *o, const void *p, size_t n) {
  const uint8_t *b = p;
  if (n >= sizeof(o->buf)) {
    /* A large block (a section's bytes) goes to the sink as it is. */
    out_flush(o);
    if (!o->err)
      o->err = o->sink->write(o->sink, b, n);
    return;
  }
  while (n) {
    if (o->n == sizeof(o->buf))
      out_flush(o);
    /* A byte loop: the core has no memcpy (it links with -nostdlib). */
    size_t k = sizeof(o->buf) - o->n < n ? sizeof(o->buf) - o->n : n;
    for (size_t i = 0; i < k; i++)
      o->buf[o->n + i] = b[i];
    o->n += k;
    b += k;
    n -= k;
  }
}

/* Words go straight into the buffer (a constant-size copy is one store). */
static inline UCOV_NOTRACE void out_u32(struct gcda_out *o, uint32_t v) {
  if (UCOV_LIKELY(o->n + 4 <= sizeof(o->buf))) {
    __builtin_memcpy(o->buf + o->n, &v, 4);
    o->n += 4;
    return;
  }
  out_bytes(o, &v, 4);
}

static inline UCOV_NOTRACE void out_u64(struct gcda_out *o, uint64_t v) {
  if (UCOV_LIKELY(o->n + 8 <= sizeof(o->buf))) {
    __builtin_memcpy(o->buf + o->n, &v, 8);
    o->n += 8;
    return;
  }
  out_bytes(o, &v, 8);
}

/* 64-bit counters: low word first. */
static inline UCOV_NOTRACE void out_counter(struct gcda_out *o, gcov_type v) {
  out_u32(o, (uint32_t)v);
  out_u32(o, (uint32_t)((uint64_t)v >> 32));
}

#endif
