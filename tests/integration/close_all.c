/* SPDX-License-Identifier: MIT */
/*
 * A client that closes every descriptor it did not open, as syzkaller's
 * executor does (close_range(3, 30)), then reuses the lowest numbers for
 * files of its own: ucov's control socket must come back on its own, and
 * the program's descriptors must stay its own, in it and in a child.
 * usage: close_all FILE (prints "ready FD"; on each line of standard
 * input, prints what FD reads from its start, then a child's reading of it)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

static void show(const char *who, int fd) {
  char buf[64] = "";
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  buf[strcspn(buf, "\n")] = 0;
  printf("%s %s\n", who, n > 0 ? buf : "(unreadable)");
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  usleep(300000); /* (ucov's server is up: its socket is among 3..30) */
  syscall(SYS_close_range, 3, 30, 0);
  int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  printf("ready %d\n", fd);
  fflush(stdout);
  char line[64];
  while (fgets(line, sizeof(line), stdin)) {
    show("parent", fd);
    pid_t p = fork();
    if (p == 0) {
      usleep(300000); /* (after the runtime's fork handling) */
      show("child", fd);
      _exit(0);
    }
    waitpid(p, NULL, 0);
  }
  return 0;
}
