/* SPDX-License-Identifier: MIT */
/* A library of many edges that tests/e2e/aflserver/late.c loads after the
 * fork server started (its guards numbered then). */
static __attribute__((noinline)) void note(int n) {
  __asm__ volatile("" ::"r"(n)); /* (a call no compiler folds into a select) */
}

int late_work(int x) {
#define STEP(n)                                                                                    \
  if (x & (1 << ((n) % 30)))                                                                       \
    note(n);
#define TEN(n)                                                                                     \
  STEP(n)                                                                                          \
  STEP(n + 1)                                                                                      \
  STEP(n + 2) STEP(n + 3) STEP(n + 4) STEP(n + 5) STEP(n + 6) STEP(n + 7) STEP(n + 8) STEP(n + 9)
  TEN(0) TEN(10) TEN(20) TEN(30) TEN(40) TEN(50) TEN(60) TEN(70) TEN(80) TEN(90) return x;
}
