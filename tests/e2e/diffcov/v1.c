/* The baseline of tests/e2e/diffcov.sh: helper moves, gone is deleted. */
#include <stdio.h>

static int helper(int x) {
  if (x > 5)
    return x - 5;
  return x + 1;
}

static int gone(int x) {
  return x * 3;
}

int main(int argc, char **argv) {
  (void)argv;
  int v = helper(argc);
  if (argc > 3)
    v += gone(argc);
  printf("%d\n", v);
  return 0;
}
