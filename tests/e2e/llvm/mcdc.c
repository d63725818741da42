/* SPDX-License-Identifier: MIT */
/*
 * Decisions for MC/DC (clang -fcoverage-mcdc): one whose conditions the runs
 * show independently, one they do not, one in a macro. tests/e2e/llvm.sh
 * compares ucov's MC/DC figures with `llvm-cov report --show-mcdc-summary`.
 */
#include <stdio.h>
#include <stdlib.h>

#define BOTH(x, y) ((x) > 0 && (y) > 0)

static int decide(int a, int b, int c) {
  if ((a > 0 && b > 0) || c > 0)
    return 1;
  return BOTH(a, c) ? 2 : 0;
}

int main(int argc, char **argv) {
  int a = argc > 1 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 0;
  int r = decide(a, b, 0) + decide(0, 1, a);
  if (argc > 5 && argc < 9)
    r++;
  printf("%d\n", r);
  return 0;
}
