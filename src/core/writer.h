/* SPDX-License-Identifier: MIT */
/*
 * The core's one buffered writer over a sink, for every serializer: .gcda
 * (gcc's and clang's), the LLVM raw profile, trace dumps. Bytes and host-order
 * words go into a buffer on the stack (4 KiB; a port with small stacks, a
 * kernel's, builds with a smaller UCOV_WRITER_BUF); large blocks go to the
 * sink as they are. The first error sticks (err) and later writes are dropped.
 */
#ifndef UCOV_CORE_WRITER_H
#define UCOV_CORE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/port/sink.h"

#ifndef UCOV_WRITER_BUF
#define UCOV_WRITER_BUF 4096
#endif

struct ucov_writer {
  struct ucov_sink *sink;
  int err;
  size_t n;
  uint8_t buf[UCOV_WRITER_BUF];
};

/* Not zero-initialized: the buffer needs no memset (no libc in the core). */
static inline UCOV_NOTRACE void ucov_w_init(struct ucov_writer *o, struct ucov_sink *sink) {
  o->sink = sink;
  o->err = 0;
  o->n = 0;
}

static inline UCOV_NOTRACE void ucov_w_flush(struct ucov_writer *o) {
  if (o->n && !o->err)
    o->err = o->sink->write(o->sink, o->buf, o->n);
  o->n = 0;
}

static inline UCOV_NOTRACE void ucov_w_bytes(struct ucov_writer *o, const void *p, size_t n) {
  const uint8_t *b = p;
  if (n >= sizeof(o->buf)) {
    /* A large block (a section's bytes) goes to the sink as it is. */
    ucov_w_flush(o);
    if (!o->err)
      o->err = o->sink->write(o->sink, b, n);
    return;
  }
  while (n) {
    if (o->n == sizeof(o->buf))
      ucov_w_flush(o);
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
static inline UCOV_NOTRACE void ucov_w_u32(struct ucov_writer *o, uint32_t v) {
  if (UCOV_LIKELY(o->n + 4 <= sizeof(o->buf))) {
    __builtin_memcpy(o->buf + o->n, &v, 4);
    o->n += 4;
    return;
  }
  ucov_w_bytes(o, &v, 4);
}

static inline UCOV_NOTRACE void ucov_w_u64(struct ucov_writer *o, uint64_t v) {
  if (UCOV_LIKELY(o->n + 8 <= sizeof(o->buf))) {
    __builtin_memcpy(o->buf + o->n, &v, 8);
    o->n += 8;
    return;
  }
  ucov_w_bytes(o, &v, 8);
}

/* A 64-bit value as two 32-bit words, low word first (.gcda counters). */
static inline UCOV_NOTRACE void ucov_w_counter(struct ucov_writer *o, int64_t v) {
  ucov_w_u32(o, (uint32_t)v);
  ucov_w_u32(o, (uint32_t)((uint64_t)v >> 32));
}

#endif
