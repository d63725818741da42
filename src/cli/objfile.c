/* SPDX-License-Identifier: MIT */
/*
 * Objects as files beneath a pull's DIR: an object name is a safe relative
 * path; a reply streamed into a temporary file, published under the
 * object's name; the .gcno link beside a .gcda; and the kernel docs' names
 * beside them (pgo/profraw, pgo/reset, gcov/reset, lcov's base.gcno link).
 * Every file is resolved beneath DIR, no link followed (posix/beneath.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "posix/beneath.h"
#include "proto/client.h"
#include "proto/protocol.h"
#include "pull.h"

/* An object name is a relative path without empty, "." or ".." components. */
int object_name_is_safe(const char *name) {
  if (!*name || *name == '/')
    return 0;
  for (const char *p = name; *p;) {
    const char *e = strchr(p, '/');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
      return 0;
    p += len + (e ? 1 : 0);
    if (e && !*p)
      return 0; /* trailing slash */
  }
  return 1;
}

int pull_to_file(void *arg, const void *data, size_t n) {
  struct file_out *f = arg;
  const char *p = data;
  while (n && f->skip) {
    f->tok[8 - f->skip--] = (uint8_t)*p++;
    n--;
  }
  while (n) {
    ssize_t w = write(f->fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      f->err = w < 0 ? errno : ENOSPC;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Is dir/name newer than t (NULL: no)? */
static int newer_than(const char *dir, const char *name, const struct timespec *t) {
  struct stat st;
  return t && ucov_at_lstat(dir, name, &st) == 0 &&
         (st.st_mtim.tv_sec > t->tv_sec ||
          (st.st_mtim.tv_sec == t->tv_sec && st.st_mtim.tv_nsec > t->tv_nsec));
}

int create_beneath(const char *dir, const char *rel) {
  ucov_at_unlink(dir, rel);
  return ucov_at_open(dir, rel, O_WRONLY | O_CREAT | O_EXCL, 0644, UCOV_BENEATH_MKDIR);
}

int write_object_file(const char *dir, const char *name, const void *data, size_t len,
                      const struct timespec *unless_newer) {
  if (newer_than(dir, name, unless_newer))
    return 0; /* written since we asked (the target's final tree): keep it */
  if (ucov_at_replace(dir, name, data, len, NULL) == 0)
    return 0;
  UCOV_ERR("%s/%s: %s\n", dir, name, strerror(errno));
  return -1;
}

void link_notes(const char *dir, const char *name) {
  char *notes = objname_notes(name), *link = objname_notes_link(name);
  struct stat st;
  /* (made first, as in a new DIR; else replaced where a link was) */
  if (notes && link && access(notes, R_OK) == 0 && ucov_at_symlink(notes, dir, link) != 0) {
    int had = errno == EEXIST && ucov_at_lstat(dir, link, &st) == 0;
    if (had && !S_ISLNK(st.st_mode))
      UCOV_ERR("%s/%s: not a link: left as it is\n", dir, link);
    else if (!had || ucov_at_unlink(dir, link) != 0 || ucov_at_symlink(notes, dir, link) != 0)
      UCOV_ERR("%s/%s: %s\n", dir, link, strerror(errno));
  }
  free(notes);
  free(link);
}

int sync_tree(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int r = syncfs(fd);
  int saved = errno;
  close(fd);
  errno = saved;
  return r;
}

int publish(const char *tmp, const char *dir, const char *name, const struct timespec *unless_newer,
            int durable) {
  if (newer_than(dir, name, unless_newer)) {
    ucov_at_unlink(dir, tmp); /* written since we asked (the target's final tree): keep it */
    return 0;
  }
  if (ucov_at_rename(dir, tmp, name) == 0 && (!durable || ucov_at_fsync_parent(dir, name) == 0))
    return 0;
  UCOV_ERR("%s/%s: %s\n", dir, name, strerror(errno));
  return -1;
}

/*
 * DIR/pgo/profraw: the LLVM profiles this pull wrote, one after the other
 * (llvm-profdata reads raw profiles concatenated), where the Clang PGO
 * kernel docs copy them from: /sys/kernel/debug/pgo/profraw.
 */
static void write_pgo_profraw(const char *dir, char **names, long n) {
  char *all = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&all, &len);
  int any = 0;
  for (long i = 0; mem && i < n; i++) {
    if (!objname_is_profraw(names[i]))
      continue;
    char *path = NULL;
    FILE *f = asprintf(&path, "%s/%s", dir, names[i]) < 0 ? NULL : fopen(path, "rb");
    free(path);
    if (!f)
      continue;
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
      fwrite(buf, 1, k, mem);
    fclose(f);
    any = 1;
  }
  if (mem && fclose(mem) == 0 && any)
    write_object_file(dir, "pgo/profraw", all, len, NULL);
  free(all);
}

void write_debugfs_names(const char *dir, char **names, long n) {
  unsigned has = objnames_debugfs((const char *const *)names, n);
  if (has & OBJNAMES_PGO) {
    write_pgo_profraw(dir, names, n);
    write_object_file(dir, "pgo/reset", "", 0, NULL);
  }
  if (!(has & OBJNAMES_GCOV))
    return;
  write_object_file(dir, "gcov/reset", "", 0, NULL);
  /* The build directory, from the notes files of the units pulled. */
  char *target = lcov_marker_target((const char *const *)names, (size_t)n, 1);
  if (!target) {
    UCOV_ERR("%s/%s: %s\n", dir, UCOV_LCOV_MARKER, strerror(ENOMEM));
    return;
  }
  struct stat st;
  char now[PATH_MAX];
  ssize_t k = -1;
  int have = ucov_at_lstat(dir, UCOV_LCOV_MARKER, &st) == 0;
  if (have && S_ISLNK(st.st_mode))
    k = ucov_at_readlink(dir, UCOV_LCOV_MARKER, now, sizeof(now) - 1);
  if (k >= 0)
    now[k] = 0;
  if (have && !S_ISLNK(st.st_mode))
    UCOV_ERR("%s/%s: not a link: left as it is\n", dir, UCOV_LCOV_MARKER);
  else if (k < 0 || strcmp(now, target) != 0) {
    if ((have && ucov_at_unlink(dir, UCOV_LCOV_MARKER) != 0) ||
        ucov_at_symlink(target, dir, UCOV_LCOV_MARKER) != 0)
      UCOV_ERR("%s/%s: %s\n", dir, UCOV_LCOV_MARKER, strerror(errno));
  }
  free(target);
}
