/* SPDX-License-Identifier: MIT */
/*
 * Control flow whose gcov counts are easy to get wrong: several functions
 * on one line (gcov's "group" functions), loops that stay on one line,
 * setjmp/longjmp (fake arcs from the entry), calls that do not return, an
 * inline function counted where it is inlined, a switch, nested loops.
 * tests/e2e/gcov_native.sh reads its .gcno/.gcda natively and through gcov.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAKE(n)                                                                                    \
  static int n(int x) {                                                                            \
    return x > 3 ? x * 2 : x + 1;                                                                  \
  }
/* clang-format off */
MAKE(one) MAKE(two) MAKE(three)
static int loop_line(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; while (s > 7) s -= 7; return s; }
/* clang-format on */

static jmp_buf jb;

static void jumper(int k) {
  if (k > 2)
    longjmp(jb, k);
}

static inline int square(int v) {
  return v * v;
}

__attribute__((noreturn)) static void leave(int code) {
  fflush(stdout);
  exit(code);
}

int main(int argc, char **argv) {
  int r = 0;
  (void)argv;
  for (int i = 0; i < 5; i++)
    r += one(i) + two(i) + (argc > 5 ? three(i) : 0);
  if (setjmp(jb) == 0) {
    for (int k = 0; k < 5; k++)
      jumper(k);
  } else {
    r++;
  }
  int j = 0;
  while (j < 10)
    j++;
  do {
    j--;
  } while (j > 0);
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 3; q++)
      r += square(p + q);
  switch (r % 4) {
  case 0:
    r++;
    break;
  case 1:
    r--;
    break;
  default:
    r = loop_line(r);
  }
  printf("%d\n", r);
  if (argc > 2)
    leave(0);
  return argc > 3 ? 1 : 0;
}
