/* SPDX-License-Identifier: MIT */
/*
 * Where control sockets live, and which directories either side trusts: the
 * target's server and the ucov command apply the same rules (docs/protocol.md,
 * "Where" and "Trust, both ways"). The frames themselves are the core's
 * (src/core/frame.h), the same over a socket or a serial line.
 */
#ifndef UCOV_POSIX_PROTOCOL_H
#define UCOV_POSIX_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ucov/port/frame.h"

/* The longest runtime directory path, with its NUL. */
#define UCOV_CONTROL_DIR_MAX 512

/* Is dir private to this user: a real directory (lstat), owned by the
 * effective uid, no permission bits for group or others? */
int ucov_dir_is_private(const char *dir);

/*
 * The preferred runtime directory: the configured one, else /tmp/ucov-<euid>;
 * and the socket path of process pid in it, "<dir>/<pid>.sock". 0, or -1 if
 * it does not fit.
 */
int ucov_control_dir(char *out, size_t len);
int ucov_control_path(pid_t pid, char *out, size_t len);

/*
 * Call fn for every directory a target of this user may serve from that
 * passes ucov_dir_is_private: the configured one alone, or /tmp/ucov-<euid>
 * and the fallbacks /tmp/ucov-<euid>.XXXXXX. Stops at fn's first non-zero
 * return and returns it.
 */
int ucov_control_dirs(int (*fn)(const char *dir, void *arg), void *arg);

/*
 * A private directory to keep state in: dir itself, created 0700 if missing,
 * if it is private. If not: a configured one (the user chose it) is refused;
 * a default one (a name anyone can take first) gives way to an existing
 * private "<dir>.XXXXXX" beside it, else a new one from mkdtemp. 0 with out
 * set (why then says "<dir> is not a private directory ...: <doing> <out>"
 * when a fallback was taken, else is empty), or -1 with the reason in why.
 */
int ucov_private_dir(const char *dir, int configured, const char *doing, char *out, size_t len,
                     char *why, size_t whylen);

/*
 * The directory a target serves from (created 0700 if missing): the
 * preferred one if it is private; if the default is squatted, an existing
 * private fallback or a new one (mkdtemp). 0 with out set (why says so when a
 * fallback was taken), or -1 with the reason in why.
 */
int ucov_control_serve_dir(char *out, size_t len, char *why, size_t whylen);

#endif
