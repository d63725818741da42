#include <stdio.h>
#include <stdlib.h>

#include "pick.h"

static int check(int n) {
  int s = pick_sum(n);
  if (s > 3 && pick_clamp(s, 1, 5) == 5)
    return 1;
  if (pick_sum(n + 1) < 0)
    return 2;
  return 0;
}

int run(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 0;
  int r = check(n);
  if (r == 2 && pick_clamp(n, 0, 2) > 1)
    printf("%d\n", r);
  return 0;
}

#ifndef RUN_ONLY
int main(int argc, char **argv) {
  return run(argc, argv);
}
#endif
