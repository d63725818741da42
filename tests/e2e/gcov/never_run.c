/* SPDX-License-Identifier: MIT */
/* Compiled with --coverage and never linked into a program that runs: its
 * lines, functions and branches must all count, at 0. */
int never_called(int x) {
  if (x > 0)
    return x * 3;
  return -x;
}

int never_either(int a, int b) {
  return a > b ? a : b;
}
