#ifndef PICK_H
#define PICK_H
#ifdef __cplusplus
extern "C" {
#endif
int pick_sum(int n);
#ifdef __cplusplus
}
#endif

static inline int pick_clamp(int v, int lo, int hi) {
  if (v < lo && lo > 0)
    return lo;
  return v > hi ? hi : v;
}
#endif
