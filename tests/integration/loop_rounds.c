/* SPDX-License-Identifier: MIT */
/*
 * Target of the store's partition test: loops that stay on one line (gcov
 * counts a line's loops by their smallest arc, which does not add across
 * snapshots), run long enough to be pulled many times while they turn.
 * usage: loop_rounds N (after one byte on standard input: a go)
 */
#include <stdlib.h>
#include <unistd.h>

static volatile long sink;

/* (each loop on one line, as written: the point of this file) */
// clang-format off
static void work(int k) {
  for (int i = 0; i < k; i++) if (i % 3) sink++; else sink--;
  for (int i = 0; i < k; i++) { if (k & 1) continue; sink += 2; }
  int i = 0; while (i < k) { if (sink & 1) sink += 3; i++; }
  for (int a = 0; a < k / 1000; a++) for (int b = 0; b < a; b++) sink += b;
}
// clang-format on

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  char c;
  if (read(0, &c, 1) < 0)
    return 1;
  // clang-format off
  for (int r = 0; r < n; r++) work(300000 + r);
  // clang-format on
  return 0;
}
