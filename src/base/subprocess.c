/* SPDX-License-Identifier: MIT */
/* Running the tools a report needs (see subprocess.h). */
#define _GNU_SOURCE
#include "subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* Write the tool's error text with each temporary path replaced by the
 * user's: a message about a corrupt .gcda names the file the user gave. */
static void print_mapped(const char *text, size_t n, const struct path_map *map, size_t n_map) {
  size_t i = 0;
  while (i < n) {
    size_t best = 0, k = 0;
    for (size_t j = 0; j < n_map; j++) {
      size_t fl = strlen(map[j].from);
      if (fl > best && fl <= n - i && memcmp(text + i, map[j].from, fl) == 0)
        best = fl, k = j;
    }
    if (best) {
      fputs(map[k].to, stderr);
      i += best;
    } else {
      fputc(text[i++], stderr);
    }
  }
}

/* How long a tool (gcov, llvm-cov, llvm-profdata) may run on one input. */
int tool_timeout_ms(void) {
  const char *e = getenv("UCOV_TOOL_TIMEOUT");
  long s = e && *e ? strtol(e, NULL, 10) : 300;
  return s > 0 && s < 86400 ? (int)(s * 1000) : 300000;
}

/* Append what fd has to *buf (grown), 0; or -1 at EOF or an error. */
static int drain(int fd, char **buf, size_t *n, size_t *cap) {
  if (ucov_grow((void **)buf, cap, *n + 65536, 1, 65536 * 2))
    return -1;
  ssize_t r = read(fd, *buf + *n, 65536);
  if (r < 0 && (errno == EINTR || errno == EAGAIN))
    return 0;
  if (r <= 0)
    return -1;
  *n += (size_t)r;
  return 0;
}

int run_capture(char *const argv[], const char *cwd, char **out, size_t *len,
                const struct path_map *map, size_t n_map) {
  int fds[2], efds[2];
  if (pipe2(fds, O_CLOEXEC))
    return -1;
  if (pipe2(efds, O_CLOEXEC)) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    close(efds[0]);
    close(efds[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(efds[1], 2);
    if (cwd && chdir(cwd))
      _exit(127);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  close(efds[1]);
  char *buf = NULL, *ebuf = NULL;
  size_t n = 0, cap = 0, en = 0, ecap = 0;
  int open_out = 1, open_err = 1, failed = 0, timed_out = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int limit = tool_timeout_ms();
  while (open_out || open_err) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    long spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
    if (spent >= limit) {
      timed_out = 1;
      kill(pid, SIGKILL);
      break;
    }
    struct pollfd p[2] = {{open_out ? fds[0] : -1, POLLIN, 0},
                          {open_err ? efds[0] : -1, POLLIN, 0}};
    int r = poll(p, 2, (int)(limit - spent));
    if (r < 0 && errno != EINTR) {
      failed = 1;
      break;
    }
    if (r <= 0)
      continue;
    if (open_out && p[0].revents && drain(fds[0], &buf, &n, &cap))
      open_out = 0, failed |= !buf;
    if (open_err && p[1].revents && drain(efds[0], &ebuf, &en, &ecap))
      open_err = 0;
  }
  close(fds[0]);
  close(efds[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (en)
    print_mapped(ebuf, en, map, n_map);
  free(ebuf);
  if (timed_out) {
    free(buf);
    return RUN_TIMEOUT;
  }
  if (failed || (!buf && !(buf = malloc(1)))) {
    free(buf);
    return -1;
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

char *temp_dir(char *buf, size_t len, const char *what) {
  const char *base = getenv("TMPDIR");
  snprintf(buf, len, "%s/ucov-%s-XXXXXX", base && *base ? base : "/tmp", what);
  char *d = mkdtemp(buf);
  if (!d)
    UCOV_ERR("report: no temporary directory (%s): %s\n", buf, strerror(errno));
  return d;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  remove(path);
  return 0;
}

void rm_tree(const char *dir) {
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
