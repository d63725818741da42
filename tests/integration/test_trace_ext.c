/* SPDX-License-Identifier: MIT */
/* KCOV_TRACE_PC_EXT: entry/exit records balance and nest; NORMAL records are tagged. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "../check.h"
#include "../testlib.h"
#include "target.h"
#include "ucov/ucov.h"

#define SIZE 4096

static uint64_t trace(int fd, uint64_t *buf, unsigned long mode, uint64_t *copy) {
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, mode));
  __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  tgt_root(5);
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_RELAXED);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  memcpy(copy, buf + 1, n * 8);
  return n;
}

int main(void) {
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, SIZE));
  uint64_t *buf = map_buffer(fd, SIZE);
  static uint64_t ext[SIZE], pc[SIZE];
  uint64_t n = trace(fd, buf, KCOV_TRACE_PC_EXT, ext);
  uint64_t npc = trace(fd, buf, KCOV_TRACE_PC, pc);

  const char *stack[64];
  int depth = 0, max_depth = 0;
  const char *entered[16];
  int nentered = 0;
  uint64_t normal = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t type = KCOV_RECORD_TYPE(ext[i]);
    const char *f = pc_function(KCOV_RECORD_IP(ext[i]));
    if (type == KCOV_RECORD_ENTRY) {
      CHECK(depth < 64);
      if (depth < 64)
        stack[depth++] = f;
      if (nentered < 16)
        entered[nentered++] = f;
      if (depth > max_depth)
        max_depth = depth;
    } else if (type == KCOV_RECORD_EXIT) {
      CHECK(depth > 0);
      if (depth > 0) {
        if (strcmp(stack[depth - 1], f) != 0)
          fprintf(stderr, "exit from %s while in %s\n", f, stack[depth - 1]);
        CHECK(strcmp(stack[depth - 1], f) == 0);
        depth--;
      }
    } else {
      CHECK_EQ(type, KCOV_RECORD_NORMAL);
      normal++;
      /* A block of the current function, or of the one whose entry comes next
       * (the entry block's trace_pc may precede the entry hook). */
      int ok = depth > 0 && strcmp(stack[depth - 1], f) == 0;
      for (uint64_t j = i + 1; !ok && j < n; j++) {
        if (KCOV_RECORD_TYPE(ext[j]) == KCOV_RECORD_NORMAL)
          continue;
        ok = KCOV_RECORD_TYPE(ext[j]) == KCOV_RECORD_ENTRY &&
             strcmp(pc_function(KCOV_RECORD_IP(ext[j])), f) == 0;
        break;
      }
      if (!ok)
        fprintf(stderr, "block of %s at depth %d\n", f, depth);
      CHECK(ok);
    }
  }
  CHECK_EQ(depth, 0);
  CHECK_EQ(max_depth, 3);
  /* Entries in call order. */
  static const char *const want[] = {"tgt_root",  "tgt_mid_a", "tgt_leaf",
                                     "tgt_mid_b", "tgt_leaf",  "tgt_leaf"};
  CHECK_EQ(nentered, 6);
  for (int i = 0; i < 6 && i < nentered; i++)
    CHECK(strcmp(entered[i], want[i]) == 0);
  /* The NORMAL records are exactly the PC-mode trace, tagged; PC mode has no entry/exit. */
  CHECK_EQ(normal, npc);
  uint64_t k = 0;
  for (uint64_t i = 0; i < n; i++)
    if (KCOV_RECORD_TYPE(ext[i]) == KCOV_RECORD_NORMAL) {
      CHECK_EQ(KCOV_RECORD_IP(ext[i]), pc[k]);
      k++;
    }
  munmap(buf, SIZE * 8);
  ucov_close(fd);
  return check_report("test_trace_ext");
}
