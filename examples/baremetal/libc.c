/* SPDX-License-Identifier: MIT */
/*
 * What a freestanding i386 build still calls: the four memory functions the
 * compiler may emit, and libgcc's 64-bit division (there is no 32-bit libgcc
 * here to link).
 */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

void *memcpy(void *d, const void *s, size_t n) {
  uint8_t *dp = d;
  const uint8_t *sp = s;
  while (n--)
    *dp++ = *sp++;
  return d;
}

void *memmove(void *d, const void *s, size_t n) {
  uint8_t *dp = d;
  const uint8_t *sp = s;
  if (dp < sp)
    return memcpy(d, s, n);
  while (n--)
    dp[n] = sp[n];
  return d;
}

void *memset(void *d, int c, size_t n) {
  uint8_t *dp = d;
  while (n--)
    *dp++ = (uint8_t)c;
  return d;
}

int memcmp(const void *a, const void *b, size_t n) {
  const uint8_t *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}

/* Shift and subtract: quotient and remainder of n / d (d != 0). */
static uint64_t divmod(uint64_t n, uint64_t d, uint64_t *rem) {
  uint64_t q = 0, r = 0;
  for (int i = 63; i >= 0; i--) {
    r = r << 1 | ((n >> i) & 1);
    if (r >= d) {
      r -= d;
      q |= 1ull << i;
    }
  }
  *rem = r;
  return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d) {
  uint64_t r;
  return divmod(n, d, &r);
}

uint64_t __umoddi3(uint64_t n, uint64_t d) {
  uint64_t r;
  divmod(n, d, &r);
  return r;
}

int64_t __divdi3(int64_t n, int64_t d) {
  uint64_t r,
      q = divmod(n < 0 ? -(uint64_t)n : (uint64_t)n, d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
  return (n < 0) != (d < 0) ? -(int64_t)q : (int64_t)q;
}

int64_t __moddi3(int64_t n, int64_t d) {
  uint64_t r;
  divmod(n < 0 ? -(uint64_t)n : (uint64_t)n, d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
  return n < 0 ? -(int64_t)r : (int64_t)r;
}
