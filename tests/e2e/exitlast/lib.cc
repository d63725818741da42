// SPDX-License-Identifier: MIT
// A library whose unload runs its instrumented code (tests/e2e/exitlast.sh):
// lib_g() runs once through lib_f, once in a global's destructor and once
// in a destructor function, 3 calls in all.
volatile int lib_sink; // (so that no call is left out as unused)

__attribute__((noinline)) int lib_g(int x) {
  lib_sink = lib_sink + x;
  return x * 5 + 2;
}

struct LibGlobal {
  ~LibGlobal() { lib_g(1); }
};
static LibGlobal lib_global;

__attribute__((destructor)) static void lib_destructor(void) {
  lib_g(2);
}

extern "C" int lib_f(int x) {
  return lib_g(x);
}
