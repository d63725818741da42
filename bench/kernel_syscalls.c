/* SPDX-License-Identifier: MIT */
/*
 * A syscall loop in the guest (bench/kernel_builtin_run.sh): read(-1, NULL,
 * 0), whose path in vmlinux is instrumented, timed over N calls, ROUNDS
 * times; prints "syscalls MODE NS" per round, NS the nanoseconds per call.
 * MODE idle: nobody traces; traced: this task has KCOV_ENABLE(TRACE_PC)
 * and resets the count before each call, as syzkaller's executor does;
 * dd: nobody traces, and a call is what `dd if=/dev/zero of=/dev/null
 * bs=512` makes of each block, a read of /dev/zero and a write to
 * /dev/null (bench/kernel_pgo_run.sh: the workload a PGO kernel was
 * trained on); open: nobody traces, and a call opens /bin/busybox and
 * closes it (a path walk, which that training did not run in a loop).
 * usage: kernel_syscalls idle|traced|dd|open N ROUNDS
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
  int traced = !strcmp(argv[1], "traced"), dd = !strcmp(argv[1], "dd"),
      op = !strcmp(argv[1], "open");
  int zero = dd ? open("/dev/zero", O_RDONLY) : -1, null = dd ? open("/dev/null", O_WRONLY) : -1;
  static char block[512];
  if (dd && (zero < 0 || null < 0))
    return 1;
  long n = atol(argv[2]), rounds = atol(argv[3]);
  uint64_t *cover = NULL;
  if (traced)
    cover = kcov_trace_pc_self();
  for (long r = 0; r < rounds; r++) {
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
      if (cover)
        __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
      if (dd) {
        if (read(zero, block, sizeof(block)) != (ssize_t)sizeof(block) ||
            write(null, block, sizeof(block)) != (ssize_t)sizeof(block))
          return 1;
      } else if (op) {
        int fd = open("/bin/busybox", O_RDONLY);
        if (fd < 0 || close(fd))
          return 1;
      } else if (read(-1, NULL, 0) != -1)
        return 1;
    }
    printf("syscalls %s %.1f\n", argv[1], (now_ns() - t0) / n);
  }
  return 0;
}
