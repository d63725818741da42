/* SPDX-License-Identifier: MIT */
/*
 * The Clang PGO kernel document's workflow (a kernel with CONFIG_PGO_CLANG
 * served by ucov's core, kernel/linux/builtin), for counts that must be
 * exact: a write to DIR/reset, then N read(-1, NULL, 0) (each enters the read
 * syscall's handlers once), then DIR/vmlinux.profraw copied to OUT. The file
 * is a snapshot taken at its open, so the copy's own read() calls come after
 * it: the program is the only one that runs meanwhile, and the handlers'
 * counts in OUT are N.
 * usage: pgo_vmlinux DIR N OUT
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char buf[1 << 16];

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: pgo_vmlinux DIR N OUT\n");
    return 2;
  }
  char path[256];
  snprintf(path, sizeof(path), "%s/reset", argv[1]);
  int fd = open(path, O_WRONLY);
  if (fd < 0 || write(fd, "1", 1) != 1) {
    perror(path);
    return 1;
  }
  close(fd);
  long n = atol(argv[2]);
  for (long i = 0; i < n; i++)
    if (read(-1, NULL, 0) != -1)
      return 1;
  snprintf(path, sizeof(path), "%s/vmlinux.profraw", argv[1]);
  int in = open(path, O_RDONLY), out = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0) {
    perror(in < 0 ? path : argv[3]);
    return 1;
  }
  ssize_t got;
  long total = 0;
  while ((got = read(in, buf, sizeof(buf))) > 0) {
    if (write(out, buf, (size_t)got) != got)
      return 1;
    total += got;
  }
  if (got < 0 || close(out)) {
    perror(argv[3]);
    return 1;
  }
  printf("pgo %ld %ld\n", n, total);
  return 0;
}
