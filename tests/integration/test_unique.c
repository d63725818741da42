/* SPDX-License-Identifier: MIT */
/*
 * KCOV_UNIQUE_ENABLE and KCOV_RESET_TRACE: errors, each PC once, reset, a
 * read-only mapping, bitmap size edges. Built against a trace-pc target
 * (address keys: checked against the core's own key function) and, with clang,
 * a trace-pc-guard target (exact: one bit per edge, stable indices).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "../check.h"
#include "../testlib.h"
#include "core/record.h"
#include "target.h"
#include "ucov/ucov.h"

#define SIZE 4096
#define WORDS 256 /* 16384 bits */

static int fd;
static uint64_t *buf;

static void *reset_from_other_thread(void *arg) {
  (void)arg;
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_RESET_TRACE, 0), EINVAL);
  return NULL;
}

static void test_errors(void) {
  int d = ucov_open();
  CHECK_ERRNO(ucov_ioctl(d, KCOV_UNIQUE_ENABLE, 8), EINVAL); /* before INIT */
  CHECK_OK(ucov_ioctl(d, KCOV_INIT_TRACE, 16));
  CHECK_ERRNO(ucov_ioctl(d, KCOV_UNIQUE_ENABLE, 0), EINVAL);
  CHECK_ERRNO(ucov_ioctl(d, KCOV_UNIQUE_ENABLE, 15), EINVAL); /* words >= size - 1 */
  CHECK_ERRNO(ucov_ioctl(d, KCOV_UNIQUE_ENABLE, ~0UL), EINVAL);
  CHECK_ERRNO(ucov_ioctl(d, KCOV_RESET_TRACE, 0), EINVAL); /* not enabled */
  CHECK_OK(ucov_ioctl(d, KCOV_UNIQUE_ENABLE, 14));         /* leaves count + one PC */
  CHECK_ERRNO(ucov_ioctl(d, KCOV_UNIQUE_ENABLE, 14), EINVAL);
  CHECK_ERRNO(ucov_ioctl(d, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
  int other = ucov_open();
  CHECK_OK(ucov_ioctl(other, KCOV_INIT_TRACE, 16));
  CHECK_ERRNO(ucov_ioctl(other, KCOV_UNIQUE_ENABLE, 4), EBUSY);
  fd = d;
  pthread_t th;
  pthread_create(&th, NULL, reset_from_other_thread, NULL);
  pthread_join(th, NULL);
  CHECK_OK(ucov_ioctl(d, KCOV_RESET_TRACE, 0));
  CHECK_OK(ucov_ioctl(d, KCOV_DISABLE, 0));
  /* After DISABLE: back to READY, plain mode works again. */
  CHECK_OK(ucov_ioctl(d, KCOV_ENABLE, KCOV_TRACE_PC));
  CHECK_OK(ucov_ioctl(d, KCOV_DISABLE, 0));
  ucov_close(other);
  ucov_close(d);
}

/* The distinct PCs of one tgt_root(5) + tgt_loop(60), from a plain PC trace. */
static uint64_t distinct[4096];
static uint64_t n_distinct;

static void workload(void) {
  tgt_root(5);
  tgt_loop(60);
}

static void collect_distinct(void) {
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  workload();
  uint64_t n = buf[0];
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  n_distinct = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t k = 0;
    while (k < n_distinct && distinct[k] != buf[i + 1])
      k++;
    if (k == n_distinct)
      distinct[n_distinct++] = buf[i + 1];
  }
}

/* How many of the distinct PCs get a record with `bits` bitmap bits and keys from key(). */
static uint64_t expected_records(uint64_t bits, int exact) {
  static uint8_t seen[1 << 16];
  memset(seen, 0, sizeof(seen));
  uint64_t n = 0;
  for (uint64_t i = 0; i < n_distinct; i++) {
    uint64_t k = exact ? i : pc_key(distinct[i], pc_key_mask(bits));
    if (k >= bits || !seen[k]) {
      if (k < bits)
        seen[k] = 1;
      n++;
    }
  }
  return n;
}

static void test_unique(int exact) {
  collect_distinct();
  CHECK(n_distinct > 10);
  CHECK_OK(ucov_ioctl(fd, KCOV_UNIQUE_ENABLE, WORDS));
  CHECK_OK(ucov_ioctl(fd, KCOV_RESET_TRACE, 0));
  uint64_t *trace = buf + WORDS;
  workload();
  workload(); /* the second time adds nothing */
  uint64_t n = __atomic_load_n(&trace[0], __ATOMIC_ACQUIRE);
  CHECK_EQ(n, expected_records(WORDS * 64, exact));
  /* Each record is a distinct PC of the workload, once. */
  for (uint64_t i = 0; i < n; i++) {
    uint64_t k = 0;
    while (k < n_distinct && distinct[k] != trace[i + 1])
      k++;
    CHECK(k < n_distinct);
    for (uint64_t j = 0; j < i; j++)
      if (trace[j + 1] == trace[i + 1]) {
        CHECK(0);
        break;
      }
  }
  /* The bitmap has one bit per record (keys are distinct by construction). */
  uint64_t bits = 0;
  for (int w = 0; w < WORDS; w++)
    bits += (uint64_t)__builtin_popcountll(buf[w]);
  CHECK_EQ(bits, n);
  static uint64_t first_bitmap[WORDS];
  memcpy(first_bitmap, buf, sizeof(first_bitmap));
  /* RESET_TRACE clears bitmap and count: the same PCs come again, the same bits. */
  CHECK_OK(ucov_ioctl(fd, KCOV_RESET_TRACE, 0));
  CHECK_EQ(trace[0], 0);
  for (int w = 0; w < WORDS; w++)
    if (buf[w]) {
      CHECK_EQ(buf[w], 0);
      break;
    }
  workload();
  CHECK_EQ(trace[0], n);
  CHECK(memcmp(first_bitmap, buf, sizeof(first_bitmap)) == 0);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  /* Nothing after DISABLE. */
  workload();
  CHECK_EQ(trace[0], n);
}

static void test_small_bitmap(void) {
  /* One word: 64 bits for all the PCs; collisions drop PCs, never duplicate them. */
  CHECK_OK(ucov_ioctl(fd, KCOV_UNIQUE_ENABLE, 1));
  CHECK_OK(ucov_ioctl(fd, KCOV_RESET_TRACE, 0));
  workload();
  uint64_t n = buf[1];
  CHECK(n >= 1 && n <= 64);
  CHECK_EQ((uint64_t)__builtin_popcountll(buf[0]), n);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
}

static void test_read_only_mapping(void) {
  /* With RESET_TRACE the client never writes: a read-only mapping is enough. */
  int d = ucov_open();
  CHECK_OK(ucov_ioctl(d, KCOV_INIT_TRACE, SIZE));
  uint64_t *ro = mmap(NULL, SIZE * 8, PROT_READ, MAP_SHARED, d, 0);
  CHECK(ro != MAP_FAILED);
  CHECK_OK(ucov_ioctl(d, KCOV_UNIQUE_ENABLE, WORDS));
  CHECK_OK(ucov_ioctl(d, KCOV_RESET_TRACE, 0));
  tgt_leaf(3);
  CHECK(ro[WORDS] >= 1);
  CHECK(pc_in(ro[WORDS + 1], "tgt_leaf"));
  CHECK_OK(ucov_ioctl(d, KCOV_RESET_TRACE, 0));
  CHECK_EQ(ro[WORDS], 0);
  CHECK_OK(ucov_ioctl(d, KCOV_DISABLE, 0));
  munmap(ro, SIZE * 8);
  ucov_close(d);
}

int main(void) {
  test_errors();
  fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, SIZE));
  buf = map_buffer(fd, SIZE);
#ifdef UCOV_TEST_GUARD
  test_unique(1); /* trace-pc-guard: exact */
#else
  test_unique(0); /* trace-pc: address keys */
#endif
  test_small_bitmap();
  test_read_only_mapping();
  munmap(buf, SIZE * 8);
  ucov_close(fd);
  return check_report("test_unique");
}
