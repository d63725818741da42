/* SPDX-License-Identifier: MIT */
/*
 * What the workload drivers (lua_driver.c, zlib_driver.c) share: tracing the
 * run into a KCOV-style buffer through the variant's backend (backend.h),
 * reset whenever it is half full (as a fuzzer resets it per input), or in
 * UNIQUE mode over the whole run; the records counted.
 */
#ifndef UCOV_BENCH_DRIVER_TRACE_H
#define UCOV_BENCH_DRIVER_TRACE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

#define AREA_WORDS (1u << 23)

static uint64_t *area;         /* PC mode: the buffer */
static uint64_t *unique_trace; /* UNIQUE mode: the trace */
static uint64_t records, overflows;

/* Start as MODE says (on, off, unique[:BITMAP_WORDS]). */
static void trace_start(const char *mode) {
  if (strcmp(mode, "on") == 0) {
    area = backend_start(AREA_WORDS, 0);
  } else if (strncmp(mode, "unique", 6) == 0) {
    uint64_t words = mode[6] == ':' ? strtoull(mode + 7, NULL, 0) : 1u << 14;
    unique_trace = backend_start(AREA_WORDS + words, words);
  }
}

/* The measured part begins: nothing recorded before counts. */
static void trace_zero(void) {
  __atomic_store_n(area           ? &area[0]
                   : unique_trace ? &unique_trace[0]
                                  : &records,
                   0, __ATOMIC_RELAXED);
}

/* Collect and reset a half-full buffer. */
static void trace_reset(void) {
  if (!area)
    return;
  uint64_t n = __atomic_load_n(&area[0], __ATOMIC_RELAXED);
  if (n >= AREA_WORDS - 1)
    overflows++;
  if (n > AREA_WORDS / 2) {
    records += n;
    __atomic_store_n(&area[0], 0, __ATOMIC_RELAXED);
  }
}

/* The end: the last records counted, tracing stopped. */
static void trace_stop(void) {
  if (area) {
    records += __atomic_load_n(&area[0], __ATOMIC_RELAXED);
    backend_stop();
  }
  if (unique_trace) {
    records = __atomic_load_n(&unique_trace[0], __ATOMIC_RELAXED);
    overflows = records >= AREA_WORDS - 1; /* the trace filled up: drops */
    backend_stop();
  }
}

#endif
