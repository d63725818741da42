/* SPDX-License-Identifier: MIT */
/*
 * A program with value sites (indirect calls, memcpy and memset sizes) and an
 * MC/DC decision, for the LLVM profile tests. Commands "OP ARG N" (N times:
 * c = call op ARG, m = memcpy of ARG bytes, s = memset of ARG bytes, d =
 * decide(ARG bits)) come as argument triples, or as lines on stdin when there
 * are no arguments; each line is answered "ok" (live tests wait for it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*op_fn)(int);
__attribute__((noinline)) static int op_inc(int x) {
  return x + 1;
}
__attribute__((noinline)) static int op_dbl(int x) {
  return x * 2;
}
__attribute__((noinline)) static int op_neg(int x) {
  return -x;
}
__attribute__((noinline)) static int op_sq(int x) {
  return x * x;
}
static op_fn ops[4] = {op_inc, op_dbl, op_neg, op_sq};
static char dst[8192], src[8200];
static volatile int sink;

__attribute__((noinline)) static int decide(int a, int b, int c) {
  if ((a && b) || c)
    return 1;
  return 0;
}

static void run(char op, int arg, int n) {
  size_t size = (size_t)arg % sizeof(dst);
  for (int i = 0; i < n; i++) {
    if (op == 'c')
      sink += ops[arg & 3](i);
    else if (op == 'm')
      sink += *(char *)memcpy(dst, src + (i & 7), size);
    else if (op == 's')
      sink += *(char *)memset(dst, i, size);
    else if (op == 'd')
      sink += decide(arg & 1, arg & 2, arg & 4);
  }
}

int main(int argc, char **argv) {
  for (int i = 1; i + 2 < argc; i += 3)
    run(argv[i][0], atoi(argv[i + 1]), atoi(argv[i + 2]));
  if (argc > 1)
    return 0;
  char line[128], op;
  int arg, n;
  while (fgets(line, sizeof(line), stdin) && line[0] != 'q') {
    if (sscanf(line, " %c %d %d", &op, &arg, &n) == 3)
      run(op, arg, n);
    printf("ok\n");
    fflush(stdout);
  }
  return 0;
}
