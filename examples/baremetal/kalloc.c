/* SPDX-License-Identifier: MIT */
/* A fixed-block allocator: 32 blocks of 64 bytes and a bitmap. */
#include <stdint.h>

#include "subsys.h"

#define BLOCKS 32
#define BLOCK 64
static uint8_t pool[BLOCKS][BLOCK];
static uint32_t used; /* bit i: block i is taken */

void *kalloc(size_t n) {
  if (n == 0 || n > BLOCK)
    return 0;
  for (int i = 0; i < BLOCKS; i++)
    if (!(used & (1u << i))) {
      used |= 1u << i;
      return pool[i];
    }
  return 0;
}

void kfree(void *p) {
  if (!p)
    return;
  uintptr_t off = (uintptr_t)p - (uintptr_t)pool;
  if (off < sizeof(pool) && off % BLOCK == 0)
    used &= ~(1u << (off / BLOCK));
}

int kalloc_free_blocks(void) {
  int n = 0;
  for (int i = 0; i < BLOCKS; i++)
    n += !(used & (1u << i));
  return n;
}
