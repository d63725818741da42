/* SPDX-License-Identifier: MIT */
/*
 * Benchmark driver, a block-dense workload: zlib (Debian's source package)
 * compresses and inflates SCALE rounds of 1 MiB of generated text at level
 * 6, in 16 KiB steps, and checks the round trip. deflate's match search and
 * inflate's decoding loops run a few instructions per basic block: the code
 * where per-block instrumentation costs the most. Optionally traces the whole
 * run into a KCOV-style buffer reset whenever it is half full, between steps
 * (as a fuzzer resets it per input). Prints the run time and the records.
 *
 * usage: zlib_driver SCALE on|off|unique[:BITMAP_WORDS]
 * This file is not instrumented; zlib's objects are.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver_trace.h"
#include "zlib.h"

#define TEXT (1u << 20)
#define STEP (16u << 10)

/* Words from a small vocabulary, numbers and punctuation, from a fixed
 * seed: text that compresses about 5:1, as prose and logs do. */
static void make_text(unsigned char *t, size_t n) {
  static const char *const words[] = {"the",   "coverage", "of",     "a",      "function",
                                      "block", "counter",  "trace",  "kernel", "with",
                                      "and",   "report",   "branch", "line",   "zlib"};
  uint32_t x = 12345;
  size_t k = 0;
  while (k < n) {
    x = x * 1103515245u + 12345u;
    const char *w = words[(x >> 16) % 15];
    char buf[32];
    int len = (x >> 8) % 9 == 0 ? snprintf(buf, sizeof(buf), "%u, ", (x >> 12) % 10007)
                                : snprintf(buf, sizeof(buf), "%s ", w);
    for (int i = 0; i < len && k < n; i++)
      t[k++] = (unsigned char)buf[i];
  }
}

/* One round: deflate text in STEP pieces into z, inflate it back into back
 * in STEP pieces. The compressed size, or 0 if the round trip failed. */
static size_t round_trip(const unsigned char *text, unsigned char *z, size_t zcap,
                         unsigned char *back) {
  z_stream d;
  memset(&d, 0, sizeof(d));
  if (deflateInit(&d, 6) != Z_OK)
    return 0;
  d.next_out = z;
  d.avail_out = (uInt)zcap;
  for (size_t at = 0; at < TEXT; at += STEP) {
    d.next_in = (Bytef *)(uintptr_t)(text + at);
    d.avail_in = STEP;
    if (deflate(&d, at + STEP < TEXT ? Z_NO_FLUSH : Z_FINISH) == Z_STREAM_ERROR)
      return 0;
    trace_reset();
  }
  size_t zlen = d.total_out;
  deflateEnd(&d);
  z_stream f;
  memset(&f, 0, sizeof(f));
  if (inflateInit(&f) != Z_OK)
    return 0;
  f.next_in = z;
  f.avail_in = (uInt)zlen;
  int rc = Z_OK;
  for (size_t at = 0; rc == Z_OK && at < TEXT; at += STEP) {
    f.next_out = back + at;
    f.avail_out = STEP;
    rc = inflate(&f, Z_NO_FLUSH);
    trace_reset();
  }
  inflateEnd(&f);
  return rc == Z_STREAM_END && memcmp(text, back, TEXT) == 0 ? zlen : 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: zlib_driver SCALE on|off|unique[:WORDS]\n");
    return 2;
  }
  int scale = atoi(argv[1]);
  size_t zcap = compressBound(TEXT);
  unsigned char *text = malloc(TEXT), *z = malloc(zcap), *back = malloc(TEXT);
  if (!text || !z || !back)
    return 1;
  make_text(text, TEXT);
  trace_start(argv[2]);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  trace_zero();
  size_t total = 0;
  for (int r = 0; r < scale; r++) {
    size_t zlen = round_trip(text, z, zcap, back);
    if (!zlen) {
      fprintf(stderr, "zlib_driver: round %d: the round trip failed\n", r);
      return 1;
    }
    total += zlen;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  trace_stop();
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("time %.6f records %llu overflows %llu result %zu\n", secs, (unsigned long long)records,
         (unsigned long long)overflows, total);
  free(text);
  free(z);
  free(back);
  return 0;
}
