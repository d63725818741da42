/* Markers under a project's own prefix (gcovr's --exclude-pattern-prefix),
 * the default ones beside them, and functions whose first lines hold code.
 * (Its braces stand where gcovr's function lines need them.) */
// clang-format off
#include <stdio.h>
#include <stdlib.h>

static int twice(int v) { return v > 0 ? 2 * v : -v; }

static int clamp(int v, int lo, int hi)
{
  if (v < lo) /* MYCOV_EXCL_BR_LINE */
    return lo;
  if (v > hi)
    return hi; /* MYCOV_EXCL_LINE */
  return v;
}

static void never(void) { puts("never"); }

/* MYCOV_EXCL_START */
static int unused(int v)
{
  if (v > 3)
    return v - 3;
  return v + 3;
}
/* MYCOV_EXCL_STOP */

static int other(int v)
{
  if (v == 7)
    return 1; /* LCOV_EXCL_LINE */
  return 0;
}

int main(int argc, char **argv)
{
  int v = argc > 1 ? atoi(argv[1]) : 0;
  if (v == 99)
    never();
  if (v == 98)
    return unused(v);
  printf("%d %d %d\n", twice(v), clamp(v, 0, 10), other(v));
  return 0;
}
