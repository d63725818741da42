/* The current sources of tests/e2e/diffcov.sh: helper moved, gone deleted. */
#include <stdio.h>

static int helper(int x);

static int fresh(int x) {
  if (x > 100)
    return 0;
  return x;
}

int main(int argc, char **argv) {
  (void)argv;
  int v = helper(argc) + fresh(argc);
  printf("%d\n", v);
  return 0;
}

static int helper(int x) {
  if (x > 5)
    return x - 5;
  return x + 1;
}
