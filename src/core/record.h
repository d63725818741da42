/* SPDX-License-Identifier: MIT */
/*
 * The appends every hook uses, into the calling task's trace (ucov/port/task.h
 * has the task's state): the core's own, never a port's.
 */
#ifndef UCOV_CORE_RECORD_H
#define UCOV_CORE_RECORD_H

#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/kcov.h"
#include "ucov/port/task.h"

/* The NORMAL tag of TRACE_PC_EXT records, in place. */
#define KCOV_RECORD_NORMAL_TAG (KCOV_RECORD_NORMAL << KCOV_RECORD_TYPE_SHIFT)
#define KCOV_RECORD_EXIT_TAG (KCOV_RECORD_EXIT << KCOV_RECORD_TYPE_SHIFT)
/* A tagged record: the tag replaces the address's top byte (a kernel
 * address's 0xff, which a reader restores: KCOV_RECORD_PC). */
#define KCOV_RECORD_TAGGED(pc, tag) (((pc)&KCOV_RECORD_IP_MASK) | (tag))

/*
 * Append one word record. Order as in kernel/kcov.c: read the count, check the
 * bound, publish the new count, then the record. If a signal handler traces
 * between the count store and the record store, its record lands after ours
 * and both survive; a full buffer drops silently with count = size - 1.
 */
static UCOV_ALWAYS_INLINE void trace_append_word(uint64_t *area, uint64_t size, uint64_t rec) {
  uint64_t pos = UCOV_LOAD(&area[0]) + 1;
  if (UCOV_LIKELY(pos < size)) {
    UCOV_STORE(&area[0], pos);
    UCOV_SIGNAL_FENCE();
    UCOV_STORE(&area[pos], rec);
  }
}

/*
 * UNIQUE mode: append pc unless bit `key` of the bitmap is set, and set it.
 * Only this task writes its bitmap (a signal handler in between can at worst
 * make a PC appear twice, never lose one). A key beyond the bitmap cannot be
 * deduplicated: that PC is appended every time. in_range: the caller knows
 * the key fits (address keys do: they are masked).
 */
static UCOV_ALWAYS_INLINE void trace_append_unique(struct ucov_task *t, uint64_t *bitmap,
                                                   uint64_t key, uint64_t pc, int in_range) {
  if (in_range || UCOV_LIKELY(key < t->bitmap_bits)) {
    uint64_t *word = &bitmap[key / 64], bit = 1ull << (key % 64);
    uint64_t seen = UCOV_LOAD(word);
    if (seen & bit)
      return;
    UCOV_STORE(word, seen | bit);
  }
  trace_append_word(t->area, t->size, pc);
}

/*
 * gcc has only trace-pc, so UNIQUE mode keys a PC by its address: bits 2 and
 * up, modulo the largest power of two of bits the bitmap holds. A call to the
 * hook takes 5 bytes, so two return addresses differ by 5 or more and never
 * share bits 2 and up: within a window of 4 bytes per bitmap bit of code the
 * keys are exact. PCs farther apart than that can share a bit, and the second
 * is then never appended (bench/RESULTS-unique.md measures it). A shift and a
 * mask: no multiply on the hot path.
 */
static UCOV_ALWAYS_INLINE uint64_t pc_key(uint64_t pc, uint64_t mask) {
  return (pc >> 2) & mask;
}

/* The mask for a bitmap of `bits` bits (at least 64): its largest power of two, less one. */
static inline uint64_t pc_key_mask(uint64_t bits) {
  return (1ull << (63 - __builtin_clzll(bits))) - 1;
}

/* Start and stop tracing on the calling task (device layer only). In UNIQUE
 * mode the bitmap is the first bitmap_words words of the buffer and the trace
 * (area, size) follows it. */
void ucov_task_start(struct ucov_task *t, struct ucov_device *dev, uint64_t *area, uint64_t size,
                     uint32_t mode, uint64_t *bitmap, uint64_t bitmap_words) UCOV_HIDDEN;
void ucov_task_stop(struct ucov_task *t) UCOV_HIDDEN;

#endif
