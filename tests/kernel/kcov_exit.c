/* SPDX-License-Identifier: MIT */
/*
 * A KCOV client that exits with its device enabled (a fuzzer's child killed
 * mid-run does): the kernel must disable it and free it as the task ends (as
 * kcov_task_exit does), so that ucov.ko can be unloaded later. Traces one
 * read of the demo device, then _exit(0).
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define WORDS 4096

int main(void) {
  char buf[64];
  int kcov = open("/sys/kernel/debug/kcov", O_RDWR), demo = open("/dev/ucov-demo", O_RDONLY);
  if (kcov < 0 || demo < 0 || ioctl(kcov, KCOV_INIT_TRACE, WORDS))
    return 1;
  unsigned long *cover =
      mmap(NULL, WORDS * sizeof(unsigned long), PROT_READ | PROT_WRITE, MAP_SHARED, kcov, 0);
  if (cover == MAP_FAILED || ioctl(kcov, KCOV_ENABLE, 0))
    return 1;
  if (read(demo, buf, sizeof(buf)) <= 0)
    return 1;
  _exit(__atomic_load_n(&cover[0], __ATOMIC_RELAXED) > 0 ? 0 : 2);
}
