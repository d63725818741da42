/* SPDX-License-Identifier: MIT */
/*
 * vmlinux's gcov counts of a syscall handler, exact between two reads and
 * after a reset (a kernel with CONFIG_GCOV_KERNEL served by ucov's core,
 * kernel/linux/builtin): GCDA is /sys/kernel/debug/gcov/.../read_write.gcda,
 * whose ksys_read every read() enters once.
 *   A: the file read (one snapshot per open), its read() calls counted;
 *   N read(-1, NULL, 0);
 *   B: the file read again;
 *   a write to the file (gcov.rst: resets its unit), then M read(-1, ...);
 *   C: the file read again.
 *   with RESET (gcov/reset): a write to it (every unit's reset), then 555
 *   read(-1, ...); D: the file read again.
 * Writes OUT/A.gcda, OUT/B.gcda, OUT/C.gcda (and D) and prints "gcov RA RB": the
 * read() calls that read A and B. So ksys_read's count is RA + N more in B
 * than in A, and M in C: the program is the only one that runs meanwhile.
 * usage: gcov_vmlinux GCDA N M OUT [RESET]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[4 << 20];

/* The file read whole into OUT/name: how many read() calls it took. */
static long snapshot(const char *gcda, const char *out, const char *name) {
  int fd = open(gcda, O_RDONLY);
  if (fd < 0)
    perror(gcda), exit(1);
  long calls = 0;
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, buf + len, sizeof(buf) - len);
    calls++;
    if (n < 0)
      perror("read"), exit(1);
    if (n == 0)
      break;
    len += (size_t)n;
  }
  close(fd);
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", out, name);
  int o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (o < 0 || write(o, buf, len) != (ssize_t)len)
    perror(path), exit(1);
  close(o);
  return calls;
}

int main(int argc, char **argv) {
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: gcov_vmlinux GCDA N M OUT [RESET]\n");
    return 2;
  }
  long n = atol(argv[2]), m = atol(argv[3]);
  long ra = snapshot(argv[1], argv[4], "A.gcda");
  for (long i = 0; i < n; i++)
    if (read(-1, NULL, 0) != -1)
      return 1;
  long rb = snapshot(argv[1], argv[4], "B.gcda");
  int fd = open(argv[1], O_WRONLY);
  if (fd < 0 || write(fd, "1", 1) != 1)
    perror("reset"), exit(1);
  close(fd);
  for (long i = 0; i < m; i++)
    if (read(-1, NULL, 0) != -1)
      return 1;
  snapshot(argv[1], argv[4], "C.gcda");
  if (argc == 6) { /* every unit's reset, then 555 reads */
    fd = open(argv[5], O_WRONLY);
    if (fd < 0 || write(fd, "1", 1) != 1)
      perror(argv[5]), exit(1);
    close(fd);
    for (long i = 0; i < 555; i++)
      if (read(-1, NULL, 0) != -1)
        return 1;
    snapshot(argv[1], argv[4], "D.gcda");
  }
  printf("gcov %ld %ld\n", ra, rb);
  return 0;
}
