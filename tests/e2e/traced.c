/* SPDX-License-Identifier: MIT */
/*
 * The program kcovtrace.sh execs under a tracer: deterministic work. With
 * DIRECT=1 it traces that work itself (ucov's API) and prints its PCs, the
 * reference; with KCOV_FD=N it checks that descriptor N, inherited across
 * exec, is a device here too: an initialised one (INIT_TRACE is EBUSY), which
 * this thread may DISABLE, as on Linux.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ucov/kcov.h"
#include "ucov/ucov.h"

__attribute__((noinline)) static int work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i % 3 ? i : -i;
  return s > 1000 ? 1 : 0;
}

#include <errno.h>

int main(void) {
  const char *kfd = getenv("KCOV_FD");
  if (!getenv("DIRECT")) {
    int r = work(40);
    if (kfd && (ucov_ioctl(atoi(kfd), KCOV_INIT_TRACE, 64) == 0 || errno != EBUSY ||
                ucov_ioctl(atoi(kfd), KCOV_DISABLE, 0) != 0))
      return 3;
    return r;
  }
  int fd = ucov_open();
  uint64_t *buf = NULL;
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, 1 << 16) ||
      (buf = ucov_mmap(NULL, 8 << 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED ||
      ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    return 1;
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  int r = work(40);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  for (uint64_t i = 0; i < buf[0]; i++)
    printf("0x%lx\n", (unsigned long)buf[i + 1]);
  return r;
}
