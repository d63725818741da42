/* SPDX-License-Identifier: MIT */
/* A -fprofile-generate test program: divisions, memcpy sizes and indirect calls
 * give TOPN, indirect-call, average, ior and time-profiler counters. */
#include <stdlib.h>
#include <string.h>

static unsigned sq(unsigned x) {
  return x * x;
}

static unsigned cube(unsigned x) {
  return x * x * x;
}

unsigned (*ops[2])(unsigned) = {sq, cube};

int main(int argc, char **argv) {
  char buf[64];
  long s = 0;
  int n = argc > 1 ? atoi(argv[1]) : 5000;
  for (int i = 1; i < n; i++) {
    s += i / (argc + 7);
    s += i % (argc * 8);
    memcpy(buf, argv[0], (size_t)(1 + i % 7));
    s += buf[0];
    s += ops[(i % 5) == 0]((unsigned)i) & 0xff;
  }
  return (int)(s & 1) * 0;
}
