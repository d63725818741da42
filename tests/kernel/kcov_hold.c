/* SPDX-License-Identifier: MIT */
/*
 * A KCOV client that holds a device enabled while the test unloads modules:
 * it traces one read of the demo device, says "held N" (the records), waits
 * for a line on stdin, and checks that its buffer still holds those N
 * records and that DISABLE and close succeed. Exit status 0 if so.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define KCOV_DISABLE _IO('c', 101)
#define WORDS 4096

int main(void) {
  int kcov = open("/sys/kernel/debug/kcov", O_RDWR), demo = open("/dev/ucov-demo", O_RDONLY);
  char buf[64];
  if (kcov < 0 || demo < 0 || ioctl(kcov, KCOV_INIT_TRACE, WORDS))
    return 1;
  unsigned long *cover =
      mmap(NULL, WORDS * sizeof(unsigned long), PROT_READ | PROT_WRITE, MAP_SHARED, kcov, 0);
  if (cover == MAP_FAILED || ioctl(kcov, KCOV_ENABLE, 0))
    return 1;
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  if (read(demo, buf, sizeof(buf)) <= 0)
    return 1;
  unsigned long n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  close(demo); /* the demo module may go now; this device stays enabled */
  printf("held %lu\n", n);
  fflush(stdout);
  if (!fgets(buf, sizeof(buf), stdin))
    return 1;
  unsigned long after = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  if (after != n || n == 0)
    return 2;
  if (ioctl(kcov, KCOV_DISABLE, 0) || munmap(cover, WORDS * sizeof(unsigned long)) || close(kcov))
    return 3;
  return 0;
}
