// SPDX-License-Identifier: MIT
// A program whose exit runs instrumented code in every order a C++ program
// can (tests/e2e/exitlast.sh): f() runs once in main and once in each of
// five exit paths, 6 calls in all; lib_f (lib.cc, when linked) 3 more of
// its own. Built -DWITH_LIB to call the library.
#include <cstdlib>

#ifdef WITH_LIB
extern "C" int lib_f(int);
#endif

volatile int sink; // (so that no call is left out as unused)

__attribute__((noinline)) int f(int x) {
  sink = sink + x;
  return x * 3 + 1;
}

// Constructed before every constructor of default priority (the
// runtime's own included): its destructor runs after theirs.
struct Early {
  ~Early() { f(1); }
};
static Early early __attribute__((init_priority(101)));

struct Late {
  ~Late() { f(2); }
};
static Late late;

static void handler_main(void) {
  f(3);
}

static void handler_ctor(void) {
  f(4);
}

// An exit handler registered before any constructor of default priority.
__attribute__((constructor(101))) static void register_early(void) {
  atexit(handler_ctor);
}

__attribute__((destructor)) static void plain_destructor(void) {
  f(5);
}

int main() {
  atexit(handler_main);
  int r = f(0);
#ifdef WITH_LIB
  r += lib_f(0);
#endif
  return r == 42;
}
