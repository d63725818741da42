// The C test again, as C++, with a template of two instances.
#define RUN_ONLY
#include "t.c"

template <typename T>
static T twice(T v) {
  if (v > T(0))
    return v + v;
  return T(0);
}

int main(int argc, char **argv) {
  printf("%d %g\n", twice(argc), twice(-1.5));
  return run(argc, argv);
}
