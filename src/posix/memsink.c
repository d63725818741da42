/* SPDX-License-Identifier: MIT */
/* The POSIX port's sinks: a growable in-memory one, a file descriptor. */
#include "memsink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ucov/port/compiler.h"

static UCOV_NOTRACE int mem_write(struct ucov_sink *sink, const void *data, size_t n) {
  struct ucov_mem_sink *s = (struct ucov_mem_sink *)sink;
  if (n > s->cap - s->len) {
    size_t cap = s->cap ? s->cap : 4096;
    while (cap - s->len < n)
      cap *= 2;
    uint8_t *p = realloc(s->data, cap);
    if (!p)
      return -ENOMEM;
    s->data = p;
    s->cap = cap;
  }
  memcpy(s->data + s->len, data, n);
  s->len += n;
  return 0;
}

UCOV_NOTRACE int ucov_mem_sink_reserve(struct ucov_mem_sink *s, size_t n) {
  if (n <= s->cap - s->len)
    return 0;
  uint8_t *p = realloc(s->data, s->len + n);
  if (!p)
    return -ENOMEM;
  s->data = p;
  s->cap = s->len + n;
  return 0;
}

UCOV_NOTRACE void ucov_mem_sink_init(struct ucov_mem_sink *s) {
  s->sink.write = mem_write;
  s->sink.total = NULL;
  s->data = NULL;
  s->len = s->cap = 0;
}

UCOV_NOTRACE void ucov_mem_sink_free(struct ucov_mem_sink *s) {
  free(s->data);
  ucov_mem_sink_init(s);
}

static UCOV_NOTRACE int fd_write(struct ucov_sink *sink, const void *data, size_t n) {
  const char *p = data;
  int fd = ((struct ucov_fd_sink *)sink)->fd;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

UCOV_NOTRACE void ucov_fd_sink_init(struct ucov_fd_sink *s, int fd) {
  s->sink.write = fd_write;
  s->sink.total = NULL;
  s->fd = fd;
}
