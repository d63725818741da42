/* SPDX-License-Identifier: MIT */
/* The host tool's growable arrays and string hash (see util.h). */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ucov_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first) {
  if (n < *cap)
    return 0;
  size_t c = *cap ? *cap : (first ? first : 1);
  while (c <= n) {
    if (c > SIZE_MAX / 2)
      return -1;
    c *= 2;
  }
  if (elem && c > SIZE_MAX / elem)
    return -1;
  void *p = realloc(*arr, c * elem);
  if (!p)
    return -1;
  *arr = p;
  *cap = c;
  return 0;
}

uint64_t ucov_hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

const char *ucov_cmd = "ucov";

void ucov_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", ucov_cmd);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
}

FILE *ucov_fopen_regular(const char *path) {
  return ucov_fdopen_regular(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
}

FILE *ucov_fdopen_regular(int fd) {
  if (fd < 0)
    return NULL;
  struct stat st;
  int err = 0;
  if (fstat(fd, &st))
    err = errno;
  else if (S_ISDIR(st.st_mode))
    err = EISDIR;
  else if (!S_ISREG(st.st_mode))
    err = UCOV_ENOTREG;
  else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
    err = errno;
  FILE *f = err ? NULL : fdopen(fd, "r");
  if (!f) {
    err = err ? err : errno;
    close(fd);
    errno = err;
  }
  return f;
}

const char *ucov_strerror(int err) {
  return err == UCOV_ENOTREG ? "not a regular file" : strerror(err);
}

char *ucov_read_text(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return NULL;
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
      (uint64_t)st.st_size <= UCOV_MAX_TEXT && (buf = malloc((size_t)st.st_size + 1))) {
    size_t n = 0;
    while (n < (size_t)st.st_size) {
      ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      n += (size_t)r;
    }
    buf[n] = 0;
    *len = n;
  }
  close(fd);
  return buf;
}
