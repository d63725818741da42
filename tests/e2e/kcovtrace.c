/* SPDX-License-Identifier: MIT */
/*
 * A tracer in the manner of kcovtrace, against <linux/kcov.h> only (run under
 * LD_PRELOAD=libucov-kcov.so): open, INIT_TRACE and mmap a device, fork; the
 * child ENABLEs and execs PROG; the parent waits and prints the PCs the new
 * program recorded, one a line.
 * usage: kcovtrace PROG [ARG...]
 */
#include <fcntl.h>
#include <linux/kcov.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define COVER_SIZE (1 << 20)

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd < 0)
    perror("open"), exit(1);
  if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
    perror("ioctl(KCOV_INIT_TRACE)"), exit(1);
  unsigned long *cover = (unsigned long *)mmap(NULL, COVER_SIZE * sizeof(unsigned long),
                                               PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if ((void *)cover == MAP_FAILED)
    perror("mmap"), exit(1);
  pid_t pid = fork();
  if (pid < 0)
    perror("fork"), exit(1);
  if (pid == 0) {
    if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
      perror("ioctl(KCOV_ENABLE)"), exit(1);
    __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
    char num[16];
    snprintf(num, sizeof(num), "%d", fd);
    setenv("KCOV_FD", num, 1); /* for the program's own check */
    execvp(argv[1], argv + 1);
    perror("execvp");
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fprintf(stderr, "kcovtrace: %s failed\n", argv[1]), exit(1);
  unsigned long n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  for (unsigned long i = 0; i < n && i + 1 < COVER_SIZE; i++)
    printf("0x%lx\n", cover[i + 1]);
  /* A device inherited across exec answers as on Linux: the child's ENABLE
   * left this process's device initialised, not enabled here. */
  if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE) == 0)
    fprintf(stderr, "kcovtrace: INIT_TRACE twice succeeded\n"), exit(1);
  return 0;
}
