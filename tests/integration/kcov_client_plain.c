/* SPDX-License-Identifier: MIT */
/*
 * A KCOV client that is neither instrumented nor linked with the runtime (a
 * fuzzer that only creates devices and hands them to its targets). Under
 * LD_PRELOAD=libucov-kcov.so it gets working devices from the libucov.so
 * beside the shim; its own code records nothing. A thread it makes with
 * pthread_create inherits the common handle of a REMOTE_ENABLE, as a Linux
 * task inherits kcov_handle (read back through the runtime's API by name).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcov.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"

#define COVER_SIZE 1024

static volatile int sink;

static void busy(void) {
  for (int i = 0; i < 1000; i++)
    sink += i & 3 ? 1 : 2;
}

static void *thread_handle(void *arg) {
  uint64_t (*get)(void) = (uint64_t(*)(void))dlsym(RTLD_DEFAULT, "ucov_common_handle");
  *(uint64_t *)arg = get ? get() : ~0ull;
  return NULL;
}

int main(void) {
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd == -1) {
    perror("open");
    return 1;
  }
  CHECK(fcntl(fd, F_GETFD) == 0); /* opened without O_CLOEXEC: inheritable */
  CHECK(ioctl(fd, KCOV_INIT_TRACE, 1) == -1 && errno == EINVAL);
  CHECK(ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE) == 0);
  unsigned long *cover =
      mmap(NULL, COVER_SIZE * sizeof(unsigned long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(cover != MAP_FAILED);
  CHECK(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) == 0);
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  busy();
  CHECK(__atomic_load_n(&cover[0], __ATOMIC_RELAXED) == 0);
  CHECK(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) == -1 && errno == EINVAL);
  CHECK(ioctl(fd, KCOV_DISABLE, 0) == 0);
  CHECK(munmap(cover, COVER_SIZE * sizeof(unsigned long)) == 0);
  CHECK(close(fd) == 0);

  /* REMOTE with only a common handle; a thread made afterwards has it. */
  int rfd = open("/sys/kernel/debug/kcov", O_RDWR);
  CHECK(rfd >= 0 && ioctl(rfd, KCOV_INIT_TRACE, COVER_SIZE) == 0);
  void *area =
      mmap(NULL, COVER_SIZE * sizeof(unsigned long), PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
  CHECK(area != MAP_FAILED);
  struct kcov_remote_arg arg = {.trace_mode = KCOV_TRACE_PC,
                                .area_size = COVER_SIZE,
                                .num_handles = 0,
                                .common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 0x42)};
  CHECK(ioctl(rfd, KCOV_REMOTE_ENABLE, &arg) == 0);
  uint64_t seen = 0;
  pthread_t th;
  CHECK(pthread_create(&th, NULL, thread_handle, &seen) == 0 && pthread_join(th, NULL) == 0);
  CHECK(seen == arg.common_handle);
  CHECK(ioctl(rfd, KCOV_DISABLE, 0) == 0);
  CHECK(close(rfd) == 0);
  return check_report("kcov_client_plain");
}
