#include "shapes.h"

int scale(int v) {
  int c = CLAMP(v, -10, 10);
  return sign(c) * CLAMP(c * c, 0, 50);
}
