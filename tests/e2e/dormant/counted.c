/* SPDX-License-Identifier: MIT */
/*
 * gcov's and LLVM's counters in a dormant build (tests/e2e/dormant.sh): the
 * same work before a KCOV enable (plain bodies, in a twins build), while
 * traced (the twins) and after the disable (plain bodies again), N calls
 * each; the counters must count every call once, as a build without
 * --dormant does. Prints the result and the records traced.
 *
 * usage: counted N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <ucov/ucov.h>

#include "work.h"

#define WORDS (1u << 20)

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long s = work_loop(n);
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, WORDS) != 0)
    return 1;
  uint64_t *cover = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED || ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0)
    return 1;
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  s += work_loop(n);
  uint64_t records = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  if (ucov_ioctl(fd, KCOV_DISABLE, 0) != 0)
    return 1;
  s += work_loop(n);
  printf("counted: %ld, %llu records\n", s, (unsigned long long)records);
  return 0;
}
