/* tests/e2e/store.sh: a program of the build that no test runs. */
#include <stdio.h>

static int usage(const char *me) {
  fprintf(stderr, "usage: %s N\n", me);
  return 2;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return usage(argv[0]);
  printf("%d\n", argv[1][0] == '-');
  return 0;
}
