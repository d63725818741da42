/* SPDX-License-Identifier: MIT */
/* Unified diffs (git's and diff -u's), read into runs of changed lines. */
#include <unistd.h>

#include "fuzz.h"
#include "diffcov/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  int fd = fuzz_input(data, size, path);
  if (fd < 0)
    return 0;
  struct udiff *u = NULL;
  if (udiff_read(path, &u) == 0)
    udiff_free(u);
  close(fd);
  return 0;
}
