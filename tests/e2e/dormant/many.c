/* SPDX-License-Identifier: MIT */
/*
 * Many dormant modules (tests/e2e/dormant.sh): loads N copies of a dormant
 * library (./many/libN.so), enables a KCOV device and calls each copy's
 * function: every one must be live (records in the trace). Prints
 * "many: N modules, K traced".
 *   many N
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <ucov/ucov.h>

#define WORDS 4096

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 0, traced = 0;
  int fd = ucov_open();
  if (n <= 0 || fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, WORDS) != 0)
    return 2;
  uint64_t *cover = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED)
    return 2;
  int (**fns)(int) = calloc((size_t)n, sizeof(*fns));
  for (int i = 0; fns && i < n; i++) {
    char path[64];
    snprintf(path, sizeof(path), "./many/lib%d.so", i);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h || !(fns[i] = (int (*)(int))dlsym(h, "many_work"))) {
      fprintf(stderr, "%s: %s\n", path, dlerror());
      return 1;
    }
  }
  if (ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0) {
    perror("KCOV_ENABLE");
    return 1;
  }
  for (int i = 0; i < n; i++) {
    __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
    int r = fns[i](i);
    if (__atomic_load_n(&cover[0], __ATOMIC_RELAXED) > 0 && r == i * 3 + 1)
      traced++;
    else
      fprintf(stderr, "module %d: no records\n", i);
  }
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  free(fns);
  printf("many: %d modules, %d traced\n", n, traced);
  return traced == n ? 0 : 1;
}
