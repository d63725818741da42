/* SPDX-License-Identifier: MIT */
/*
 * A target that forks while its control server is busy (tests/e2e/hostile.sh):
 * it fills a KCOV buffer (a large object: kcov/1.kcov), says "ready", and on
 * each line of stdin forks a child that prints its pid and lives SECONDS
 * (the line's number) before exiting; the parent prints how long the child
 * took from its last instruction to being reaped, in ms.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ucov/kcov.h"
#include "ucov/ucov.h"

#define WORDS (1u << 21)

static int work(int i) {
  return i % 7 ? i * 3 : i - 1;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void) {
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, WORDS))
    return 1;
  uint64_t *buf = mmap(NULL, WORDS * 8ul, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (buf == MAP_FAILED || ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    return 1;
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  volatile unsigned sink = 0;
  for (int i = 0; i < (int)WORDS; i++)
    sink += (unsigned)work(i);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  printf("ready %lu\n", (unsigned long)buf[0]);
  fflush(stdout);
  char line[64];
  while (fgets(line, sizeof(line), stdin)) {
    int secs = atoi(line);
    pid_t child = fork();
    if (child == 0) {
      printf("child %d\n", (int)getpid());
      fflush(stdout);
      sleep((unsigned)secs);
      printf("exiting %.6f\n", now());
      fflush(stdout);
      return 0; /* the exit: runtime's atexit work, then reaped */
    }
    int st;
    waitpid(child, &st, 0);
    printf("reaped %.6f\n", now());
    fflush(stdout);
  }
  return sink == 42;
}
