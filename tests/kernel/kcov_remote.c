/* SPDX-License-Identifier: MIT */
/*
 * kcov.rst's third program (remote coverage: KCOV_REMOTE_ENABLE with a
 * common handle), with its one change for ucov.ko: the kernel work it
 * collects is the demo module's, which evaluates an expression written with a
 * leading '&' in a work item, inside kcov_remote_start_common() of the
 * writer's common handle (as vhost does for its owner). Prints "remote N M":
 * the PCs collected, and how many are in the module's text (TEXT, given).
 * usage: kcov_remote TEXT
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucov/kcov.h"

#define COVER_SIZE (64 << 10)

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  uint64_t text = strtoull(argv[1], NULL, 16);
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd == -1)
    perror("open"), exit(1);
  if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
    perror("ioctl"), exit(1);
  uint64_t *cover =
      mmap(NULL, COVER_SIZE * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if ((void *)cover == MAP_FAILED)
    perror("mmap"), exit(1);
  /* Enable coverage collection via common handle and from the work items
   * that act for it. */
  struct kcov_remote_arg *arg = calloc(1, sizeof(*arg) + sizeof(uint64_t));
  if (!arg)
    perror("calloc"), exit(1);
  arg->trace_mode = KCOV_TRACE_PC;
  arg->area_size = COVER_SIZE;
  arg->num_handles = 1;
  arg->common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 0x42);
  arg->handles[0] = kcov_remote_handle(KCOV_SUBSYSTEM_USB, 1);
  if (ioctl(fd, KCOV_REMOTE_ENABLE, arg))
    perror("ioctl"), exit(1);
  free(arg);
  /* The kernel work: the demo module's, done for this task's handle. */
  int demo = open("/dev/ucov-demo", O_WRONLY);
  const char *e = "&2 * (3 + 4) - 10 / 5";
  if (demo == -1 || write(demo, e, strlen(e)) != (ssize_t)strlen(e))
    perror("demo"), exit(1);
  close(demo);
  uint64_t n = __atomic_load_n(&cover[0], __ATOMIC_ACQUIRE), in = 0;
  for (uint64_t i = 0; i < n; i++)
    in += cover[i + 1] >= text && cover[i + 1] < text + (1u << 20);
  printf("remote %llu %llu\n", (unsigned long long)n, (unsigned long long)in);
  /* Disable coverage collection for the current thread. */
  if (ioctl(fd, KCOV_DISABLE, 0))
    perror("ioctl"), exit(1);
  if (munmap(cover, COVER_SIZE * sizeof(uint64_t)))
    perror("munmap"), exit(1);
  if (close(fd))
    perror("close"), exit(1);
  return 0;
}
