/* tests/e2e/linerule.sh: lines gcovr and lcov count differently (braces, else, comments). */
// clang-format off
#include "lib.h"

int classify(int x)
{
  if (x < 0)
  {
    return -1;
  }
  else
  {
    if (x == 0) return 0; // zero
  }
  /* positive */
  return 1;
}

int never(int y)
{
  switch (y) {
  case 1:
    return 10;
  default:
    break;
  }
  return y * 2;
}

int loop(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    s += i;
  }
  return s;
}

static int sink;
void touch(int v)
{
  sink += v;
}

void untouched(int v)
{
  if (v)
    sink = v;
  else
    sink = 0;
}
