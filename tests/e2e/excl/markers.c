/* Exclusion markers of every kind, for tests/e2e/exclude.sh (gcovr is the oracle). */
#include <stdio.h>
#include <stdlib.h>

static int checked(int x) {
  if (x < 0) {
    fprintf(stderr, "negative\n"); /* LCOV_EXCL_LINE */
    abort();                       // GCOVR_EXCL_LINE
  }
  return x * 2;
}

/* LCOV_EXCL_START */
static void never(void) {
  puts("never");
  if (rand() > 5)
    puts("really never");
}
/* LCOV_EXCL_STOP */

static int pick(int a, int b) {
  int r = 0;
  if (a > b && b > 0) /* LCOV_EXCL_BR_LINE */
    r = a;
  // GCOVR_EXCL_BR_START
  if (a == 7 || b == 7)
    r += 7;
  // GCOVR_EXCL_BR_STOP
  if (a < 0)
    r -= 1;
  return r;
}

static int custom(int v) {
  if (v > 1000) /* branches here go by --exclude-branches-by-pattern */
    v = 1000;
  if (v == 12345)
    puts("unreachable by pattern"); // SKIPME
  return v;
}

int main(int argc, char **argv) {
  (void)argv;
  int t = checked(argc) + pick(argc, 2) + custom(argc);
  if (t == -1)
    never();
  printf("%d\n", t);
  return 0;
}
