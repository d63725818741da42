/* SPDX-License-Identifier: MIT */
/* Code under test. Every function stays a function (noinline) so PCs map to it. */
#include "target.h"

#define NOINLINE __attribute__((noinline))

/* Keeps the optimiser from folding the branches away. */
volatile int tgt_sink;

NOINLINE int tgt_leaf(int x) {
  if (x & 1)
    return x * 3 + 1;
  return x / 2;
}

NOINLINE int tgt_mid_a(int x) {
  int r = tgt_leaf(x);
  if (r > 10)
    r -= 10;
  return r;
}

NOINLINE int tgt_mid_b(int x) {
  int r = tgt_leaf(x + 1);
  r += tgt_leaf(x + 2);
  return r;
}

NOINLINE int tgt_root(int x) {
  int r = tgt_mid_a(x);
  if (x > 0)
    r += tgt_mid_b(x);
  tgt_sink = r;
  return r;
}

NOINLINE int tgt_loop(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0)
      acc += i;
    else if (i % 3 == 1)
      acc ^= i;
    else
      acc -= 1;
    tgt_sink = acc;
  }
  return acc;
}

NOINLINE int tgt_cmp_const8(uint8_t x) {
  return x == 0x5a;
}

NOINLINE int tgt_cmp_const16(uint16_t x) {
  return x == 0x1234;
}

NOINLINE int tgt_cmp_const32(uint32_t x) {
  return x == 0xdeadbeefu;
}

NOINLINE int tgt_cmp_const64(uint64_t x) {
  return x == 0x1122334455667788ull;
}

NOINLINE int tgt_cmp_var32(uint32_t a, uint32_t b) {
  return a < b;
}

NOINLINE int tgt_cmp_var64(uint64_t a, uint64_t b) {
  return a < b;
}

NOINLINE int tgt_switch(uint32_t x) {
  switch (x) {
  case 3:
    tgt_sink = 1;
    return tgt_leaf(1);
  case 17:
    tgt_sink = 2;
    return tgt_leaf(2);
  case 1000:
    tgt_sink = 3;
    return tgt_leaf(3);
  case 77777:
    tgt_sink = 4;
    return tgt_leaf(4);
  default:
    return 0;
  }
}

NOINLINE int tgt_cmp_float(float a, float b) {
  return a < b;
}

NOINLINE int tgt_cmp_double(double a, double b) {
  return a < b;
}

/* One sink per thread function: they run concurrently. */
volatile int tgt_sink_a, tgt_sink_b;

NOINLINE int tgt_thread_a(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++)
    acc += (i & 1) ? 1 : 2;
  tgt_sink_a = acc;
  return acc;
}

NOINLINE int tgt_thread_b(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++)
    acc ^= (i & 2) ? 5 : 7;
  tgt_sink_b = acc;
  return acc;
}

NOINLINE int tgt_in_handler(int x) {
  if (x > 2)
    return x - 1;
  return x + 1;
}
