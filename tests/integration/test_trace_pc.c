/* SPDX-License-Identifier: MIT */
/* KCOV_TRACE_PC: what a traced call records, and what it must not. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"
#include "../testlib.h"
#include "target.h"
#include "ucov/ucov.h"

#define SIZE 4096

/* Count the records of buf whose function is name. */
static uint64_t count_in(const uint64_t *buf, const char *name) {
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_ACQUIRE), k = 0;
  for (uint64_t i = 0; i < n; i++)
    k += pc_in(buf[i + 1], name);
  return k;
}

static void test_call_tree(void) {
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, SIZE));
  uint64_t *buf = map_buffer(fd, SIZE);
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  tgt_root(5);
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_RELAXED);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));

  /* Exactly the functions of the call, and each of them. */
  CHECK(n >= 5);
  for (uint64_t i = 0; i < n; i++) {
    const char *f = pc_function(buf[i + 1]);
    int ok = !strcmp(f, "tgt_root") || !strcmp(f, "tgt_mid_a") || !strcmp(f, "tgt_mid_b") ||
             !strcmp(f, "tgt_leaf");
    if (!ok)
      fprintf(stderr, "unexpected PC 0x%llx in %s\n", (unsigned long long)buf[i + 1], f);
    CHECK(ok);
  }
  CHECK(count_in(buf, "tgt_root") >= 1);
  CHECK(count_in(buf, "tgt_mid_a") >= 1);
  CHECK(count_in(buf, "tgt_mid_b") >= 1);
  /* leaf is called three times: at least one record per call. */
  CHECK(count_in(buf, "tgt_leaf") >= 3);
  /* The first record is root's entry block. */
  CHECK(pc_in(buf[1], "tgt_root"));

  /* Nothing after DISABLE. */
  tgt_root(7);
  CHECK_EQ(buf[0], n);

  /* A second identical run records the same sequence. */
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  uint64_t *copy = malloc(n * 8);
  memcpy(copy, buf + 1, n * 8);
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  tgt_root(5);
  CHECK_EQ(__atomic_load_n(&buf[0], __ATOMIC_RELAXED), n);
  CHECK(memcmp(copy, buf + 1, n * 8) == 0);
  /* Reset by storing 0: the next record lands in word 1 again. */
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  tgt_leaf(2);
  CHECK(buf[0] >= 1 && buf[0] <= 3);
  CHECK(pc_in(buf[1], "tgt_leaf"));
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  free(copy);
  munmap(buf, SIZE * 8);
  ucov_close(fd);
}

static void test_overflow(void) {
  /* 10 words: 9 records fit... minus the count word: count stops at size - 1. */
  enum { SMALL = 10 };
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, SMALL));
  /* Map a whole page: the words past the area are inside it and must stay 0. */
  uint64_t *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(buf != MAP_FAILED);
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  tgt_loop(1000);
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_RELAXED);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  CHECK_EQ(n, SMALL - 1);
  for (int i = 1; i < SMALL; i++)
    CHECK(pc_in(buf[i], "tgt_loop"));
  for (int i = SMALL; i < 512; i++)
    if (buf[i] != 0) {
      CHECK_EQ(buf[i], 0);
      break;
    }
  munmap(buf, 4096);
  ucov_close(fd);

  /* A page-sized area: writing past it would fault (the memfd ends there). */
  fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, 512));
  buf = map_buffer(fd, 512);
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  tgt_loop(10000);
  CHECK_EQ(__atomic_load_n(&buf[0], __ATOMIC_RELAXED), 511);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  munmap(buf, 512 * 8);
  ucov_close(fd);
}

static volatile int other_go, other_done;

static void *untraced_worker(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&other_go, __ATOMIC_ACQUIRE))
    ;
  for (int i = 0; i < 200; i++)
    tgt_thread_b(100);
  __atomic_store_n(&other_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void test_untraced_thread(void) {
  /* Another thread runs instrumented code all along: none of it lands here. */
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, 1 << 16));
  uint64_t *buf = map_buffer(fd, 1 << 16);
  pthread_t th;
  pthread_create(&th, NULL, untraced_worker, NULL);
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  __atomic_store_n(&other_go, 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&other_done, __ATOMIC_ACQUIRE))
    tgt_thread_a(50);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  pthread_join(th, NULL);
  CHECK(buf[0] > 0);
  CHECK_EQ(count_in(buf, "tgt_thread_b"), 0);
  CHECK_EQ(count_in(buf, "tgt_thread_a"), buf[0]);
  munmap(buf, (1 << 16) * 8);
  ucov_close(fd);
}

int main(void) {
  test_call_tree();
  test_overflow();
  test_untraced_thread();
  return check_report("test_trace_pc");
}
