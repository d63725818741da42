/* SPDX-License-Identifier: MIT */
/* Internal interfaces between the files of the POSIX port. */
#ifndef UCOV_POSIX_POSIX_H
#define UCOV_POSIX_POSIX_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"

/*
 * Register the port's fork handlers once: the port lock is taken across fork,
 * and in the child a traced task stops tracing and the control server starts
 * anew (the child has its own pid, so its own socket).
 */
void ucov_posix_atfork_once(void) UCOV_HIDDEN;

/* Before fork, without the lock: wait for a server thread still starting,
 * and hold the connection table until ucov_control_fork_parent (in the parent) or
 * ucov_control_fork_child. */
void ucov_control_fork_prepare(void) UCOV_HIDDEN;
void ucov_control_fork_parent(void) UCOV_HIDDEN;

/* In a forked child (lock held, single thread): drop the parent's
 * connections, restart the server if one ran. */
void ucov_control_fork_child(void) UCOV_HIDDEN;

/*
 * Is this copy of the runtime the process's? Always for libucov.a (linked into
 * the program). libucov.so stays dormant (no server, no exit files) when the
 * program has its own runtime and exports it: then the program's definitions
 * are the ones every module binds to, libucov.so's are never called.
 */
int ucov_posix_runtime_active(void) UCOV_HIDDEN;

/* Is this process a forked child of one whose profile counters it shares
 * (shared_counters.c)? Then its counts are that process's: it writes no
 * exit file and never resets them. */
int ucov_posix_counters_borrowed(void) UCOV_HIDDEN;
/*
 * The owner of shared counters writes a unit's file (pgo 0: what is the
 * unit's baseline, ucov_unit.base) or an LLVM profile's (pgo 1: what is its
 * sections) at path: _begin before the file is made (written_after: its
 * keeper leaves the unit once the file lands, 0 if the exit writes it again
 * all the same), _made with the new file just before it replaces path,
 * _end after. In the keeper, _begin says whether to write it at all (0: the
 * owner's files hold it). Nothing when the counters are not shared.
 */
int ucov_posix_keep_begin(int pgo, const void *what, const char *path,
                          int written_after) UCOV_HIDDEN;
void ucov_posix_keep_made(int fd) UCOV_HIDDEN;
void ucov_posix_keep_end(int landed) UCOV_HIDDEN;
/* A dump of the owner's ended (it counted this run), and whether the
 * keeper's writes count none. */
void ucov_posix_keep_dumped(void) UCOV_HIDDEN;
int ucov_posix_keep_run_counted(void) UCOV_HIDDEN;
/* A fork server (AFL++'s forkserver, afl.c): its pid, 0 if none. Its
 * children are executions: they start no control server of their own (the
 * fork server serves), and it starts its own before its first fork. */
extern int ucov_posix_fork_server UCOV_HIDDEN;
void ucov_posix_control_start_now(void) UCOV_HIDDEN;

/* The keeper, before it writes an LLVM profile: the owner's last reset of
 * its counters (shared_counters.c). */
struct ucov_llvm_sections;
void ucov_posix_keeper_pgo_base(const struct ucov_llvm_sections *s) UCOV_HIDDEN;
/* The LLVM profiles' exit write (pgo_files.c), for the keeper (with the
 * owner's baselines), and for the process's own exit (exit_last.c), when
 * there are profiles. */
void ucov_posix_pgo_exit(void) UCOV_HIDDEN;
void ucov_posix_pgo_at_exit(void) UCOV_HIDDEN;

/* The exit files of one kind were written (1: gcov's .gcda, 2: LLVM
 * profiles): the commit record says so, for recoveries after the process. */
#define UCOV_POSIX_EXITED_GCOV 1u
#define UCOV_POSIX_EXITED_PGO 2u
void ucov_posix_exit_written(unsigned kind) UCOV_HIDDEN;

/* The load address of the module that holds p (0: none known, or p NULL). */
uintptr_t ucov_posix_module_base(const void *p) UCOV_HIDDEN;

/* The LLVM profiles of the module loaded at base go away: written now (unless
 * the exit write ran) and no longer served. */
void ucov_pgo_module_unload(uintptr_t base) UCOV_HIDDEN;

/* A KCOV device's memfd ends with a page of its own after the area (device_memfd.c:
 * who enabled it, for exec). If fd, of size bytes, is such a memfd: the
 * area's size in words; else 0. */
uint64_t ucov_posix_device_words(int fd, uint64_t size) UCOV_HIDDEN;

struct stat;
/*
 * An exit-time file of counts (a .gcda, an LLVM %m pool), exitfile.c: open it
 * (created if missing) only if it is a regular file, and lock it (F_SETLKW),
 * making sure the path still names the file locked (writers replace it);
 * the directories leading to it are made if missing. The descriptor, with
 * *st its stat; or -1 with *why a reason (NULL: errno).
 */
int ucov_posix_open_locked(const char *path, struct stat *st, const char **why) UCOV_HIDDEN;

/* Make the missing directories leading to path (libgcov's and compiler-rt's
 * rule for profile files); open(path, flags, mode), and where it is ENOENT
 * and flags create, the same after making them (every profile file's open,
 * ucov_posix_open_locked's included). */
void ucov_posix_make_parent_dirs(const char *path) UCOV_HIDDEN;
int ucov_posix_open_making_dirs(const char *path, int flags, mode_t mode) UCOV_HIDDEN;

/* Replace path with len bytes of data: written beside it and renamed over
 * it (created anew, mode mode), so a failed write leaves the old file whole;
 * made (NULL: none) sees the new file, written, just before the rename.
 * 0 or a negative errno. */
int ucov_posix_replace(const char *path, const void *data, size_t len, mode_t mode,
                       void (*made)(int fd)) UCOV_HIDDEN;

#endif
