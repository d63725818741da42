/* SPDX-License-Identifier: MIT */
/*
 * A syscall loop in the guest (bench/kernel_builtin_run.sh): read(-1, NULL,
 * 0), whose path in vmlinux is instrumented, timed over N calls, ROUNDS
 * times; prints "syscalls MODE NS" per round, NS the nanoseconds per call.
 * MODE idle: nobody traces; traced: this task has KCOV_ENABLE(TRACE_PC)
 * and resets the count before each call, as syzkaller's executor does.
 * usage: kernel_syscalls idle|traced N ROUNDS
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

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  int traced = !strcmp(argv[1], "traced");
  long n = atol(argv[2]), rounds = atol(argv[3]);
  uint64_t *cover = NULL;
  if (traced)
    cover = kcov_trace_pc_self();
  for (long r = 0; r < rounds; r++) {
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
      if (cover)
        __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
      if (read(-1, NULL, 0) != -1)
        return 1;
    }
    printf("syscalls %s %.1f\n", argv[1], (now_ns() - t0) / n);
  }
  return 0;
}
