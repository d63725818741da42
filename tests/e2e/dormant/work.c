/* SPDX-License-Identifier: MIT */
/*
 * Instrumented code for the dormant tests, written so that gcc -O2 ends
 * functions with the hook (a tail jump to it, plain or conditional) as well
 * as calling it, and compares operands (trace-cmp).
 */
#include "work.h"

_Thread_local volatile long sink; /* per thread: the workers never race on it */

/* A function whose last block is a hook call: gcc -O2 makes it a tail jump. */
__attribute__((noinline)) void bump(long x) {
  if (x & 1)
    sink += x;
}

/* A conditional tail jump: the hook ends one arm. */
__attribute__((noinline)) void maybe(long x) {
  if (x > 3)
    return;
  sink ^= x;
}

__attribute__((noinline)) long step(long i) {
  long s = 0;
  if (i % 3 == 0)
    s += i;
  else if (i % 5 == 0)
    s -= i;
  switch (i & 7) {
  case 1:
    s += 2;
    break;
  case 4:
    s *= 2;
    break;
  default:
    break;
  }
  bump(i);
  maybe(i);
  return s;
}

long work_loop(int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += step(i);
  return s;
}

long work_traced(int n) {
  return work_loop(n) + 1;
}

long work_expected(int n) {
  long s = 1;
  for (long i = 0; i < n; i++) {
    long t = 0;
    if (i % 3 == 0)
      t += i;
    else if (i % 5 == 0)
      t -= i;
    if ((i & 7) == 1)
      t += 2;
    else if ((i & 7) == 4)
      t *= 2;
    s += t;
  }
  return s;
}
