/* SPDX-License-Identifier: MIT */
/* ucov mount: between the FUSE file system (mount.c) and the target behind
 * it (mount_target.c). */
#ifndef UCOV_CLI_MOUNT_H
#define UCOV_CLI_MOUNT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "proto/client.h"

struct mount_state {
  pid_t pid;
  unsigned long long start; /* the target's start time: a restarted pid is another process */
  struct ucov_ctl ctl;
  pthread_mutex_t lock;         /* one request at a time on the connection */
  int gone;                     /* the target went away: set by the watcher and by failed calls */
  struct ucov_ctl_object *objs; /* sorted by name (strcmp) */
  long n_objs;
  int any_gcda, any_profraw; /* of the objects */
  time_t listed;
  const char *dir;
  char abs_dir[4096];
  struct fuse *fuse;
};
extern struct mount_state ucov_mount;

/* What a path of the mount is. K_GCOV_RESET and K_PGO_PROFRAW are the kernel's debugfs names:
 * gcov/reset (lcov's kernel mode looks for it) and pgo/profraw (every
 * module's profile, concatenated, as the Clang PGO kernel docs copy it;
 * the series' later versions name it pgo/vmlinux.profraw: both are served). */
enum mount_kind {
  K_NONE,
  K_DIR,
  K_OBJECT,
  K_RESET,
  K_PGO_RESET,
  K_GCNO,
  K_GCOV_RESET,
  K_PGO_PROFRAW,
  K_MARKER
};

/* The start time field of /proc/PID/stat, or 0 if the process is gone. */
unsigned long long mount_start_time(pid_t pid);
/* One request about object name (NULL: none) on the target's connection: 0
 * (*r the reply), or -errno for FUSE. */
int mount_call(uint16_t op, const char *name, struct ucov_ctl_reply *r);
/* The object list, listed again when it is older than a second: 0 or -errno. */
int mount_refresh(void);
/* Can writing to this object reset it? */
int mount_resettable(const char *name);
/* What a FUSE path is; *obj: the object (K_OBJECT) or the .gcda of a .gcno link. */
enum mount_kind mount_classify(const char *path, long *obj);
/* The first object whose name is at least key (binary search of the sorted
 * list): n_objs if none. */
long mount_lower_bound(const char *key);
/* The object named name, or -1. */
long mount_find(const char *name);
/* Reset every object whose name starts with prefix ("gcov/", "pgo/"). */
int mount_reset_prefixed(const char *prefix);
/* pgo/profraw: every module's raw profile, one after the other (llvm-profdata
 * reads raw profiles concatenated). Into *data (malloc'ed), *len. */
int mount_read_all_pgo(uint8_t **data, size_t *len);

#endif
