/* SPDX-License-Identifier: MIT */
/*
 * The userspace twin of the demo module's workload: the same parser (the
 * bare-metal example's), built with --coverage, evaluates each argument once,
 * as the guest's reads of /dev/ucov-demo do. Its gcov line counts of parser.c
 * are the reference for the module's.
 */
#include <stdio.h>
#include <string.h>

#include "subsys.h"

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    long v = 0;
    const char *err = NULL;
    if (parse_expr(argv[i], strlen(argv[i]), &v, &err) == 0)
      printf("%ld\n", v);
    else
      printf("error: %s\n", err);
  }
  return 0;
}
