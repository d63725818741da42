/* SPDX-License-Identifier: MIT */
/*
 * A target for tests/e2e/aflserver.sh: a planted crash behind a chain of
 * magic values (32, 64 and 32 bits), which no random mutation meets in the
 * test's time and AFL++'s comparison logging (cmplog) solves. Each stage
 * passed is a branch of its own. With SELF_TRACE=pc or cmp the program
 * traces its own check through a KCOV device of the process (ucov's API)
 * and prints its records: PCs as offsets from check, comparisons as type
 * and operands. With -DSHMEM it is the form AFL++'s docs recommend: a
 * deferred fork server (__AFL_INIT), persistent mode (__AFL_LOOP) and the
 * input in shared memory (__AFL_FUZZ_TESTCASE_BUF).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucov/kcov.h"
#include "ucov/ucov.h"

volatile int reached; /* how far an input got */

static uint32_t u32_at(const uint8_t *d) {
  uint32_t v;
  memcpy(&v, d, 4);
  return v;
}

__attribute__((noinline)) int check(const uint8_t *d, size_t n) {
  if (n < 16)
    return 0;
  if (u32_at(d) != 0x4c465543u) /* "CUFL" */
    return 0;
  reached = 1;
  uint64_t b;
  memcpy(&b, d + 4, 8);
  if (b != 0x1122334455667788ull)
    return 1;
  reached = 2;
  if (u32_at(d + 12) != 0xfeedbeefu)
    return 2;
  reached = 3;
  abort(); /* the planted bug */
}

static int self_trace(const char *mode, const uint8_t *d, size_t n) {
  int fd = ucov_open();
  uint64_t *area;
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, 1 << 12) != 0)
    return 1;
  area = ucov_mmap(NULL, 8 << 12, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (area == MAP_FAILED ||
      ucov_ioctl(fd, KCOV_ENABLE, strcmp(mode, "cmp") ? KCOV_TRACE_PC : KCOV_TRACE_CMP) != 0)
    return 1;
  __atomic_store_n(&area[0], 0, __ATOMIC_RELAXED);
  check(d, n);
  uint64_t got = __atomic_load_n(&area[0], __ATOMIC_RELAXED);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  int cmp = !strcmp(mode, "cmp");
  printf("%s records: %llu\n", mode, (unsigned long long)got);
  for (uint64_t i = 0; i < got; i++)
    if (cmp)
      printf("%llx %llx %llx\n", (unsigned long long)area[1 + 4 * i],
             (unsigned long long)area[2 + 4 * i], (unsigned long long)area[3 + 4 * i]);
    else
      printf("%llx\n", (unsigned long long)(area[1 + i] - (uintptr_t)check));
  return 0;
}

#ifdef SHMEM
__AFL_FUZZ_INIT();

int main(void) {
  __AFL_INIT();
  const uint8_t *buf = __AFL_FUZZ_TESTCASE_BUF;
  while (__AFL_LOOP(10000))
    check(buf, __AFL_FUZZ_TESTCASE_LEN);
  return 0;
}
#else
int main(void) {
  uint8_t buf[256];
  ssize_t n = read(0, buf, sizeof buf);
  const char *mode = getenv("SELF_TRACE");
  if (mode)
    return self_trace(mode, buf, n > 0 ? (size_t)n : 0);
  return check(buf, n > 0 ? (size_t)n : 0) == 42;
}
#endif
