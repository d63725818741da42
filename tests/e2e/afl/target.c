/*
 * A fuzzing target with a planted crash behind a chain of byte checks
 * ("FUZ!") and a planted hang ("HANG"), for tests/e2e/afl.sh. Each execution
 * appends its input's first bytes to $TARGET_LOG (when set), so the test
 * knows how many times it ran, and which runs crashed; with -DPERSISTENT, AFL++'s persistent mode
 * runs many in one process (__AFL_LOOP). The tests count executions with
 * ran(), not one(): see there.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(const unsigned char *b, size_t n) {
  if (n > 0 && b[0] == 'F')
    if (n > 1 && b[1] == 'U')
      if (n > 2 && b[2] == 'Z')
        if (n > 3 && b[3] == '!')
          abort();
  if (n > 3 && !memcmp(b, "HANG", 4))
    for (;;)
      pause();
  int sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += b[i] % 7 == 3 ? 2 : 1;
  return sum;
}

/*
 * Called once per execution, right after its line is logged. Of one block,
 * its count is its calls even when an execution is killed midway (a
 * timeout, on a loaded machine). one()'s count is not: gcov derives a
 * function's count from its arcs, and an execution cut short between two of
 * them leaves the flow unbalanced; one killed after one()'s first branch
 * reads as two entries, in gcov and llvm-cov alike.
 */
static __attribute__((noinline)) void ran(void) {}

static void one(void) {
  unsigned char buf[256];
  ssize_t n = read(0, buf, sizeof(buf));
  const char *log = getenv("TARGET_LOG");
  if (log) { /* (the input's first 4 bytes, printable, then a newline) */
    char line[5] = "....\n";
    for (ssize_t i = 0; i < 4 && i < n; i++)
      line[i] = buf[i] > ' ' && buf[i] < 127 ? (char)buf[i] : '.';
    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
      (void)!write(fd, line, sizeof(line));
      ran(); /* (at once: a kill between the two is all but impossible) */
      close(fd);
    }
  }
  parse(buf, n > 0 ? (size_t)n : 0);
}

int main(void) {
#ifdef PERSISTENT
  while (__AFL_LOOP(1000))
    one();
#else
  one();
#endif
  return 0;
}
