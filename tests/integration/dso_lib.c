/* SPDX-License-Identifier: MIT */
/* The shared library of the dso test (tests/e2e/dso.sh). */
int lib_work(int x);
void lib_idle(void);

int lib_work(int x) {
  int sum = 0;
  for (int i = 0; i < x; i++)
    sum += i % 3 == 0 ? i : 1;
  return sum;
}

/* Never called: its counts stay zero. */
void lib_idle(void) {}
