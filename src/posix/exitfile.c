/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: the files a process merges its counts into at exit (.gcda
 * files, LLVM %m pools), which other processes may be merging into at the
 * same moment and which anyone may have put there: opened only if regular and
 * not a link, locked, and replaced whole (written beside, created anew,
 * renamed), so that a failed write (a full disk) leaves the old file as it
 * was and nothing is written through a link put where the file goes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memsink.h"
#include "posix.h"

/* As libgcov and compiler-rt do: each directory leading to path that is
 * missing is made (mode 0755, as umask allows), so that a GCOV_PREFIX or an
 * LLVM_PROFILE_FILE naming a directory nobody made keeps its profile. */
UCOV_NOTRACE void ucov_posix_make_parent_dirs(const char *path) {
  char dir[PATH_MAX];
  if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
    return;
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = 0;
    mkdir(dir, 0755);
    *p = '/';
  }
}

UCOV_NOTRACE int ucov_posix_open_making_dirs(const char *path, int flags, mode_t mode) {
  int fd = open(path, flags, mode);
  if (fd < 0 && errno == ENOENT && (flags & O_CREAT)) {
    ucov_posix_make_parent_dirs(path);
    fd = open(path, flags, mode);
  }
  return fd;
}

UCOV_NOTRACE int ucov_posix_open_locked(const char *path, struct stat *st, const char **why) {
  for (int tries = 0; tries < 100; tries++) {
    /* O_NONBLOCK: a FIFO put there must not block the exit. O_NOFOLLOW: a
     * link put there is not written through. */
    int fd = ucov_posix_open_making_dirs(
        path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == ELOOP) {
      *why = "a link: left alone";
      return -1;
    }
    if (fd < 0) {
      *why = NULL; /* errno says */
      return -1;
    }
    struct stat now;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
      *why = "not a regular file: left alone";
      close(fd);
      return -1;
    }
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    while (fcntl(fd, F_SETLKW, &lk) != 0 && errno == EINTR)
      ;
    /* Writers replace the file (rename): the one locked may be gone. */
    if (lstat(path, &now) == 0 && now.st_ino == st->st_ino && now.st_dev == st->st_dev &&
        fstat(fd, st) == 0)
      return fd;
    close(fd);
  }
  *why = "replaced over and over by other writers: not written";
  return -1;
}

UCOV_NOTRACE int ucov_posix_replace(const char *path, const void *data, size_t len, mode_t mode,
                                    void (*made)(int fd)) {
  char tmp[PATH_MAX + 32];
  snprintf(tmp, sizeof(tmp), "%s.ucov-tmp.%d", path, (int)getpid());
  unlink(tmp); /* created anew: never written through a link or a hard link put there */
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0)
    return -errno;
  struct ucov_fd_sink out;
  ucov_fd_sink_init(&out, fd);
  int err = out.sink.write(&out.sink, data, len);
  if (!err && made)
    made(fd);
  if (close(fd) != 0 && !err)
    err = -errno;
  if (!err && rename(tmp, path) != 0)
    err = -errno;
  if (err)
    unlink(tmp);
  return err;
}
