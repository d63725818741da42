/* SPDX-License-Identifier: MIT */
/* Between the control server's files: control.c (connections, requests)
 * and control_socket.c (the socket's file and the commit record). */
#ifndef UCOV_POSIX_CONTROL_H
#define UCOV_POSIX_CONTROL_H

#include <stdint.h>

#include "ucov/port/compiler.h"

/* A one-line diagnostic: "ucov: control socket: <what>: <detail>". */
void ucov_control_log(const char *what, const char *detail) UCOV_HIDDEN;

/* Make and listen on this process's socket (again: after it was removed or
 * replaced; the instance stays). The descriptor, or -1 (said). */
int ucov_control_listen(int again) UCOV_HIDDEN;

/* Is fd's socket file still the one at its path? */
int ucov_control_fd_is_ours(int fd) UCOV_HIDDEN;

/* The commit record beside the socket, written again (after every commit,
 * before its reply; after each exit file kind). */
void ucov_control_commit_record_write(void) UCOV_HIDDEN;

/* The exit files written so far (ucov_posix_exit_written's kinds). */
unsigned ucov_control_exited_kinds(void) UCOV_HIDDEN;

/* At exit: the socket's file removed (by the process that made it only). */
void ucov_control_unlink_at_exit(void) UCOV_HIDDEN;

/* This run's instance (random, chosen at the first listen): INFO's. */
uint64_t ucov_control_instance(void) UCOV_HIDDEN;

/* A forked child: the parent's socket is not its own. */
void ucov_control_socket_forget(void) UCOV_HIDDEN;

#endif
