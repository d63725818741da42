/* SPDX-License-Identifier: MIT */
/*
 * The second program of kcov.rst (comparison operands, KCOV_TRACE_CMP), with
 * the same one change as kcov_pc.c: the traced call reads the demo device.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define KCOV_DISABLE _IO('c', 101)
#define COVER_SIZE (64 << 10)

#define KCOV_TRACE_PC 0
#define KCOV_TRACE_CMP 1

/* Number of 64-bit words per record. */
#define KCOV_WORDS_PER_CMP 4

/* The format for the types of collected comparisons: bit 0 shows whether
 * one of the arguments is a compile-time constant, bits 1 and 2 contain
 * log2 of the argument size (up to 8 bytes). */
#define KCOV_CMP_CONST (1 << 0)
#define KCOV_CMP_SIZE(n) ((n) << 1)
#define KCOV_CMP_MASK KCOV_CMP_SIZE(3)

int main(void) {
  int fd, demo;
  uint64_t *cover, type, arg1, arg2, is_const, size;
  unsigned long n, i;
  char buf[64];

  fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd == -1)
    perror("open"), exit(1);
  if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
    perror("ioctl"), exit(1);
  /* Note that the buffer pointer is of type uint64_t*, because all the
   * comparison operands are promoted to uint64_t. */
  cover = (uint64_t *)mmap(NULL, COVER_SIZE * sizeof(unsigned long), PROT_READ | PROT_WRITE,
                           MAP_SHARED, fd, 0);
  if ((void *)cover == MAP_FAILED)
    perror("mmap"), exit(1);
  demo = open("/dev/ucov-demo", O_RDONLY);
  if (demo == -1)
    perror("open demo"), exit(1);
  /* Note KCOV_TRACE_CMP instead of KCOV_TRACE_PC. */
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP))
    perror("ioctl"), exit(1);
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  if (read(demo, buf, sizeof(buf)) <= 0)
    perror("read demo"), exit(1);
  /* Read number of comparisons collected. */
  n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  for (i = 0; i < n; i++) {
    uint64_t ip;

    type = cover[i * KCOV_WORDS_PER_CMP + 1];
    /* arg1 and arg2 - operands of the comparison. */
    arg1 = cover[i * KCOV_WORDS_PER_CMP + 2];
    arg2 = cover[i * KCOV_WORDS_PER_CMP + 3];
    /* ip - caller address. */
    ip = cover[i * KCOV_WORDS_PER_CMP + 4];
    /* size of the operands. */
    size = 1 << ((type & KCOV_CMP_MASK) >> 1);
    /* is_const - true if either operand is a compile-time constant.*/
    is_const = type & KCOV_CMP_CONST;
    printf("ip: 0x%lx type: 0x%lx, arg1: 0x%lx, arg2: 0x%lx, size: %lu, %s\n", (unsigned long)ip,
           (unsigned long)type, (unsigned long)arg1, (unsigned long)arg2, (unsigned long)size,
           is_const ? "const" : "non-const");
  }
  if (ioctl(fd, KCOV_DISABLE, 0))
    perror("ioctl"), exit(1);
  /* Free resources. */
  if (munmap(cover, COVER_SIZE * sizeof(unsigned long)))
    perror("munmap"), exit(1);
  if (close(fd))
    perror("close"), exit(1);
  return 0;
}
