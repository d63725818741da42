/* SPDX-License-Identifier: MIT */
/*
 * Target of the lossless test: 4 threads run a branchy step function a fixed
 * number of times (built with -fprofile-update=atomic, so the counters are
 * exact), while a client reads and resets over the control socket.
 * usage: gcov_hammer ITERATIONS [linger]
 * (linger: once the threads are done, stay until standard input ends, so a
 * test can go on pulling from a live target; each byte read runs the step
 * function 1,000 more times, so that a test can give every pull counts of
 * its own and know the total: N * 4 + 1,000 per byte)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long sink;

__attribute__((noinline)) static long step(long i) {
  if (i % 3 == 0)
    return i / 3;
  if (i % 5 == 0)
    return i * 2;
  return i + 1;
}

static void *worker(void *arg) {
  long n = (long)arg, acc = 0;
  for (long i = 0; i < n; i++)
    acc += step(i);
  __atomic_fetch_add(&sink, acc & 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  pthread_t th[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, worker, (void *)n);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  if (argc > 2 && strcmp(argv[2], "linger") == 0) {
    char c;
    while (read(0, &c, 1) > 0) /* (one byte a read: the same counts however it is fed) */
      worker((void *)1000L);
  }
  return 0;
}
