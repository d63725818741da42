/* SPDX-License-Identifier: MIT */
/* A growable in-memory sink (POSIX port): serialize first, then write or send. */
#ifndef UCOV_POSIX_MEMSINK_H
#define UCOV_POSIX_MEMSINK_H

#include <stddef.h>
#include <stdint.h>

#include "../core/sink.h"

struct mem_sink {
  struct ucov_sink sink;
  uint8_t *data;
  size_t len, cap;
};

void mem_sink_init(struct mem_sink *s);
void mem_sink_free(struct mem_sink *s);

/* Make room for n more bytes at once (a size known in advance). 0 or -ENOMEM. */
int mem_sink_reserve(struct mem_sink *s, size_t n);

#endif
