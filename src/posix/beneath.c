/* SPDX-License-Identifier: MIT */
/* Files written beneath a directory, never through a link (beneath.h). */
#define _GNU_SOURCE
#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* openat2 with no link and nothing outside dirfd; -1 with errno ENOSYS where
 * the kernel (or a seccomp filter) has none. */
static UCOV_NOTRACE int openat2_beneath(int dirfd, const char *rel, int oflags, mode_t mode) {
#if defined(SYS_openat2) && !defined(UCOV_BENEATH_NO_OPENAT2) /* (the test builds both) */
  struct open_how how = {.flags = (unsigned)oflags,
                         .mode = (oflags & (O_CREAT | O_TMPFILE)) ? mode : 0,
                         .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
  int fd;
  while ((fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how))) < 0 && errno == EINTR)
    ;
  if (fd < 0 && (errno == EPERM || errno == E2BIG))
    errno = ENOSYS; /* a filter that refuses the call, or an older struct */
  return fd;
#else
  (void)dirfd, (void)rel, (void)oflags, (void)mode;
  errno = ENOSYS;
  return -1;
#endif
}

/* Is rel a name beneath a directory: relative, not empty, no ".." part? */
static UCOV_NOTRACE int check_rel(const char *rel) {
  if (!*rel) {
    errno = EINVAL;
    return -1;
  }
  if (*rel == '/') {
    errno = EXDEV;
    return -1;
  }
  for (const char *p = rel; *p;) {
    size_t n = strcspn(p, "/");
    if (n == 2 && p[0] == '.' && p[1] == '.') {
      errno = EXDEV;
      return -1;
    }
    p += n;
    while (*p == '/')
      p++;
  }
  return 0;
}

/* Component by component from dirfd: each a directory opened O_NOFOLLOW (a
 * link fails with ELOOP or ENOTDIR), created when missing if asked. */
static UCOV_NOTRACE int walk(int dirfd, const char *rel, size_t len, int flags) {
  int cur = dirfd;
  const char *p = rel, *end = rel + len;
  while (p < end) {
    while (p < end && *p == '/')
      p++;
    size_t n = 0;
    while (p + n < end && p[n] != '/')
      n++;
    if (!n)
      break;
    char comp[NAME_MAX + 1];
    if (n > NAME_MAX) {
      if (cur != dirfd)
        close(cur);
      errno = ENAMETOOLONG;
      return -1;
    }
    memcpy(comp, p, n);
    comp[n] = 0;
    p += n;
    if (n == 1 && comp[0] == '.')
      continue;
    int next = openat(cur, comp, DIR_FLAGS | O_NOFOLLOW);
    if (next < 0 && errno == ENOENT && (flags & UCOV_BENEATH_MKDIR)) {
      if (mkdirat(cur, comp, 0755) == 0 || errno == EEXIST)
        next = openat(cur, comp, DIR_FLAGS | O_NOFOLLOW);
    }
    int saved = errno;
    struct stat st;
    if (next < 0 && saved == ENOTDIR && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
      saved = ELOOP; /* a link, as openat2 says it */
    if (cur != dirfd)
      close(cur);
    if (next < 0) {
      errno = saved;
      return -1;
    }
    cur = next;
  }
  if (cur == dirfd)
    cur = openat(dirfd, ".", DIR_FLAGS);
  return cur;
}

/* rel checked (check_rel) and split: *base its last component, *plen the
 * length of what comes before it. 0, or -1 with errno. */
static UCOV_NOTRACE int split(const char *rel, const char **base, size_t *plen) {
  if (check_rel(rel))
    return -1;
  size_t len = strlen(rel);
  const char *b = rel + len;
  while (b > rel && b[-1] != '/')
    b--;
  if (b == rel + len || (rel + len - b == 1 && *b == '.')) {
    errno = EINVAL; /* no last component to name */
    return -1;
  }
  *base = b;
  *plen = (size_t)(b - rel);
  return 0;
}

UCOV_NOTRACE int ucov_beneath_parent(int dirfd, const char *rel, int flags, const char **base) {
  size_t plen;
  if (split(rel, base, &plen))
    return -1;
  if (!plen)
    return openat(dirfd, ".", DIR_FLAGS);
  char parent[PATH_MAX];
  if (plen >= sizeof(parent)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(parent, rel, plen);
  parent[plen] = 0;
  int fd = openat2_beneath(dirfd, parent, DIR_FLAGS, 0);
  if (fd >= 0 || (errno != ENOSYS && !(errno == ENOENT && (flags & UCOV_BENEATH_MKDIR))))
    return fd;
  return walk(dirfd, parent, plen, flags);
}

/*
 * A held directory (ucov_at_hold) stays open, and so do the last directories
 * resolved beneath it, each under the part of a name that led to it: a pull
 * of thousands of objects into a few directories then opens each directory
 * once, not three times per object. A descriptor lent out (parent_of) is
 * never the one replaced while in use (put). Held by one thread at a time
 * (a pull's); the runtime never holds, and then nothing here is used.
 */
#define HELD_PARENTS 4
static struct {
  int holding, dfd;
  char dir[PATH_MAX];
  struct {
    int open, fd, lent;
    unsigned long used;
    size_t len;
    char parent[PATH_MAX];
  } p[HELD_PARENTS];
  unsigned long clock;
} held; /* (zero: nothing held; in .bss, untouched in the runtime) */

UCOV_NOTRACE int ucov_at_hold(const char *dir) {
  ucov_at_release();
  if (strlen(dir) >= sizeof(held.dir)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = open(dir, DIR_FLAGS);
  if (fd < 0)
    return -1;
  strcpy(held.dir, dir);
  held.dfd = fd;
  held.holding = 1;
  return 0;
}

UCOV_NOTRACE void ucov_at_release(void) {
  for (int i = 0; i < HELD_PARENTS; i++) {
    if (held.p[i].open)
      close(held.p[i].fd);
    held.p[i].open = held.p[i].lent = 0;
  }
  if (held.holding)
    close(held.dfd);
  held.holding = 0;
}

/* When slot i was last used; 0 if it is free. */
static UCOV_NOTRACE unsigned long age(int i) {
  return held.p[i].open ? held.p[i].used : 0;
}

/* rel's directory beneath the held directory: a held descriptor, lent
 * (put gives it back), or a new one. */
static UCOV_NOTRACE int held_parent(const char *rel, int flags, const char **base) {
  size_t plen;
  if (split(rel, base, &plen))
    return -1;
  for (int i = 0; i < HELD_PARENTS; i++)
    if (held.p[i].open && held.p[i].len == plen && !memcmp(held.p[i].parent, rel, plen)) {
      held.p[i].lent++;
      held.p[i].used = ++held.clock;
      return held.p[i].fd;
    }
  int slot = -1; /* the least recently used not lent (a free one: never used) */
  for (int i = 0; i < HELD_PARENTS; i++)
    if (!held.p[i].lent && (slot < 0 || age(i) < age(slot)))
      slot = i;
  int fd = ucov_beneath_parent(held.dfd, rel, flags, base);
  if (fd < 0 || slot < 0 || plen >= sizeof(held.p[0].parent))
    return fd; /* (not kept: closed when put) */
  if (held.p[slot].open)
    close(held.p[slot].fd);
  held.p[slot].open = 1;
  held.p[slot].fd = fd;
  held.p[slot].lent = 1;
  held.p[slot].used = ++held.clock;
  held.p[slot].len = plen;
  memcpy(held.p[slot].parent, rel, plen);
  return fd;
}

/* Give back a directory descriptor from parent_of: closed unless held. */
static UCOV_NOTRACE void put(int fd) {
  if (fd < 0 || (held.holding && fd == held.dfd))
    return;
  for (int i = 0; i < HELD_PARENTS; i++)
    if (held.p[i].open && held.p[i].fd == fd) {
      held.p[i].lent--;
      return;
    }
  close(fd);
}

/* Give back pfd keeping errno; pass r through. */
static UCOV_NOTRACE int done(int pfd, int r) {
  int saved = errno;
  put(pfd);
  errno = saved;
  return r;
}

/* openat of base in the directory pfd (given back): the descriptor or -1. */
static UCOV_NOTRACE int open_in(int pfd, const char *base, int oflags, mode_t mode) {
  if (pfd < 0)
    return -1;
  int fd;
  while ((fd = openat(pfd, base, oflags | O_NOFOLLOW | O_CLOEXEC, mode)) < 0 && errno == EINTR)
    ;
  return done(pfd, fd);
}

/* dir as given (or held), then rel's directory beneath it. */
static UCOV_NOTRACE int parent_of(const char *dir, const char *rel, int flags, const char **base) {
  int is_held = held.holding && strcmp(dir, held.dir) == 0;
  int dfd = is_held ? held.dfd : open(dir, DIR_FLAGS);
  if (dfd < 0)
    return -1;
  if (!strchr(rel, '/') && check_rel(rel) == 0 && strcmp(rel, ".") != 0) {
    *base = rel; /* directly in dir: dir is its directory */
    return dfd;
  }
  if (is_held)
    return held_parent(rel, flags, base);
  return done(dfd, ucov_beneath_parent(dfd, rel, flags, base));
}

UCOV_NOTRACE int ucov_at_open(const char *dir, const char *rel, int oflags, mode_t mode,
                              int flags) {
  const char *b = NULL;
  int pfd = parent_of(dir, rel, flags, &b);
  return open_in(pfd, b, oflags, mode);
}

/* renameat (link 0) or linkat (link 1) of from beneath fromdir to to beneath
 * todir (to's directories created). */
static UCOV_NOTRACE int move_or_link(const char *fromdir, const char *from, const char *todir,
                                     const char *to, int link) {
  const char *fb, *tb;
  int ffd = parent_of(fromdir, from, 0, &fb);
  if (ffd < 0)
    return -1;
  int tfd = parent_of(todir, to, UCOV_BENEATH_MKDIR, &tb);
  if (tfd < 0)
    return done(ffd, -1);
  int r = link ? linkat(ffd, fb, tfd, tb, 0) : renameat(ffd, fb, tfd, tb);
  done(ffd, r);
  return done(tfd, r);
}

UCOV_NOTRACE int ucov_at_rename(const char *dir, const char *from, const char *to) {
  return move_or_link(dir, from, dir, to, 0);
}

UCOV_NOTRACE int ucov_at_unlink(const char *dir, const char *rel) {
  const char *b;
  int pfd = parent_of(dir, rel, 0, &b);
  return pfd < 0 ? -1 : done(pfd, unlinkat(pfd, b, 0));
}

UCOV_NOTRACE int ucov_at_lstat(const char *dir, const char *rel, struct stat *st) {
  const char *b;
  int pfd = parent_of(dir, rel, 0, &b);
  return pfd < 0 ? -1 : done(pfd, fstatat(pfd, b, st, AT_SYMLINK_NOFOLLOW));
}

UCOV_NOTRACE ssize_t ucov_at_readlink(const char *dir, const char *rel, char *buf, size_t len) {
  const char *b;
  int pfd = parent_of(dir, rel, 0, &b);
  if (pfd < 0)
    return -1;
  ssize_t n = readlinkat(pfd, b, buf, len);
  done(pfd, 0);
  return n;
}

UCOV_NOTRACE int ucov_at_symlink(const char *target, const char *dir, const char *rel) {
  const char *b;
  int pfd = parent_of(dir, rel, UCOV_BENEATH_MKDIR, &b);
  return pfd < 0 ? -1 : done(pfd, symlinkat(target, pfd, b));
}

UCOV_NOTRACE int ucov_at_fsync_parent(const char *dir, const char *rel) {
  const char *b;
  int pfd = parent_of(dir, rel, 0, &b);
  return pfd < 0 ? -1 : done(pfd, fsync(pfd));
}

UCOV_NOTRACE int ucov_at_link(const char *fromdir, const char *from, const char *todir,
                              const char *to) {
  return move_or_link(fromdir, from, todir, to, 1);
}

UCOV_NOTRACE int ucov_at_replace(const char *dir, const char *name, const void *data, size_t len,
                                 void (*made)(int fd)) {
  char tmp[PATH_MAX];
  if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", name, (int)getpid()) >= (int)sizeof(tmp)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  ucov_at_unlink(dir, tmp); /* created anew: never written through what was there */
  int fd = ucov_at_open(dir, tmp, O_WRONLY | O_CREAT | O_EXCL, 0644, UCOV_BENEATH_MKDIR);
  if (fd < 0)
    return -1;
  int err = 0;
  for (const char *p = data; len && !err;) {
    ssize_t w = write(fd, p, len);
    if (w > 0)
      p += w, len -= (size_t)w;
    else if (w == 0 || errno != EINTR)
      err = w == 0 ? ENOSPC : errno;
  }
  if (!err && made)
    made(fd);
  if (close(fd) != 0 && !err)
    err = errno;
  if (!err && ucov_at_rename(dir, tmp, name) != 0)
    err = errno;
  if (err) {
    ucov_at_unlink(dir, tmp);
    errno = err;
    return -1;
  }
  return 0;
}
