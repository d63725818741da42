/* SPDX-License-Identifier: MIT */
/*
 * Traces maybe(ARG) of tail.c (this file is not instrumented) and prints
 * the PCs recorded, one a line, and the module map into FILE; "indirect":
 * through a function pointer (the call's return address names no callee).
 * usage: tail_main FILE ARG [indirect]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ucov/ucov.h>

void maybe(int x);

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4)
    return 2;
  void (*volatile call)(int) = maybe;
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, 4096))
    return 1;
  uint64_t *cover = mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED || ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    return 1;
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  if (argc == 4)
    call(atoi(argv[2]));
  else
    maybe(atoi(argv[2]));
  uint64_t n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  for (uint64_t k = 0; k < n; k++)
    printf("0x%llx\n", (unsigned long long)cover[k + 1]);
  int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  return out >= 0 && ucov_modules_write(out) == 0 && close(out) == 0 ? 0 : 1;
}
