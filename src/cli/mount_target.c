/* SPDX-License-Identifier: MIT */
/*
 * ucov mount: the target behind the file system (mount.h): its connection,
 * one request at a time, its object list kept fresh, what each path names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mount.h"
#include "proto/protocol.h"

struct mount_state ucov_mount = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The start time field of /proc/PID/stat, or 0 if the process is gone. */
unsigned long long mount_start_time(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  unsigned long long v = 0;
  for (int field = 2; p && *p; p++) /* field 22 is starttime */
    if (*p == ' ' && ++field == 22) {
      v = strtoull(p + 1, NULL, 10);
      break;
    }
  return v;
}

/*
 * One call; a broken connection or an exiting target marks the mount gone.
 * The target closes connections idle for 10 s: a call that finds its
 * connection closed connects again, once, to the same process (its start
 * time unchanged).
 */
int mount_call(uint16_t op, const char *name, struct ucov_ctl_reply *r) {
  if (__atomic_load_n(&ucov_mount.gone, __ATOMIC_ACQUIRE))
    return -ENOTCONN;
  char err[256];
  pthread_mutex_lock(&ucov_mount.lock);
  int ret = ucov_ctl_call(&ucov_mount.ctl, op, name, name ? strlen(name) : 0, r, err, sizeof(err));
  if (ret && mount_start_time(ucov_mount.pid) == ucov_mount.start) {
    ucov_ctl_close(&ucov_mount.ctl);
    if (ucov_ctl_open(ucov_mount.pid, &ucov_mount.ctl, err, sizeof(err)) == 0)
      ret = ucov_ctl_call(&ucov_mount.ctl, op, name, name ? strlen(name) : 0, r, err, sizeof(err));
  }
  pthread_mutex_unlock(&ucov_mount.lock);
  if (ret) {
    __atomic_store_n(&ucov_mount.gone, 1, __ATOMIC_RELEASE);
    return -ENOTCONN;
  }
  switch (r->status) {
  case UCOV_ST_OK:
    return 0;
  case UCOV_ST_NO_OBJECT:
    ucov_ctl_reply_free(r);
    return -ENOENT;
  case UCOV_ST_EXITING:
    __atomic_store_n(&ucov_mount.gone, 1, __ATOMIC_RELEASE);
    ucov_ctl_reply_free(r);
    return -ENOTCONN;
  case UCOV_ST_NOT_SUPPORTED:
    ucov_ctl_reply_free(r);
    return -EPERM;
  default:
    ucov_ctl_reply_free(r);
    return -EIO;
  }
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const struct ucov_ctl_object *)a)->name,
                ((const struct ucov_ctl_object *)b)->name);
}

long mount_lower_bound(const char *key) {
  long lo = 0, hi = ucov_mount.n_objs;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (strcmp(ucov_mount.objs[mid].name, key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

long mount_find(const char *name) {
  long i = mount_lower_bound(name);
  return i < ucov_mount.n_objs && strcmp(ucov_mount.objs[i].name, name) == 0 ? i : -1;
}

/* The object list, read again when a second old, sorted: every path is then
 * found by binary search, not by a walk of every object. */
int mount_refresh(void) {
  time_t now = time(NULL);
  if (ucov_mount.objs && now == ucov_mount.listed)
    return 0;
  struct ucov_ctl_reply r;
  int err = mount_call(UCOV_OP_LIST, NULL, &r);
  if (err)
    return err;
  struct ucov_ctl_object *objs;
  long n = ucov_ctl_parse_list(&r, &objs);
  ucov_ctl_reply_free(&r);
  if (n < 0)
    return -EIO;
  qsort(objs, (size_t)n, sizeof(*objs), by_name);
  ucov_ctl_objects_free(ucov_mount.objs, ucov_mount.n_objs);
  ucov_mount.objs = objs;
  ucov_mount.n_objs = n;
  ucov_mount.any_gcda = ucov_mount.any_profraw = 0;
  for (long i = 0; i < n; i++) {
    ucov_mount.any_gcda |= objname_is_gcda(objs[i].name);
    ucov_mount.any_profraw |= objname_is_profraw(objs[i].name);
  }
  ucov_mount.listed = now;
  return 0;
}

/* lcov's build-directory link (cli.h) */
#define MARKER UCOV_LCOV_MARKER

int mount_resettable(const char *name) {
  return strncmp(name, "gcov/", 5) == 0 || strncmp(name, "pgo/", 4) == 0 ||
         strncmp(name, "kcov/", 5) == 0;
}

/* What a FUSE path is; *obj: the object (K_OBJECT) or the .gcda of a .gcno link. */
enum mount_kind mount_classify(const char *path, long *obj) {
  if (strcmp(path, "/") == 0)
    return K_DIR;
  const char *rel = path + 1;
  size_t len = strlen(rel);
  if (strcmp(rel, "reset") == 0)
    return K_RESET;
  int pgo = ucov_mount.any_profraw, gcov = ucov_mount.any_gcda;
  long i = mount_find(rel);
  if (i >= 0) {
    *obj = i;
    return K_OBJECT;
  }
  /* a directory: some object's name starts with rel/ */
  char *dir = NULL;
  if (asprintf(&dir, "%s/", rel) < 0)
    return K_NONE;
  i = mount_lower_bound(dir);
  int is_dir = i < ucov_mount.n_objs && strncmp(ucov_mount.objs[i].name, dir, len + 1) == 0;
  free(dir);
  if (is_dir)
    return K_DIR;
  /* rel is gcov/<path>.gcno, the link beside the object gcov/<path>.gcda */
  if (ucov_ends_with(rel, ".gcno") && len > 5) {
    char *gcda = strdup(rel);
    if (!gcda)
      return K_NONE;
    memcpy(gcda + len - 5, ".gcda", 5);
    i = mount_find(gcda);
    free(gcda);
    if (i >= 0 && objname_is_gcda(ucov_mount.objs[i].name)) {
      char *notes = objname_notes(ucov_mount.objs[i].name);
      int here = notes && access(notes, F_OK) == 0;
      free(notes);
      if (here) {
        *obj = i;
        return K_GCNO;
      }
    }
  }
  if (pgo && strcmp(rel, "pgo/reset") == 0)
    return K_PGO_RESET;
  /* (the newer PGO series' name too, unless a module's profile has it) */
  if (pgo && (strcmp(rel, "pgo/profraw") == 0 || strcmp(rel, "pgo/vmlinux.profraw") == 0))
    return K_PGO_PROFRAW;
  if (gcov && strcmp(rel, "gcov/reset") == 0)
    return K_GCOV_RESET;
  if (gcov && strcmp(rel, MARKER) == 0)
    return K_MARKER;
  if (gcov && (strcmp(rel, "gcov/kernel") == 0 || strcmp(rel, "gcov/kernel/gcov") == 0))
    return K_DIR;
  return K_NONE;
}

/* Reset every object whose name starts with prefix ("gcov/", "pgo/"). */
int mount_reset_prefixed(const char *prefix) {
  for (long i = 0; i < ucov_mount.n_objs; i++) {
    if (strncmp(ucov_mount.objs[i].name, prefix, strlen(prefix)) != 0)
      continue;
    struct ucov_ctl_reply r;
    int err = mount_call(UCOV_OP_RESET, ucov_mount.objs[i].name, &r);
    if (err)
      return err;
    ucov_ctl_reply_free(&r);
  }
  return 0;
}

/* pgo/profraw: every module's raw profile, one after the other (llvm-profdata
 * reads raw profiles concatenated). Into *data (malloc'ed), *len. */
int mount_read_all_pgo(uint8_t **data, size_t *len) {
  *data = NULL;
  *len = 0;
  for (long i = 0; i < ucov_mount.n_objs; i++) {
    const char *n = ucov_mount.objs[i].name;
    if (!objname_is_profraw(n))
      continue;
    struct ucov_ctl_reply r;
    int err = mount_call(UCOV_OP_READ, n, &r);
    if (err) {
      free(*data);
      *data = NULL;
      return err;
    }
    uint8_t *g = realloc(*data, *len + r.len + 1);
    if (!g) {
      ucov_ctl_reply_free(&r);
      free(*data);
      *data = NULL;
      return -ENOMEM;
    }
    memcpy(g + *len, r.data, r.len);
    *data = g;
    *len += r.len;
    ucov_ctl_reply_free(&r);
  }
  return 0;
}
