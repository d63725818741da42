/* SPDX-License-Identifier: MIT */
/* lcov tracefiles (1.x and 2.x records) read, then written in both forms. */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "readers/readers.h"
#include "writers/writers.h"
#include "base/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  int fd = fuzz_input(data, size, path);
  if (fd < 0)
    return 0;
  struct cov_model m;
  cov_init(&m);
  if (lcov_read(&m, path) == 0) {
    cov_finish(&m);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      lcov_write(&m, null);
      lcov_write2(&m, null);
      fclose(null);
    }
  }
  cov_free(&m);
  close(fd);
  return 0;
}
