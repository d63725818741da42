/* SPDX-License-Identifier: MIT */
/*
 * Dormant builds: how long the first KCOV_ENABLE takes (the site table read
 * from the file and every site patched live) and the last KCOV_DISABLE (every
 * site patched dormant again), then the same for later rounds (the table
 * cached). Linked with the Lua interpreter's objects, so that the sites are
 * Lua's; this file is not instrumented.
 *
 * usage: dormant_timer ROUNDS [THREADS]   prints: first-enable-us
 *            first-disable-us median-enable-us median-disable-us
 * THREADS: linked with a generated table of functions (bench_fns, from
 * bench/dormant_run.sh), that many threads call them all in a loop while
 * the main thread patches (traps at sites in mid-patch included).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include <pthread.h>

#include "ucov/ucov.h"

/* The generated functions, when linked with them. */
extern int (*const bench_fns[])(int) __attribute__((weak));
extern const int bench_fns_count __attribute__((weak));
static volatile int stop;
static volatile long sink;

static void *worker(void *arg) {
  (void)arg;
  while (!stop)
    for (int i = 0; i < bench_fns_count && !stop; i++)
      sink += bench_fns[i](i);
  return NULL;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  if (rounds < 2 || rounds > 1000)
    return 2;
  int threads = argc > 2 ? atoi(argv[2]) : 0;
  if (threads < 0 || threads > 64 || (threads && !bench_fns))
    return 2;
  pthread_t tid[64];
  for (int k = 0; k < threads; k++)
    if (pthread_create(&tid[k], NULL, worker, NULL) != 0)
      return 1;
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, 1 << 16) != 0)
    return 1;
  double en[1000], dis[1000];
  for (int r = 0; r < rounds; r++) {
    double t0 = now_us();
    if (ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0)
      return 1;
    double t1 = now_us();
    ucov_ioctl(fd, KCOV_DISABLE, 0);
    double t2 = now_us();
    en[r] = t1 - t0;
    dis[r] = t2 - t1;
  }
  stop = 1;
  for (int k = 0; k < threads; k++)
    pthread_join(tid[k], NULL);
  double first_en = en[0], first_dis = dis[0];
  qsort(en + 1, (size_t)rounds - 1, sizeof(double), by_value);
  qsort(dis + 1, (size_t)rounds - 1, sizeof(double), by_value);
  printf("%.0f %.0f %.0f %.0f\n", first_en, first_dis, en[1 + (rounds - 1) / 2],
         dis[1 + (rounds - 1) / 2]);
  return 0;
}
