/* SPDX-License-Identifier: MIT */
/* Sinks of the POSIX port: a growable in-memory one (serialize first, then
 * write or send), and a file descriptor. */
#ifndef UCOV_POSIX_MEMSINK_H
#define UCOV_POSIX_MEMSINK_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/sink.h"

struct ucov_mem_sink {
  struct ucov_sink sink;
  uint8_t *data;
  size_t len, cap;
};

void ucov_mem_sink_init(struct ucov_mem_sink *s);
void ucov_mem_sink_free(struct ucov_mem_sink *s);

/* Make room for n more bytes at once (a size known in advance). 0 or -ENOMEM. */
int ucov_mem_sink_reserve(struct ucov_mem_sink *s, size_t n);

/* A sink writing straight to a file descriptor (write(2), EINTR retried). */
struct ucov_fd_sink {
  struct ucov_sink sink;
  int fd;
};

void ucov_fd_sink_init(struct ucov_fd_sink *s, int fd);

#endif
