/* SPDX-License-Identifier: MIT */
/*
 * The kernel benches' guest programs (kernel_reads.c, kernel_syscalls.c):
 * this task tracing its PCs into a KCOV area of KCOV_BENCH_WORDS words,
 * mapped, or the program ends saying why.
 */
#ifndef UCOV_BENCH_KCOV_TRACE_H
#define UCOV_BENCH_KCOV_TRACE_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "ucov/kcov.h"

#define KCOV_BENCH_WORDS (64 << 10)

static uint64_t *kcov_trace_pc_self(void) {
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd < 0 || ioctl(fd, KCOV_INIT_TRACE, KCOV_BENCH_WORDS))
    perror("kcov"), exit(1);
  uint64_t *cover = mmap(NULL, KCOV_BENCH_WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED || ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    perror("kcov enable"), exit(1);
  return cover;
}

#endif
