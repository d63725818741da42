/* SPDX-License-Identifier: MIT */
/* What each benchmark variant's tracing backend provides to the driver. */
#ifndef UCOV_BENCH_BACKEND_H
#define UCOV_BENCH_BACKEND_H

#include <stdint.h>

/*
 * Start tracing the calling thread into a buffer of `words` 64-bit words;
 * with unique_words, in UNIQUE mode with that many bitmap words first. Returns
 * the trace (its count first), or NULL if the variant has none.
 */
uint64_t *backend_start(uint64_t words, uint64_t unique_words);
void backend_stop(void);

#endif
