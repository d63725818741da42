/* SPDX-License-Identifier: MIT */
/*
 * Loads LIB with dlopen and traces a call of its lib_work (tests/e2e/dormant.sh):
 *   dl_main LIB before|during
 * before: loaded, then a device enabled; during: loaded while the device is
 * enabled (its sites made live as it is loaded). Then unloaded, loaded
 * again and traced once more. Prints the records of each traced call that
 * fall in the library: "lib N M".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <ucov/ucov.h>

#define WORDS 8192

static uint64_t *cover;
static int fd;

static long traced(const char *lib, int load_while_tracing, void **handle) {
  if (!load_while_tracing && !(*handle = dlopen(lib, RTLD_NOW)))
    return -1;
  if (ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0)
    return -1;
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  if (load_while_tracing && !(*handle = dlopen(lib, RTLD_NOW)))
    return -1;
  long (*work)(int) = (long (*)(int))dlsym(*handle, "lib_work");
  uint64_t start = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  long r = work ? work(20) : -1;
  uint64_t n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  Dl_info info;
  if (r < 0 || !dladdr((void *)work, &info))
    return -1;
  long in_lib = 0;
  for (uint64_t k = start; k < n; k++) {
    Dl_info at;
    in_lib += dladdr((void *)(uintptr_t)cover[k + 1], &at) && at.dli_fbase == info.dli_fbase;
  }
  return in_lib;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  int during = !strcmp(argv[2], "during");
  fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, WORDS) != 0)
    return 1;
  cover = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED)
    return 1;
  void *h = NULL;
  long first = traced(argv[1], during, &h);
  if (h)
    dlclose(h);
  h = NULL;
  long second = traced(argv[1], during, &h);
  printf("lib %ld %ld\n", first, second);
  return first > 0 && second == first ? 0 : 1;
}
