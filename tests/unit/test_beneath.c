/* SPDX-License-Identifier: MIT */
/*
 * Files written beneath a directory never go through a link (a link on the
 * way or as the last component, one the writer made itself, or one planted
 * by someone else), never leave it (".." or an absolute name), and directories
 * are created only beneath it. Built twice: with openat2, and component by
 * component (UCOV_BENEATH_NO_OPENAT2), as on a kernel without it.
 * Usage: test_beneath WORKDIR
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "posix/beneath.h"

static char root[1024], dir[1100], outside[1100];

static int exists(const char *base, const char *rel) {
  char p[4200];
  struct stat st;
  snprintf(p, sizeof(p), "%s/%s", base, rel);
  return lstat(p, &st) == 0;
}

static int write_at(const char *rel, int flags) {
  int fd = ucov_at_open(dir, rel, O_WRONLY | O_CREAT | O_EXCL, 0644, flags);
  if (fd < 0)
    return -1;
  CHECK(write(fd, "x", 1) == 1);
  close(fd);
  return 0;
}

/* A fresh tree: dir/sub with links out of it, dir/file, outside/victim;
 * victim's path into cmd. 0, or -1. */
static int setup(char *cmd, size_t len) {
  snprintf(cmd, len, "rm -rf '%s' && mkdir -p '%s/sub' '%s' && touch '%s/victim'", root, dir,
           outside, outside);
  if (system(cmd) != 0)
    return -1;
  char p[2400];
  snprintf(p, sizeof(p), "%s/sub/link", dir); /* a link to a directory outside */
  CHECK(symlink(outside, p) == 0);
  snprintf(p, sizeof(p), "%s/sub/flink", dir); /* a link to a file outside */
  snprintf(cmd, len, "%s/victim", outside);
  CHECK(symlink(cmd, p) == 0);
  snprintf(p, sizeof(p), "%s/file", dir);
  CHECK(close(open(p, O_WRONLY | O_CREAT, 0644)) == 0);
  return 0;
}

static int open_fds(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  for (struct dirent *e; d && (e = readdir(d));)
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n - 1; /* (the listing's own) */
}

static void checks(const char *cmd) {
  char p[2400];
  /* Plain use: directories made beneath, the file written. */
  CHECK(write_at("a/b/c/f.gcda", UCOV_BENEATH_MKDIR) == 0);
  CHECK(exists(dir, "a/b/c/f.gcda"));
  CHECK_ERRNO(write_at("x/y", 0), ENOENT); /* no MKDIR: not made */
  CHECK(!exists(dir, "x"));

  /* A link on the way, with or without directories to make past it. */
  CHECK_ERRNO(write_at("sub/link/f", UCOV_BENEATH_MKDIR), ELOOP);
  CHECK_ERRNO(write_at("sub/link/new/f", UCOV_BENEATH_MKDIR), ELOOP);
  CHECK(!exists(outside, "f") && !exists(outside, "new"));
  /* A link as the last component: not written through, even without O_EXCL. */
  int fd = ucov_at_open(dir, "sub/flink", O_WRONLY | O_TRUNC, 0, 0);
  CHECK(fd < 0 && errno == ELOOP);
  struct stat st;
  CHECK(stat(cmd, &st) == 0 && st.st_size == 0);
  /* Out of the directory. */
  CHECK_ERRNO(write_at("../escape", UCOV_BENEATH_MKDIR), EXDEV);
  CHECK_ERRNO(write_at("a/../../escape", UCOV_BENEATH_MKDIR), EXDEV);
  CHECK_ERRNO(write_at("/tmp/escape", UCOV_BENEATH_MKDIR), EXDEV);
  CHECK(!exists(root, "escape"));
  /* A file on the way; no name at all. */
  CHECK_ERRNO(write_at("file/x", UCOV_BENEATH_MKDIR), ENOTDIR);
  CHECK_ERRNO(write_at("", 0), EINVAL);
  CHECK_ERRNO(write_at("a/", 0), EINVAL);

  /* The other calls, beneath likewise. */
  CHECK(ucov_at_rename(dir, "a/b/c/f.gcda", "n/m/g.gcda") == 0);
  CHECK(exists(dir, "n/m/g.gcda") && !exists(dir, "a/b/c/f.gcda"));
  CHECK_ERRNO(ucov_at_rename(dir, "n/m/g.gcda", "sub/link/g.gcda"), ELOOP);
  CHECK(!exists(outside, "g.gcda"));
  CHECK(ucov_at_symlink("/nowhere", dir, "n/m/g.gcno") == 0);
  CHECK(ucov_at_lstat(dir, "n/m/g.gcno", &st) == 0 && S_ISLNK(st.st_mode));
  /* A link the writer made itself is not a way through either. */
  CHECK_ERRNO(write_at("n/m/g.gcno/F", UCOV_BENEATH_MKDIR), ELOOP);
  CHECK(ucov_at_fsync_parent(dir, "n/m/g.gcda") == 0);
  snprintf(p, sizeof(p), "%s/stage", root);
  CHECK(mkdir(p, 0700) == 0);
  CHECK(ucov_at_link(dir, "n/m/g.gcda", p, "n/m/g.gcda") == 0);
  CHECK(exists(p, "n/m/g.gcda"));
  CHECK_ERRNO(ucov_at_link(dir, "sub/flink/x", p, "x"), ELOOP);
  CHECK_ERRNO(ucov_at_link(dir, "n/m/g.gcda", p, "../x"), EXDEV);
  CHECK(ucov_at_unlink(dir, "n/m/g.gcda") == 0 && !exists(dir, "n/m/g.gcda"));
  CHECK_ERRNO(ucov_at_unlink(dir, "sub/link/victim"), ELOOP);
  CHECK(exists(outside, "victim"));
}

/* Held: more directories than are kept, in turns, each file where named;
 * a rename between two of them; a name through a link refused all the
 * same; another directory's names unaffected. */
static void held_checks(void) {
  char name[64];
  for (int round = 0; round < 3; round++)
    for (int d = 0; d < 9; d++) {
      snprintf(name, sizeof(name), "h/d%d/f%d", d, round);
      CHECK(write_at(name, UCOV_BENEATH_MKDIR) == 0);
    }
  for (int d = 0; d < 9; d++)
    for (int round = 0; round < 3; round++) {
      snprintf(name, sizeof(name), "h/d%d/f%d", d, round);
      CHECK(exists(dir, name));
    }
  CHECK(ucov_at_rename(dir, "h/d0/f0", "h/d8/moved") == 0);
  CHECK(exists(dir, "h/d8/moved") && !exists(dir, "h/d0/f0"));
  CHECK_ERRNO(write_at("sub/link/f", UCOV_BENEATH_MKDIR), ELOOP);
  char other[1200];
  snprintf(other, sizeof(other), "%s/stage", root);
  CHECK(ucov_at_symlink("/nowhere", other, "h/d0/l") == 0);
  CHECK(exists(other, "h/d0/l") && !exists(dir, "h/d0/l"));
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  snprintf(root, sizeof(root), "%s", argv[1]);
  snprintf(dir, sizeof(dir), "%s/dir", root);
  snprintf(outside, sizeof(outside), "%s/outside", root);
  char cmd[8000];
  int fds = open_fds();
  for (int hold = 0; hold < 2; hold++) {
    if (setup(cmd, sizeof(cmd)))
      return 2;
    if (hold)
      CHECK(ucov_at_hold(dir) == 0);
    checks(cmd);
    if (hold) {
      held_checks();
      ucov_at_release();
    }
    CHECK(open_fds() == fds); /* (nothing left open) */
  }
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures != 0;
}
