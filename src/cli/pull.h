/* SPDX-License-Identifier: MIT */
/*
 * Inside `ucov pull`: pull.c (the requests and the pull itself),
 * objfile.c (objects as files beneath DIR), pull_commit.c (the two phases
 * of a reset and their recovery).
 */
#ifndef UCOV_CLI_PULL_H
#define UCOV_CLI_PULL_H

#include <stddef.h>
#include <stdint.h>

struct timespec;
struct ucov_ctl;

/* objfile.c */

/* A reply streamed into an open file (pull_to_file, a stream callback); a
 * SNAPSHOT's leading token kept apart. */
struct file_out {
  int fd;
  size_t skip;    /* bytes of token still to come */
  uint8_t tok[8]; /* the token */
  int err;        /* a write failed with this errno */
};
int pull_to_file(void *arg, const void *data, size_t n);
/* A new file beneath dir, created exclusively (whatever had its name goes
 * first: a link or a hard link planted there is replaced, not written
 * through), its directories made. A descriptor, or -1. */
int create_beneath(const char *dir, const char *rel);
/* Rename a pulled temporary file (beneath dir) to its object's name; its
 * .gcno link is made later, once every object is in place (link_notes).
 * unless_newer keeps a final file written after that time (ucov run);
 * durable: the rename is fsynced. 0, or -1 (said). */
int publish(const char *tmp, const char *dir, const char *name, const struct timespec *unless_newer,
            int durable);
/* Everything written beneath dir (and on its file system) made durable at
 * once (syncfs): one call for the files of a whole pull, not an fsync each.
 * 0, or -1 with errno. */
int sync_tree(const char *dir);
/*
 * The kernel docs' names, as a mount shows them and `cp -a` of it copies them:
 * pgo/profraw and an empty pgo/reset beside LLVM profiles; beside gcov data
 * an empty gcov/reset and lcov's build-directory link, so lcov's kernel mode
 * reads the tree (`lcov --capture --rc lcov_gcov_dir=DIR/gcov`), as it reads
 * a copy of /sys/kernel/debug/gcov.
 */
void write_debugfs_names(const char *dir, char **names, long n);

/* pull_commit.c */

/* The marker of a two-phase pull, .ucov-pending.<target>.<token>, and where
 * object name is written before it counts: beside its final name
 * (malloc'ed; NULL: no memory). */
char *marker_path(const char *target, uint64_t token);
char *tmp_path(const char *name, const char *target, uint64_t token);
/* An identifier of the target for marker names: its pid, or "serial"; and
 * the instance the target says it is ("-" when it says none). */
void target_id(const struct ucov_ctl *c, char *out, size_t len);
void target_instance(struct ucov_ctl *c, char *out, size_t len);
/* Write the marker of a two-phase pull: "target", the target's "instance"
 * (or "-": a target that has none), "token", then each name, NUL-terminated.
 * Durable before the commit is sent. 0 or -1. */
int write_marker(const char *dir, const char *path, const char *target, const char *instance,
                 uint64_t token, char **names, long n);
/* COMMIT, then settle every object by the answer. 0 committed, 1 not (or
 * kept aside), -1 no answer or a failure (said). */
int commit_pull(struct ucov_ctl *c, const char *dir, const char *target, const char *instance,
                uint64_t token, char **names, long n, int quiet);
/*
 * Finish the two-phase pulls of target that a killed or failed ucov left in
 * dir. c: the target, live (instance its instance), or NULL when it is gone.
 * A marker of another instance (the pid reused since) is a gone target's.
 * Returns the number of pulls that could not be finished.
 */
int recover_pulls(struct ucov_ctl *c, const char *dir, const char *target, const char *instance,
                  int quiet);
/*
 * ucov pull --resolve publish|discard -o DIR: the snapshots kept aside in DIR
 * (every target's) are published, or removed. The user decides, knowing what
 * ucov could not: whether the target's exit files hold their counts.
 */
int resolve_aside(const char *dir, int publish_them);

#endif
