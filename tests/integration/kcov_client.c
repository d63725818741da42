/* SPDX-License-Identifier: MIT */
/*
 * An unmodified KCOV client, written against <linux/kcov.h> only, as in the
 * kernel's Documentation/dev-tools/kcov.rst. Run under
 * LD_PRELOAD=libucov-kcov.so it traces the instrumented code it calls.
 * (The checks at the end use the test helpers to name PCs.)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcov.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"
#include "../testlib.h"
#include "target.h"

#define COVER_SIZE (64 << 10)

int main(void) {
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd == -1) {
    perror("open");
    return 1;
  }
  /* Not yet initialised: mmap and enable fail as on Linux. */
  CHECK(mmap(NULL, COVER_SIZE * sizeof(unsigned long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
            MAP_FAILED &&
        errno == EINVAL);
  CHECK(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) == -1 && errno == EINVAL);
  if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
    perror("ioctl"), exit(1);
  /* A wrong length is refused. */
  CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
        errno == EINVAL);
  unsigned long *cover = (unsigned long *)mmap(NULL, COVER_SIZE * sizeof(unsigned long),
                                               PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if ((void *)cover == MAP_FAILED)
    perror("mmap"), exit(1);
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    perror("ioctl"), exit(1);
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  tgt_root(5);
  unsigned long n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  if (ioctl(fd, KCOV_DISABLE, 0))
    perror("ioctl"), exit(1);
  CHECK(n > 5);
  int leaf = 0;
  for (unsigned long i = 0; i < n; i++) {
    CHECK(strncmp(pc_function(cover[i + 1]), "tgt_", 4) == 0);
    leaf += pc_in(cover[i + 1], "tgt_leaf");
  }
  CHECK(leaf >= 3);

  /* Comparison operands. */
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP))
    perror("ioctl"), exit(1);
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  tgt_cmp_const8(0x47);
  n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  ioctl(fd, KCOV_DISABLE, 0);
  int found = 0;
  for (unsigned long i = 0; i < n; i++) {
    unsigned long *r = &cover[1 + i * 4];
    found |= r[0] == (KCOV_CMP_SIZE(0) | KCOV_CMP_CONST) && r[1] == 0x5a && r[2] == 0x47;
  }
  CHECK(found);
  /* Errors reach the client as from the kernel. */
  CHECK(ioctl(fd, KCOV_DISABLE, 0) == -1 && errno == EINVAL);
  CHECK(ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE) == -1 && errno == EBUSY);
  CHECK(ioctl(fd, 0x6399, 0) == -1 && errno == ENOTTY);

  if (munmap(cover, COVER_SIZE * sizeof(unsigned long)))
    perror("munmap"), exit(1);
  if (close(fd))
    perror("close"), exit(1);

  /* Everything else still reaches libc. */
  int nul = open("/dev/null", O_RDONLY);
  CHECK(nul >= 0);
  CHECK(ioctl(nul, KCOV_ENABLE, 0) == -1 && errno == ENOTTY);
  close(nul);
  CHECK(open("/nonexistent/file", O_RDONLY) == -1 && errno == ENOENT);
  return check_report("kcov_client");
}
