#include <cstdio>
#include <cstdlib>

#include "shapes.h"

struct Counter {
  int n = 0;
  Counter() {
    n = 1;
  }
  ~Counter() {
    if (n > 100)
      std::puts("many");
  }
};

int main(int argc, char **argv) {
  Counter c;
  int ints[3] = {1, argc, 3};
  double reals[2] = {0.5, argc > 2 ? 2.5 : -1.0};
  int mode = argc > 1 ? std::atoi(argv[1]) : 0;
  auto twice = [&](int v) { return v > 0 ? 2 * v : 0; };
  if (mode == 1)
    std::printf("%d\n", largest(ints, 3));
  else if (mode == 2)
    std::printf("%g\n", largest(reals, 2));
  else
    std::printf("%d %d\n", scale(mode), twice(sign(mode)));
  return 0;
}
