/* SPDX-License-Identifier: MIT */
/*
 * The floor: the least a KCOV-style trace_pc callback can do. Thread-local
 * area and size, bounds check, count then PC; no modes, no signal fence.
 */
#include <stdlib.h>

#include "backend.h"

static __thread __attribute__((tls_model("initial-exec"))) uint64_t *floor_area;
static __thread __attribute__((tls_model("initial-exec"))) uint64_t floor_size;

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void) {
  uint64_t *a = floor_area;
  if (!a)
    return;
  uint64_t pos = a[0] + 1;
  if (pos < floor_size) {
    a[0] = pos;
    a[pos] = (uint64_t)__builtin_return_address(0);
  }
}

uint64_t *backend_start(uint64_t words, uint64_t unique_words) {
  if (unique_words)
    return NULL; /* the floor has no unique mode */
  uint64_t *a = calloc(words, 8);
  floor_size = words;
  floor_area = a;
  return a;
}

void backend_stop(void) {
  floor_area = NULL;
}
