/* SPDX-License-Identifier: MIT */
/* The host tool's small shared pieces (see util.h). */
#define _GNU_SOURCE
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ucov_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first) {
  if (n < *cap)
    return 0;
  size_t c = *cap ? *cap : (first ? first : 1);
  while (c <= n) {
    if (c > SIZE_MAX / 2)
      return -1;
    c *= 2;
  }
  if (elem && c > SIZE_MAX / elem)
    return -1;
  void *p = realloc(*arr, c * elem);
  if (!p)
    return -1;
  *arr = p;
  *cap = c;
  return 0;
}

int ucov_ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

uint64_t ucov_hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

const char *ucov_cmd = "ucov";

FILE *ucov_fopen_regular(const char *path) {
  return ucov_fdopen_regular(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
}

FILE *ucov_fdopen_regular(int fd) {
  if (fd < 0)
    return NULL;
  struct stat st;
  int err = 0;
  if (fstat(fd, &st))
    err = errno;
  else if (S_ISDIR(st.st_mode))
    err = EISDIR;
  else if (!S_ISREG(st.st_mode))
    err = UCOV_ENOTREG;
  else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
    err = errno;
  FILE *f = err ? NULL : fdopen(fd, "r");
  if (!f) {
    err = err ? err : errno;
    close(fd);
    errno = err;
  }
  return f;
}

const char *ucov_strerror(int err) {
  return err == UCOV_ENOTREG ? "not a regular file" : strerror(err);
}

char *ucov_read_text(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return NULL;
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
      (uint64_t)st.st_size <= UCOV_MAX_TEXT && (buf = malloc((size_t)st.st_size + 1))) {
    size_t n = 0;
    while (n < (size_t)st.st_size) {
      ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0) { /* (a part is no text to go by: a store would keep it) */
        int err = errno;
        free(buf);
        close(fd);
        errno = err;
        return NULL;
      }
      if (r == 0) /* (it shrank meanwhile: what there is) */
        break;
      n += (size_t)r;
    }
    buf[n] = 0;
    *len = n;
  }
  close(fd);
  return buf;
}

/* The walk below path (its length len in a buffer of *cap), at level. */
struct walk {
  char *path;
  size_t cap;
  int (*fn)(const char *path, const struct stat *st, int type, struct FTW *ftw, void *arg);
  void *arg;
  /* ucov_walk_links: links followed, and the directories entered (an
   * open-addressing set of device and inode; 0 0: a free slot). */
  int follow;
  struct walk_dir {
    dev_t dev;
    ino_t ino;
  } * seen;
  size_t n_seen, n_slots;
};

/* Whether a directory was entered before (else it is now). -1 without memory. */
static int walk_seen(struct walk *w, const struct stat *st) {
  if (2 * (w->n_seen + 1) > w->n_slots) {
    size_t n = w->n_slots ? 2 * w->n_slots : 64;
    struct walk_dir *t = calloc(n, sizeof(*t)), *old = w->seen;
    if (!t)
      return -1;
    w->seen = t;
    w->n_slots = n;
    for (size_t i = 0; old && i < n / 2; i++)
      if (old[i].dev || old[i].ino) {
        size_t k = (size_t)(old[i].ino * 0x9e3779b97f4a7c15ull) & (n - 1);
        while (t[k].dev || t[k].ino)
          k = (k + 1) & (n - 1);
        t[k] = old[i];
      }
    free(old);
  }
  size_t k = (size_t)(st->st_ino * 0x9e3779b97f4a7c15ull) & (w->n_slots - 1);
  for (; w->seen[k].dev || w->seen[k].ino; k = (k + 1) & (w->n_slots - 1))
    if (w->seen[k].dev == st->st_dev && w->seen[k].ino == st->st_ino)
      return 1;
  w->seen[k] = (struct walk_dir){st->st_dev, st->st_ino};
  w->n_seen++;
  return 0;
}

static int walk_below(struct walk *w, int fd, size_t len, int level) {
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    int err = errno;
    if (fd >= 0)
      close(fd);
    errno = err;
    return -1;
  }
  if (level > 512) { /* (deeper than any build tree: a loop of bind mounts) */
    closedir(d);
    errno = ELOOP;
    return -1;
  }
  int r = 0;
  for (;;) {
    errno = 0;
    struct dirent *e = readdir(d);
    if (!e) {
      r = errno ? -1 : 0; /* (an error: the directory was not read to its end) */
      break;
    }
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    size_t n = strlen(e->d_name);
    if (UCOV_GROW(w->path, w->cap, len + n + 1, 256)) {
      errno = ENOMEM;
      r = -1;
      break;
    }
    w->path[len] = '/';
    memcpy(w->path + len + 1, e->d_name, n + 1);
    struct stat st;
    struct FTW f = {.base = (int)len + 1, .level = level + 1};
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
      r = -1;
      break;
    }
    struct stat to; /* (a dangling link stays a link) */
    if (w->follow && S_ISLNK(st.st_mode) && fstatat(dirfd(d), e->d_name, &to, 0) == 0)
      st = to;
    int type = S_ISDIR(st.st_mode) ? FTW_D : S_ISLNK(st.st_mode) ? FTW_SL : FTW_F;
    int seen = type == FTW_D && w->follow ? walk_seen(w, &st) : 0;
    if (seen < 0) {
      errno = ENOMEM;
      r = -1;
      break;
    }
    r = seen ? 0 : w->fn(w->path, &st, type, &f, w->arg);
    if (!r && !seen && type == FTW_D) /* (by descriptor: no link taken but those followed) */
      r = walk_below(w,
                     openat(dirfd(d), e->d_name,
                            O_RDONLY | O_DIRECTORY | O_CLOEXEC | (w->follow ? 0 : O_NOFOLLOW)),
                     len + 1 + n, level + 1);
    w->path[len] = 0;
    if (r)
      break;
  }
  int err = errno;
  closedir(d);
  errno = err;
  return r;
}

static int walk(const char *root,
                int (*fn)(const char *path, const struct stat *st, int type, struct FTW *ftw,
                          void *arg),
                void *arg, int follow) {
  struct walk w = {.fn = fn, .arg = arg, .follow = follow};
  size_t len = strlen(root);
  struct stat st;
  if (UCOV_GROW(w.path, w.cap, len + 1, 256)) {
    errno = ENOMEM;
    return -1;
  }
  memcpy(w.path, root, len + 1);
  while (len > 1 && w.path[len - 1] == '/')
    w.path[--len] = 0;
  int r = -1;
  if ((follow ? stat(w.path, &st) : lstat(w.path, &st)) == 0 &&
      (!follow || !S_ISDIR(st.st_mode) || walk_seen(&w, &st) == 0)) {
    int type = S_ISDIR(st.st_mode) ? FTW_D : S_ISLNK(st.st_mode) ? FTW_SL : FTW_F;
    const char *slash = strrchr(w.path, '/');
    struct FTW f = {.base = slash && slash[1] ? (int)(slash + 1 - w.path) : 0, .level = 0};
    r = fn(w.path, &st, type, &f, arg);
    if (!r && type == FTW_D)
      r = walk_below(
          &w, open(w.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)), len, 0);
  }
  int err = errno;
  free(w.path);
  free(w.seen);
  errno = err;
  return r;
}

int ucov_walk(const char *root,
              int (*fn)(const char *path, const struct stat *st, int type, struct FTW *ftw,
                        void *arg),
              void *arg) {
  return walk(root, fn, arg, 0);
}

int ucov_walk_links(const char *root,
                    int (*fn)(const char *path, const struct stat *st, int type, struct FTW *ftw,
                              void *arg),
                    void *arg) {
  return walk(root, fn, arg, 1);
}
