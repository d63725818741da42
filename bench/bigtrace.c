/* SPDX-License-Identifier: MIT */
/*
 * A target holding one large KCOV trace object (bench/pull_run.sh): a device
 * of WORDS 64-bit words, filled by tracing a loop, then held until stdin
 * ends. Prints "ready <count>" once full.
 * usage: bigtrace WORDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucov/kcov.h"
#include "ucov/ucov.h"

static int step(int i) {
  return i % 3 ? i + 1 : i / 3;
}

int main(int argc, char **argv) {
  unsigned long words = argc > 1 ? strtoul(argv[1], NULL, 0) : 1ul << 22;
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, words))
    return 1;
  uint64_t *buf = mmap(NULL, words * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (buf == MAP_FAILED || ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    return 1;
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  volatile unsigned sink = 0;
  while (__atomic_load_n(&buf[0], __ATOMIC_RELAXED) < words - 1)
    for (int i = 0; i < 4096; i++)
      sink += (unsigned)step(i);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  printf("ready %lu\n", (unsigned long)buf[0]);
  fflush(stdout);
  char b[64];
  while (read(0, b, sizeof(b)) > 0)
    ;
  return sink == 7;
}
