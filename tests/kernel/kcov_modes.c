/* SPDX-License-Identifier: MIT */
/*
 * The other modes of /sys/kernel/debug/kcov on the demo module (its demo.c
 * built with -finstrument-functions too): KCOV_TRACE_PC_EXT, where one read
 * of the demo device gives as many ENTRY as EXIT records and NORMAL ones, all
 * at addresses in the module's text (TEXT, given); and UNIQUE, where a second
 * identical read adds no PC. Prints "ext ENTRY EXIT NORMAL" and "unique
 * FIRST SECOND", or what failed.
 * usage: kcov_modes TEXT
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucov/kcov.h"

#define WORDS (64 << 10)
#define BITMAP 1024 /* UNIQUE bitmap words */

static uint64_t *open_area(int *fd) {
  *fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (*fd < 0 || ioctl(*fd, KCOV_INIT_TRACE, WORDS))
    return NULL;
  void *a = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
  return a == MAP_FAILED ? NULL : a;
}

static int read_demo(void) {
  char buf[64];
  int d = open("/dev/ucov-demo", O_RDONLY);
  int ok = d >= 0 && read(d, buf, sizeof(buf)) > 0;
  if (d >= 0)
    close(d);
  return ok ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  uint64_t text = strtoull(argv[1], NULL, 16);
  int fd;
  uint64_t *a = open_area(&fd);
  if (!a || ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC_EXT)) {
    perror("ext");
    return 1;
  }
  __atomic_store_n(&a[0], 0, __ATOMIC_RELAXED);
  if (read_demo())
    return 1;
  uint64_t n = __atomic_load_n(&a[0], __ATOMIC_RELAXED), entry = 0, exits = 0, normal = 0;
  ioctl(fd, KCOV_DISABLE, 0);
  for (uint64_t i = 0; i < n; i++) {
    uint64_t type = KCOV_RECORD_TYPE(a[1 + i]), pc = KCOV_RECORD_PC(a[1 + i]);
    if (pc < text || pc >= text + (1u << 20)) {
      printf("ext record outside the module: 0x%llx\n", (unsigned long long)a[1 + i]);
      return 1;
    }
    entry += type == KCOV_RECORD_ENTRY;
    exits += type == KCOV_RECORD_EXIT;
    normal += type == KCOV_RECORD_NORMAL;
  }
  printf("ext %llu %llu %llu\n", (unsigned long long)entry, (unsigned long long)exits,
         (unsigned long long)normal);
  munmap(a, WORDS * 8);
  close(fd);

  a = open_area(&fd);
  if (!a || ioctl(fd, KCOV_UNIQUE_ENABLE, BITMAP)) {
    perror("unique");
    return 1;
  }
  uint64_t *trace = a + BITMAP;
  if (read_demo())
    return 1;
  uint64_t first = __atomic_load_n(&trace[0], __ATOMIC_RELAXED);
  if (read_demo())
    return 1;
  uint64_t second = __atomic_load_n(&trace[0], __ATOMIC_RELAXED) - first;
  ioctl(fd, KCOV_DISABLE, 0);
  printf("unique %llu %llu\n", (unsigned long long)first, (unsigned long long)second);
  return 0;
}
