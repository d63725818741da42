/* SPDX-License-Identifier: MIT */
/*
 * Reads of the demo device per second, in the guest (bench/kernel_run.sh):
 * each read evaluates the expression last written (pread at offset 0), in
 * the demo module's parser. MODE untraced: nobody traces; traced: this task
 * traces its reads into a KCOV buffer (KCOV_TRACE_PC), its count reset
 * before each read, as a fuzzer's executor does.
 * Prints "reads MODE N SECONDS".
 * usage: kernel_reads MODE SECONDS
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kcov_trace.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  int traced = !strcmp(argv[1], "traced");
  double seconds = atof(argv[2]);
  const char *e = "2 * (3 + 4) - 10 / 5 + ((7 % 3) * 11 - 4) / 2";
  int d = open("/dev/ucov-demo", O_RDWR);
  if (d < 0 || write(d, e, strlen(e)) != (ssize_t)strlen(e))
    perror("demo"), exit(1);
  uint64_t *cover = NULL;
  if (traced)
    cover = kcov_trace_pc_self();
  char out[64];
  long n = 0;
  double start = now(), end = start + seconds, t;
  do {
    for (int i = 0; i < 64; i++) {
      if (cover)
        __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
      if (pread(d, out, sizeof(out), 0) <= 0)
        perror("read"), exit(1);
    }
    n += 64;
  } while ((t = now()) < end);
  printf("reads %s %ld %.3f\n", argv[1], n, t - start);
  return 0;
}
