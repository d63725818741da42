/*
 * A program for tests/e2e/twins_gcc.sh: global and static functions, a
 * static local, loops and comparisons, a call through a pointer, an
 * always_inline helper, a variadic function, and one whose cold part gcc
 * splits into a function of its own (big.part.0), and an interpreter whose
 * computed gotos go through a static table of label addresses, as Lua's
 * does (gcc copies such a function only with its table). hook.c counts the
 * hooks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int calls;

int g(int x) {
  static int seen;
  seen++;
  calls++;
  return x > 3 ? x * 2 : x + seen;
}

static int h(int x, int y) {
  if (y == 7)
    return x * y + calls;
  return x - calls;
}

static inline __attribute__((always_inline)) int twice(int x) {
  return 2 * x;
}

int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, int);
  va_end(ap);
  return s;
}

int big(int x) {
  if (__builtin_expect(x < 100, 1))
    return x;
  int s = 0;
  for (int i = 0; i < x; i++) {
    s += i * x;
    if (s % 7 == 3)
      s ^= x;
    if (s % 11 == 5)
      s += 3;
  }
  printf("big %d\n", s);
  return s;
}

int interp(const unsigned char *code, int n) {
  static const void *const ops[] = {&&op_add, &&op_sub, &&op_end};
  int acc = 0, pc = 0;
  goto *ops[code[pc++]];
op_add:
  acc += pc;
  goto *ops[code[pc++]];
op_sub:
  acc -= n;
  goto *ops[code[pc++]];
op_end:
  return acc;
}

int (*volatile via)(int) = g;

int f(int x) {
  int s = 0;
  for (int i = 0; i < x; i++)
    s += g(i) + h(i, i & 7) + twice(i);
  return s + via(x) + sum(3, x, 1, 2);
}

/* (main itself has no twin: entered before anyone traces) */
__attribute__((noinline)) int run(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 9;
  static const unsigned char code[] = {0, 0, 1, 0, 1, 1, 0, 2};
  int r = 0;
  for (int k = 0; k < 3; k++)
    r += f(n + k) + big(n * 12 + k) + interp(code, k);
  printf("result %d calls %d\n", r, calls);
  return 0;
}

int main(int argc, char **argv) {
  return run(argc, argv);
}
