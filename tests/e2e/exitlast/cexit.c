/* SPDX-License-Identifier: MIT */
/* The C side of tests/e2e/exitlast.sh: f() runs once in main, once in an
 * exit handler registered before any constructor of default priority (the
 * runtime's own included), once in one registered by main and once in a
 * destructor: 4 calls. */
#include <stdlib.h>

volatile int sink; /* (so that no call is left out as unused) */

__attribute__((noinline)) int f(int x) {
  sink = sink + x;
  return x * 3 + 1;
}

static void handler_ctor(void) {
  f(1);
}

static void handler_main(void) {
  f(2);
}

__attribute__((constructor(101))) static void register_early(void) {
  atexit(handler_ctor);
}

__attribute__((destructor)) static void plain_destructor(void) {
  f(3);
}

int main(void) {
  atexit(handler_main);
  return f(0) == 42;
}
