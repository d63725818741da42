/* SPDX-License-Identifier: MIT */
/*
 * The control protocol (docs/protocol.md): length-prefixed, versioned binary
 * frames over a Unix stream socket, shared by the target's server and the
 * ucov command. Integers are little-endian.
 */
#ifndef UCOV_POSIX_PROTOCOL_H
#define UCOV_POSIX_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../core/frame.h"

/*
 * The control socket path of process pid: $UCOV_RUNTIME_DIR, else
 * $XDG_RUNTIME_DIR/ucov, else /tmp/ucov-<uid>; then "/<pid>.sock".
 * Returns 0, or -1 if it does not fit.
 */
int ucov_control_dir(char *out, size_t len);
int ucov_control_path(pid_t pid, char *out, size_t len);

#endif
