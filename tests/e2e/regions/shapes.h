// Regions llvm-cov counts apart: a template's instances (one
// instantiation group), a macro's expansions, a static function in a header
// that two translation units include.
#ifndef SHAPES_H
#define SHAPES_H
#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))

static inline int sign(int v) {
  if (v < 0)
    return -1;
  return v > 0;
}

template <typename T>
T largest(const T *v, int n) {
  T best = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] > best)
      best = v[i];
  return n > 0 ? best : T();
}

int scale(int v);
#endif
