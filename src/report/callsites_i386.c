/* SPDX-License-Identifier: MIT */
/* Call sites on i386 (a kernel's code): call rel32 (e8), addresses modulo 2^32; no PLT. */
#include "callsites.h"

#include <elf.h>
#include <string.h>

static int scan(const uint8_t *b, size_t size, uint64_t addr, const uint64_t *targets, int n,
                struct cs_list *out) {
  for (size_t i = 0; i + 5 <= size; i++) {
    if (b[i] != 0xe8)
      continue;
    int32_t rel;
    memcpy(&rel, b + i + 1, 4);
    uint64_t target = (addr + i + 5 + (uint64_t)(int64_t)rel) & 0xffffffffu;
    for (int t = 0; t < n; t++)
      if (target == targets[t]) {
        if (cs_add(out, addr + i))
          return -1;
        break;
      }
  }
  return 0;
}

const struct cs_arch cs_i386 = {EM_386, NULL, scan};
