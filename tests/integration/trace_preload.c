/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD helper of tests/e2e/builds.sh: traces the main thread of an
 * unmodified program built by `ucov cc --trace` from its start, as a KCOV
 * client would trace itself: a device in PC mode, left enabled, whose buffer
 * `ucov pull` fetches (kcov/<id>.kcov) while the program runs. The ucov API
 * is the program's runtime's, looked up with dlsym.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "ucov/kcov.h"

#define WORDS (1ul << 22)

__attribute__((constructor)) static void trace_main_thread(void) {
  int (*u_open)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "ucov_open");
  int (*u_ioctl)(int, unsigned long, unsigned long) =
      (int (*)(int, unsigned long, unsigned long))dlsym(RTLD_DEFAULT, "ucov_ioctl");
  void *(*u_mmap)(void *, size_t, int, int, int, off_t) =
      (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_DEFAULT, "ucov_mmap");
  if (!u_open || !u_ioctl || !u_mmap) {
    fputs("trace_preload: no ucov runtime in this program\n", stderr);
    return;
  }
  int fd = u_open();
  if (fd < 0 || u_ioctl(fd, KCOV_INIT_TRACE, WORDS)) {
    fputs("trace_preload: cannot set up a device\n", stderr);
    return;
  }
  uint64_t *cover = u_mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED || u_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
    fputs("trace_preload: cannot enable tracing\n", stderr);
    return;
  }
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
}
