/* SPDX-License-Identifier: MIT */
/* Work counted by gcov (built with --coverage) for test_alloc_fail. */
int alloc_work(int n);

int alloc_work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i % 3 ? i : -i;
  return s;
}
