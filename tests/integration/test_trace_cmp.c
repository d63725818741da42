/* SPDX-License-Identifier: MIT */
/* KCOV_TRACE_CMP: operands, sizes, the CONST bit and switch records. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "../check.h"
#include "../testlib.h"
#include "target.h"
#include "ucov/ucov.h"

#define SIZE (1 << 14)

static uint64_t *buf;
static int fd;

static void start(void) {
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP));
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
}

static uint64_t stop(void) {
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_RELAXED);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  return n;
}

/*
 * Does record set contain {type, a1, a2} (either operand order unless the
 * record is CONST) with its PC in function fn?
 */
static int has_record(uint64_t n, uint64_t type, uint64_t a1, uint64_t a2, const char *fn) {
  for (uint64_t i = 0; i < n; i++) {
    const uint64_t *r = &buf[1 + i * 4];
    if (r[0] != type || !pc_in(r[3], fn))
      continue;
    if (r[1] == a1 && r[2] == a2)
      return 1;
    if (!(type & KCOV_CMP_CONST) && r[1] == a2 && r[2] == a1)
      return 1;
  }
  fprintf(stderr, "no record {%llu, 0x%llx, 0x%llx} in %s among %llu:\n", (unsigned long long)type,
          (unsigned long long)a1, (unsigned long long)a2, fn, (unsigned long long)n);
  for (uint64_t i = 0; i < n; i++)
    fprintf(stderr, "  {%llu, 0x%llx, 0x%llx, %s}\n", (unsigned long long)buf[1 + i * 4],
            (unsigned long long)buf[2 + i * 4], (unsigned long long)buf[3 + i * 4],
            pc_function(buf[4 + i * 4]));
  return 0;
}

static void test_const(void) {
  start();
  tgt_cmp_const8(0x47);
  tgt_cmp_const16(0x4321);
  tgt_cmp_const32(7);
  tgt_cmp_const64(0xabcdef);
  uint64_t n = stop();
  CHECK(has_record(n, KCOV_CMP_SIZE(0) | KCOV_CMP_CONST, 0x5a, 0x47, "tgt_cmp_const8"));
  CHECK(has_record(n, KCOV_CMP_SIZE(1) | KCOV_CMP_CONST, 0x1234, 0x4321, "tgt_cmp_const16"));
  CHECK(has_record(n, KCOV_CMP_SIZE(2) | KCOV_CMP_CONST, 0xdeadbeef, 7, "tgt_cmp_const32"));
  CHECK(has_record(n, KCOV_CMP_SIZE(3) | KCOV_CMP_CONST, 0x1122334455667788ull, 0xabcdef,
                   "tgt_cmp_const64"));
  /* Every record is a comparison: trace_pc hooks write nothing in CMP mode. */
  for (uint64_t i = 0; i < n; i++) {
    CHECK(buf[1 + i * 4] <= (KCOV_CMP_MASK | KCOV_CMP_CONST));
    CHECK(strncmp(pc_function(buf[4 + i * 4]), "tgt_cmp_const", 13) == 0);
  }
}

static void test_var(void) {
  start();
  tgt_cmp_var32(3, 9);
  tgt_cmp_var64(0x100000000ull, 5);
  uint64_t n = stop();
  CHECK(has_record(n, KCOV_CMP_SIZE(2), 3, 9, "tgt_cmp_var32"));
  CHECK(has_record(n, KCOV_CMP_SIZE(3), 0x100000000ull, 5, "tgt_cmp_var64"));
}

static void test_switch(void) {
  start();
  tgt_switch(17);
  uint64_t n = stop();
  /* One CONST record per case value, the switched value second. */
  static const uint64_t cases[] = {3, 17, 1000, 77777};
  for (int i = 0; i < 4; i++)
    CHECK(has_record(n, KCOV_CMP_SIZE(2) | KCOV_CMP_CONST, cases[i], 17, "tgt_switch"));
}

static void test_float(void) {
#ifndef __clang__ /* only gcc emits trace_cmpf/cmpd */
  start();
  tgt_cmp_float(1.5f, 2.5f);
  tgt_cmp_double(-1.0, 3.0);
  uint64_t n = stop();
  float f1 = 1.5f, f2 = 2.5f;
  double d1 = -1.0, d2 = 3.0;
  uint32_t u1, u2;
  uint64_t v1, v2;
  memcpy(&u1, &f1, 4);
  memcpy(&u2, &f2, 4);
  memcpy(&v1, &d1, 8);
  memcpy(&v2, &d2, 8);
  CHECK(has_record(n, KCOV_CMP_SIZE(2), u1, u2, "tgt_cmp_float"));
  CHECK(has_record(n, KCOV_CMP_SIZE(3), v1, v2, "tgt_cmp_double"));
#endif
}

static void test_full(void) {
  /* 9 words hold two 4-word records; a third is dropped, count stays 2. */
  int small = ucov_open();
  CHECK_OK(ucov_ioctl(small, KCOV_INIT_TRACE, 9));
  uint64_t *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, small, 0);
  CHECK_OK(ucov_ioctl(small, KCOV_ENABLE, KCOV_TRACE_CMP));
  __atomic_store_n(&b[0], 0, __ATOMIC_RELAXED);
  for (int i = 0; i < 10; i++)
    tgt_cmp_const32((uint32_t)i);
  CHECK_OK(ucov_ioctl(small, KCOV_DISABLE, 0));
  CHECK_EQ(b[0], 2);
  CHECK_EQ(b[5], KCOV_CMP_SIZE(2) | KCOV_CMP_CONST);
  for (int i = 9; i < 512; i++)
    if (b[i]) {
      CHECK_EQ(b[i], 0);
      break;
    }
  munmap(b, 4096);
  ucov_close(small);
}

int main(void) {
  fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, SIZE));
  buf = map_buffer(fd, SIZE);
  test_const();
  test_var();
  test_switch();
  test_float();
  test_full();
  return check_report("test_trace_cmp");
}
