/* SPDX-License-Identifier: MIT */
/* Tasks are threads: thread exit disables, fork does not inherit, threads are disjoint. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "../testlib.h"
#include "target.h"
#include "ucov/ucov.h"

#define SIZE (1 << 15)

static uint64_t count_in(const uint64_t *buf, const char *name) {
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_ACQUIRE), k = 0;
  for (uint64_t i = 0; i < n; i++)
    k += pc_in(buf[i + 1], name);
  return k;
}

struct worker {
  int fd;
  uint64_t *buf;
  int (*fn)(int);
  pthread_barrier_t *barrier;
  int disable;
};

static void *worker_main(void *arg) {
  struct worker *w = arg;
  CHECK_OK(ucov_ioctl(w->fd, KCOV_ENABLE, KCOV_TRACE_PC));
  __atomic_store_n(&w->buf[0], 0, __ATOMIC_RELAXED);
  if (w->barrier)
    pthread_barrier_wait(w->barrier);
  for (int i = 0; i < 50; i++)
    w->fn(100);
  if (w->disable)
    CHECK_OK(ucov_ioctl(w->fd, KCOV_DISABLE, 0));
  return NULL; /* without disable: thread exit disables */
}

static void test_thread_exit(void) {
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, SIZE));
  uint64_t *buf = map_buffer(fd, SIZE);
  struct worker w = {fd, buf, tgt_thread_a, NULL, 0};
  pthread_t th;
  pthread_create(&th, NULL, worker_main, &w);
  pthread_join(th, NULL);
  uint64_t n = buf[0];
  CHECK(n > 0);
  CHECK_EQ(count_in(buf, "tgt_thread_a"), n);
  /* The exited thread no longer owns it: this thread can enable it. */
  tgt_thread_a(10);
  CHECK_EQ(buf[0], n);
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  tgt_thread_b(10);
  CHECK(buf[0] > n);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  munmap(buf, SIZE * 8);
  ucov_close(fd);
}

static void test_fork(void) {
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, SIZE));
  uint64_t *buf = map_buffer(fd, SIZE);
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  tgt_leaf(3);
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_RELAXED);
  pid_t pid = fork();
  if (pid == 0) {
    /* The child shares the buffer's pages but does not trace into them. */
    for (int i = 0; i < 100; i++)
      tgt_thread_b(100);
    int bad = 0;
    bad |= __atomic_load_n(&buf[0], __ATOMIC_RELAXED) != n;
    /* The child does not own the device... */
    bad |= ucov_ioctl(fd, KCOV_DISABLE, 0) != -1 || errno != EINVAL;
    /* ...but can trace with a device of its own. */
    int cfd = ucov_open();
    bad |= ucov_ioctl(cfd, KCOV_INIT_TRACE, 1024) != 0;
    uint64_t *cbuf = map_buffer(cfd, 1024);
    bad |= ucov_ioctl(cfd, KCOV_ENABLE, KCOV_TRACE_PC) != 0;
    tgt_thread_b(3);
    bad |= cbuf[0] == 0 || !pc_in(cbuf[1], "tgt_thread_b");
    bad |= ucov_ioctl(cfd, KCOV_DISABLE, 0) != 0;
    _exit(bad);
  }
  int status = 0;
  CHECK(pid > 0);
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(__atomic_load_n(&buf[0], __ATOMIC_RELAXED), n);
  CHECK_EQ(count_in(buf, "tgt_thread_b"), 0);
  /* The parent still traces. */
  tgt_leaf(3);
  CHECK_EQ(__atomic_load_n(&buf[0], __ATOMIC_RELAXED), 2 * n);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  munmap(buf, SIZE * 8);
  ucov_close(fd);
}

static void test_two_threads(void) {
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, 2);
  struct worker w[2];
  pthread_t th[2];
  int (*fns[2])(int) = {tgt_thread_a, tgt_thread_b};
  for (int i = 0; i < 2; i++) {
    w[i].fd = ucov_open();
    CHECK_OK(ucov_ioctl(w[i].fd, KCOV_INIT_TRACE, SIZE));
    w[i].buf = map_buffer(w[i].fd, SIZE);
    w[i].fn = fns[i];
    w[i].barrier = &barrier;
    w[i].disable = 1;
  }
  for (int i = 0; i < 2; i++)
    pthread_create(&th[i], NULL, worker_main, &w[i]);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  CHECK(w[0].buf[0] > 0 && w[1].buf[0] > 0);
  CHECK_EQ(count_in(w[0].buf, "tgt_thread_a"), w[0].buf[0]);
  CHECK_EQ(count_in(w[1].buf, "tgt_thread_b"), w[1].buf[0]);
  for (int i = 0; i < 2; i++) {
    munmap(w[i].buf, SIZE * 8);
    ucov_close(w[i].fd);
  }
  pthread_barrier_destroy(&barrier);
}

int main(void) {
  test_thread_exit();
  test_fork();
  test_two_threads();
  return check_report("test_threads");
}
