/* SPDX-License-Identifier: MIT */
/*
 * The first program of the kernel's Documentation/dev-tools/kcov.rst
 * (collecting PCs of a single system call), with its one change for ucov.ko:
 * the traced call reads the demo module's device instead of read(-1, NULL,
 * 0), whose code is not instrumented in a stock kernel. Built static on the
 * host, run in the guest with no preload.
 */
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define KCOV_DISABLE _IO('c', 101)
#define COVER_SIZE (64 << 10)

#define KCOV_TRACE_PC 0
#define KCOV_TRACE_CMP 1

int main(int argc, char **argv) {
  int fd, demo;
  unsigned long *cover, n, i;
  char buf[64];

  (void)argc;
  (void)argv;
  /* A single fd descriptor allows coverage collection on a single thread. */
  fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd == -1)
    perror("open"), exit(1);
  /* Setup trace mode and trace size. */
  if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
    perror("ioctl"), exit(1);
  /* Mmap buffer shared between kernel- and user-space. */
  cover = (unsigned long *)mmap(NULL, COVER_SIZE * sizeof(unsigned long), PROT_READ | PROT_WRITE,
                                MAP_SHARED, fd, 0);
  if ((void *)cover == MAP_FAILED)
    perror("mmap"), exit(1);
  demo = open("/dev/ucov-demo", O_RDONLY);
  if (demo == -1)
    perror("open demo"), exit(1);
  /* Enable coverage collection on the current thread. */
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    perror("ioctl"), exit(1);
  /* Reset coverage from the tail of the ioctl() call. */
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  /* Call the target syscall call. */
  if (read(demo, buf, sizeof(buf)) <= 0)
    perror("read demo"), exit(1);
  /* Read number of PCs collected. */
  n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  for (i = 0; i < n; i++)
    printf("0x%lx\n", cover[i + 1]);
  /* Disable coverage collection for the current thread. After this call
   * coverage can be enabled for a different thread. */
  if (ioctl(fd, KCOV_DISABLE, 0))
    perror("ioctl"), exit(1);
  /* Free resources. */
  if (munmap(cover, COVER_SIZE * sizeof(unsigned long)))
    perror("munmap"), exit(1);
  if (close(fd))
    perror("close"), exit(1);
  return 0;
}
