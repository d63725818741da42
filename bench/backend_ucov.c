/* SPDX-License-Identifier: MIT */
/* ucov: a KCOV device in KCOV_TRACE_PC mode. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "backend.h"
#include "ucov/ucov.h"

static int fd = -1;

uint64_t *backend_start(uint64_t words, uint64_t unique_words) {
  fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, words) != 0) {
    perror("ucov");
    exit(1);
  }
  uint64_t *a = mmap(NULL, words * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (a == MAP_FAILED || (unique_words ? ucov_ioctl(fd, KCOV_UNIQUE_ENABLE, unique_words)
                                       : ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC)) != 0) {
    perror("ucov");
    exit(1);
  }
  return a + unique_words;
}

void backend_stop(void) {
  ucov_ioctl(fd, KCOV_DISABLE, 0);
}
