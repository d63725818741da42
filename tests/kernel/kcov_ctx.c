/* SPDX-License-Identifier: MIT */
/*
 * REMOTE sections in every context (the ucov_ctx module, tests/kernel/ctx),
 * under contention. A client registers USB handle 7 with KCOV_REMOTE_ENABLE;
 * for each kind of context the module runs N sections around one call of
 * its ctx_body(); the client's buffer must then hold exactly N times what
 * one section records (measured on a plain work item first), every PC one
 * of those, for the contexts kcov.c records (work, spin, preempt, rcu, bh,
 * timer, tasklet), and nothing for hardirq (hrtimer). Meanwhile other threads
 * enable and disable devices (PC, REMOTE with other handles, close while
 * enabled), and a thread that traces for itself starts the softirq kinds
 * and waits for them on its CPU: its own buffer gets none of ctx_body's PCs.
 * Prints "ctx KIND RECORDS IN_SET", "ctx-one L", "ctx-pc PC" for the set,
 * "ctx-self N FOREIGN" and "ctx-churn OPS".
 * usage: kcov_ctx N
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucov/kcov.h"

#define WORDS (1u << 20)
#define SELF_WORDS (1u << 16)
#define MAX_SET 256

static uint64_t set[MAX_SET];
static unsigned n_set;
static volatile int stop_churn;
static long churn_ops;

static int in_set(uint64_t pc) {
  for (unsigned i = 0; i < n_set; i++)
    if (set[i] == pc)
      return 1;
  return 0;
}

static int ctx_run(const char *kind, int n, unsigned id) {
  char cmd[64];
  int fd = open("/dev/ucov-ctx", O_WRONLY);
  int len = snprintf(cmd, sizeof(cmd), "%s %d %u", kind, n, id);
  int ok = fd >= 0 && write(fd, cmd, len) == len;
  if (!ok)
    fprintf(stderr, "ctx %s: %s\n", kind, strerror(errno));
  if (fd >= 0)
    close(fd);
  return ok ? 0 : -1;
}

/* Devices enabled and disabled meanwhile, each thread its own. */
static void *churn(void *arg) {
  unsigned me = (unsigned)(uintptr_t)arg;
  for (unsigned round = 0; !stop_churn; round++) {
    int fd = open("/sys/kernel/debug/kcov", O_RDWR);
    if (fd < 0)
      continue;
    if (ioctl(fd, KCOV_INIT_TRACE, 4096) == 0) {
      uint64_t *c = mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (round % 3 == 0) {
        ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC);
        ioctl(fd, KCOV_DISABLE, 0);
      } else {
        struct {
          struct kcov_remote_arg a;
          uint64_t h[1];
        } r = {{KCOV_TRACE_PC, 512 + 64 * (round % 4), 1, 0}, {0}};
        r.a.handles[0] = kcov_remote_handle(KCOV_SUBSYSTEM_USB, 100 + me);
        if (round % 3 == 1)
          r.a.common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 1000 + me);
        if (ioctl(fd, KCOV_REMOTE_ENABLE, &r) == 0 && round % 2)
          ioctl(fd, KCOV_DISABLE, 0); /* else: closed while enabled (at thread end) */
      }
      if (c != MAP_FAILED)
        munmap(c, 4096 * 8);
    }
    close(fd);
    __atomic_add_fetch(&churn_ops, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

/* A thread tracing for itself starts the softirq and hardirq kinds. */
static void *self_traced(void *arg) {
  (void)arg;
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd < 0 || ioctl(fd, KCOV_INIT_TRACE, SELF_WORDS))
    return (void *)1;
  uint64_t *c = mmap(NULL, SELF_WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (c == MAP_FAILED || ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    return (void *)1;
  uint64_t n = 0, foreign = 0;
  const char *kinds[] = {"timer", "tasklet", "hrtimer"};
  for (int k = 0; k < 3; k++) {
    __atomic_store_n(&c[0], 0, __ATOMIC_RELAXED);
    if (ctx_run(kinds[k], 20, 7))
      return (void *)1;
    uint64_t got = __atomic_load_n(&c[0], __ATOMIC_RELAXED);
    for (uint64_t i = 0; i < got && i + 1 < SELF_WORDS; i++)
      foreign += in_set(c[i + 1]);
    n += got;
  }
  ioctl(fd, KCOV_DISABLE, 0);
  printf("ctx-self %llu %llu\n", (unsigned long long)n, (unsigned long long)foreign);
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd < 0 || ioctl(fd, KCOV_INIT_TRACE, WORDS))
    perror("kcov"), exit(1);
  uint64_t *cover = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED)
    perror("mmap"), exit(1);
  struct {
    struct kcov_remote_arg a;
    uint64_t h[1];
  } r = {{KCOV_TRACE_PC, 1u << 12, 1, 0}, {0}};
  r.a.handles[0] = kcov_remote_handle(KCOV_SUBSYSTEM_USB, 7);
  if (ioctl(fd, KCOV_REMOTE_ENABLE, &r))
    perror("KCOV_REMOTE_ENABLE"), exit(1);

  /* One section in a work item that may sleep: what every section records. */
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  if (ctx_run("work", 1, 7))
    exit(1);
  uint64_t one = __atomic_load_n(&cover[0], __ATOMIC_ACQUIRE);
  for (uint64_t i = 0; i < one; i++)
    if (!in_set(cover[i + 1]) && n_set < MAX_SET)
      set[n_set++] = cover[i + 1];
  printf("ctx-one %llu\n", (unsigned long long)one);
  for (unsigned i = 0; i < n_set; i++)
    printf("ctx-pc 0x%llx\n", (unsigned long long)set[i]);

  pthread_t churners[3], self;
  for (uintptr_t i = 0; i < 3; i++)
    pthread_create(&churners[i], NULL, churn, (void *)i);
  const char *kinds[] = {"work", "spin", "preempt", "rcu", "bh", "timer", "tasklet", "hrtimer"};
  for (int k = 0; k < 8; k++) {
    __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
    if (ctx_run(kinds[k], n, 7))
      exit(1);
    uint64_t got = __atomic_load_n(&cover[0], __ATOMIC_ACQUIRE), in = 0;
    for (uint64_t i = 0; i < got && i + 1 < WORDS; i++)
      in += in_set(cover[i + 1]);
    printf("ctx %s %llu %llu\n", kinds[k], (unsigned long long)got, (unsigned long long)in);
  }
  /* The self-traced thread's sections still reach this client's buffer. */
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  void *bad = NULL;
  pthread_create(&self, NULL, self_traced, NULL);
  pthread_join(self, &bad);
  printf("ctx selfrun %llu\n", (unsigned long long)__atomic_load_n(&cover[0], __ATOMIC_ACQUIRE));
  stop_churn = 1;
  for (int i = 0; i < 3; i++)
    pthread_join(churners[i], NULL);
  printf("ctx-churn %ld\n", churn_ops);
  if (ioctl(fd, KCOV_DISABLE, 0))
    perror("KCOV_DISABLE"), exit(1);
  return bad ? 1 : 0;
}
