/* SPDX-License-Identifier: MIT */
/*
 * A KCOV client that is neither instrumented nor linked with the runtime (a
 * fuzzer that only creates devices and hands them to its targets). Under
 * LD_PRELOAD=libucov-kcov.so it gets working devices from the libucov.so
 * beside the shim; its own code records nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcov.h>
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
  return check_report("kcov_client_plain");
}
