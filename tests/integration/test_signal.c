/* SPDX-License-Identifier: MIT */
/*
 * A signal handler that runs instrumented code in the middle of a record
 * leaves a consistent trace: every counted word is a PC of code that ran,
 * nothing is written past the area.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

#include "../check.h"
#include "../testlib.h"
#include "target.h"
#include "ucov/ucov.h"

static volatile sig_atomic_t handler_runs;

static void on_alarm(int sig) {
  (void)sig;
  handler_runs++;
  tgt_in_handler((int)handler_runs);
}

static int check_trace(const uint64_t *buf, uint64_t size, uint64_t *from_handler) {
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_RELAXED);
  if (n > size - 1)
    return 0;
  for (uint64_t i = 1; i <= n; i++) {
    if (pc_in(buf[i], "tgt_in_handler"))
      (*from_handler)++;
    else if (!pc_in(buf[i], "tgt_loop"))
      return 0;
  }
  return 1;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 20}, {0, 20}};
  setitimer(ITIMER_REAL, &it, NULL);

  enum { BIG = 1 << 16, SMALL = 100 };
  uint64_t sizes[2] = {BIG, SMALL};
  uint64_t from_handler = 0, rounds = 0;
  int consistent = 1;
  for (int s = 0; s < 2; s++) {
    int fd = ucov_open();
    CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, sizes[s]));
    /* Map at least a page so that a write past a small area would show. */
    size_t maplen = sizes[s] * 8 < 4096 ? 4096 : sizes[s] * 8;
    uint64_t *buf = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(buf != MAP_FAILED);
    CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
      __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
      tgt_loop(200);
      consistent &= check_trace(buf, sizes[s], &from_handler);
      rounds++;
      clock_gettime(CLOCK_MONOTONIC, &t1);
    } while (t1.tv_sec - t0.tv_sec < 1);
    CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
    for (size_t i = sizes[s]; i < maplen / 8; i++)
      if (buf[i]) {
        CHECK_EQ(buf[i], 0);
        break;
      }
    munmap(buf, maplen);
    ucov_close(fd);
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("%llu rounds, %d signals, %llu handler records\n", (unsigned long long)rounds,
         (int)handler_runs, (unsigned long long)from_handler);
  CHECK(consistent);
  CHECK(handler_runs > 0);
  /* Signals did land inside traced windows and were recorded there. */
  CHECK(from_handler > 0);
  return check_report("test_signal");
}
