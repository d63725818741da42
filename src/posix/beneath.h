/* SPDX-License-Identifier: MIT */
/*
 * Files written beneath a directory, never through a link: what a pull, a
 * collect and an exit tree write is named by a target or a client, and a
 * name that leads through a link (one the pull itself made, a .gcno link, or
 * one another user planted) could otherwise write anywhere the writer may.
 *
 * A relative name is resolved beneath its directory with no link followed
 * and no "..": openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the
 * kernel has it, else component by component (O_NOFOLLOW | O_DIRECTORY); the
 * last component is opened O_NOFOLLOW, and new files are created O_EXCL. The
 * directory itself is the caller's choice and is opened as given. No
 * allocation: the runtime uses these at exit.
 */
#ifndef UCOV_POSIX_BENEATH_H
#define UCOV_POSIX_BENEATH_H

#include <sys/stat.h>
#include <sys/types.h>

#include "ucov/port/compiler.h"

/* Create missing directories (0755) on the way. */
#define UCOV_BENEATH_MKDIR 1

/*
 * The directory holding rel's last component, resolved beneath dirfd: a
 * descriptor (O_RDONLY | O_DIRECTORY), *base pointing at the last component
 * inside rel. -1 with errno: ELOOP (a link on the way), ENOTDIR, EXDEV (an
 * absolute name or ".."), EINVAL (an empty name or last component), ENOENT.
 */
int ucov_beneath_parent(int dirfd, const char *rel, int flags, const char **base) UCOV_HIDDEN;

/* openat(2) of rel beneath the directory dir, opened as given (links in
 * dir itself followed: the caller's choice; O_NOFOLLOW and O_CLOEXEC
 * added). -1 with errno. */
int ucov_at_open(const char *dir, const char *rel, int oflags, mode_t mode, int flags) UCOV_HIDDEN;
/* rename(2) of from to to, both beneath dir (to's directories created). */
int ucov_at_rename(const char *dir, const char *from, const char *to) UCOV_HIDDEN;
/* unlink(2) of rel beneath dir. */
int ucov_at_unlink(const char *dir, const char *rel) UCOV_HIDDEN;
/* lstat(2) of rel beneath dir. */
int ucov_at_lstat(const char *dir, const char *rel, struct stat *st) UCOV_HIDDEN;
/* readlink(2) of rel beneath dir (buf not terminated). */
ssize_t ucov_at_readlink(const char *dir, const char *rel, char *buf, size_t len) UCOV_HIDDEN;
/* symlink(2): rel beneath dir (its directories created) pointing at target. */
int ucov_at_symlink(const char *target, const char *dir, const char *rel) UCOV_HIDDEN;
/* fsync(2) of the directory holding rel beneath dir. */
int ucov_at_fsync_parent(const char *dir, const char *rel) UCOV_HIDDEN;
/* link(2) of from beneath fromdir as to beneath todir (to's directories created). */
int ucov_at_link(const char *fromdir, const char *from, const char *todir,
                 const char *to) UCOV_HIDDEN;

/* Hold the directory dir open until ucov_at_release (or the next hold),
 * with the last few directories resolved beneath it: the calls above with
 * that dir (the same string) then open neither again. For a run of calls
 * into one tree that nobody else changes meanwhile (a pull); one thread's.
 * 0, or -1 with errno (nothing held: the calls open as before). */
int ucov_at_hold(const char *dir) UCOV_HIDDEN;
void ucov_at_release(void) UCOV_HIDDEN;

/* Replace name beneath dir (its directories created) with len bytes of
 * data: written to "<name>.tmp<pid>", created anew, then renamed over it, so
 * a failed write leaves the old file whole; made (NULL: none) sees the new
 * file, written, just before the rename. 0, or -1 with errno. */
int ucov_at_replace(const char *dir, const char *name, const void *data, size_t len,
                    void (*made)(int fd)) UCOV_HIDDEN;

#endif
