/* SPDX-License-Identifier: MIT */
/* A shared library for tests/e2e/dormant.sh: instrumented blocks to trace. */
long lib_work(int n);

__attribute__((noinline)) static long lib_step(long i) {
  if (i % 3 == 0)
    return i * 2;
  if (i % 5 == 0)
    return -i;
  return 1;
}

long lib_work(int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += lib_step(i);
  return s;
}
