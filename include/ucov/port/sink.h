/* SPDX-License-Identifier: MIT */
/*
 * One writer interface for every serializer of the core: a file, a socket
 * reply, a FUSE snapshot and a test buffer are all sinks.
 */
#ifndef UCOV_SINK_H
#define UCOV_SINK_H

#include <stddef.h>
#include <stdint.h>

struct ucov_sink {
  /* Append n bytes; returns 0 or a negative errno value (which the writer returns). */
  int (*write)(struct ucov_sink *sink, const void *data, size_t n);
  /*
   * Optional (NULL: none): exactly `more` bytes follow what was written so
   * far. A sink that has this (a socket reply, which sends them as they
   * come) is also written to without the port lock: the core then copies a
   * large object (a trace buffer) in bounded pieces, taking the lock for
   * each. 0 or a negative errno value.
   */
  int (*total)(struct ucov_sink *sink, uint64_t more);
};

/* A sink that only counts bytes: what SIZE answers. */
struct ucov_count_sink {
  struct ucov_sink sink;
  uint64_t bytes;
};

void ucov_count_sink_init(struct ucov_count_sink *s);

/* A sink into memory from the port (ucov_port_alloc), grown as needed: a
 * reply on a byte transport, a unit serialized whole before its size is
 * written. Free buf with ucov_port_free. */
struct ucov_buf_sink {
  struct ucov_sink sink;
  uint8_t *buf;
  size_t len, cap;
};

void ucov_buf_sink_init(struct ucov_buf_sink *s);

#endif
