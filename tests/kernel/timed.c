// SPDX-License-Identifier: MIT
/*
 * timed N CMD ARG...: runs CMD N times (its output to /dev/null), each "%d"
 * in an ARG replaced by the run's number, and prints the fastest run's wall
 * time in microseconds; status 1 if any run fails. For the guest of
 * tests/kernel/linux.sh, whose busybox times to 10 ms.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return fprintf(stderr, "usage: timed N CMD ARG...\n"), 2;
  int n = atoi(argv[1]);
  long long best = -1;
  for (int r = 0; r < n; r++) {
    char **args = calloc((size_t)argc, sizeof(*args));
    if (!args)
      return 1;
    for (int i = 2; i < argc; i++) {
      char *p = strstr(argv[i], "%d");
      if (p && asprintf(&args[i - 2], "%.*s%d%s", (int)(p - argv[i]), argv[i], r, p + 2) < 0)
        return 1;
      if (!p)
        args[i - 2] = argv[i];
    }
    long long t0 = now_us();
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 1);
      dup2(fd, 2);
      execvp(args[0], args);
      _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
      return fprintf(stderr, "timed: %s failed\n", args[0]), 1;
    long long t = now_us() - t0;
    if (best < 0 || t < best)
      best = t;
  }
  printf("%lld\n", best);
  return 0;
}
