/*
 * A libFuzzer harness with a planted crash behind a chain of byte checks
 * ("FUZ"), for tests/e2e/libfuzzer.sh. Each run appends a line to
 * $HARNESS_LOG (when set): "c" for the crashing input, "x" otherwise, so the
 * test knows how many runs there were, crashing ones included. With
 * $HARNESS_SAFE set, nothing crashes (a process that must run on). The test
 * counts runs with ran(), of one block, called right after the line is
 * written: a run killed midway leaves a function's arcs unbalanced, and the
 * count gcov derives for a function with branches then reads wrong (see
 * tests/e2e/afl/target.c).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static __attribute__((noinline)) void ran(void) {}

static void note(const char *what) {
  const char *log = getenv("HARNESS_LOG");
  int fd = log ? open(log, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
  if (fd >= 0) {
    (void)!write(fd, what, 2);
    ran();
    close(fd);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
  int crash = n > 2 && d[0] == 'F' && d[1] == 'U' && d[2] == 'Z' && !getenv("HARNESS_SAFE");
  note(crash ? "c\n" : "x\n");
  if (n > 0 && d[0] == 'F')
    if (n > 1 && d[1] == 'U')
      if (n > 2 && d[2] == 'Z' && crash)
        abort();
  return 0;
}
