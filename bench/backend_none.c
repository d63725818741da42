/* SPDX-License-Identifier: MIT */
/* Variants without a trace buffer: plain, gcov, AFL-style counters. */
#include <stddef.h>

#include "backend.h"

uint64_t *backend_start(uint64_t words, uint64_t unique_words) {
  (void)words;
  (void)unique_words;
  return NULL;
}

void backend_stop(void) {}
