/* SPDX-License-Identifier: MIT */
/* Helpers of the fuzz harnesses (fuzz.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "base/diag.h"

int fuzz_file(const uint8_t *data, size_t size, char *path) {
  int fd = memfd_create("fuzz", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t done = 0;
  while (done < size) {
    ssize_t w = write(fd, data + done, size - done);
    if (w <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)w;
  }
  snprintf(path, 64, "/proc/self/fd/%d", fd);
  return fd;
}

static void drop(struct diag_sink *s, const struct diag *d) {
  (void)s;
  (void)d;
}

void fuzz_quiet(void) {
  static struct diag_sink quiet = {.emit = drop};
  static int done;
  if (!done) {
    diag_sink_set(&quiet);
    done = 1;
  }
}

int fuzz_input(const uint8_t *data, size_t size, char *path) {
  fuzz_quiet();
  return fuzz_file(data, size, path);
}
