/* SPDX-License-Identifier: MIT */
/*
 * Fills a KCOV buffer of WORDS words with PCs (PC mode), disables it, prints
 * "ready <count>" and waits for a line on stdin, the buffer a trace object
 * (kcov/<id>.kcov) meanwhile (tests/e2e/bigtrace.sh).
 *   fill WORDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ucov/kcov.h"
#include "ucov/ucov.h"

static volatile int sink;

static void step(int i) {
  if (i & 1)
    sink += i;
  else
    sink -= i;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  unsigned long words = strtoul(argv[1], NULL, 10);
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, words))
    return 1;
  unsigned long *cover = ucov_mmap(NULL, words * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED || ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    return 1;
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  for (int i = 0; __atomic_load_n(&cover[0], __ATOMIC_RELAXED) < words - 1; i++)
    step(i);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  printf("ready %lu\n", __atomic_load_n(&cover[0], __ATOMIC_RELAXED));
  fflush(stdout);
  char line[8];
  if (!fgets(line, sizeof(line), stdin))
    return 0;
  return 0;
}
