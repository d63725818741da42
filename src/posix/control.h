/* SPDX-License-Identifier: MIT */
/* Between the control server's files: control.c (connections),
 * control_serve.c (requests) and control_socket.c (the socket's file and the
 * commit record). */
#ifndef UCOV_POSIX_CONTROL_H
#define UCOV_POSIX_CONTROL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"

struct ucov_frame;
/* One client connection, served by its own thread. */
struct conn {
  int fd;
  int passed_fd;           /* a descriptor the client sent (SCM_RIGHTS), or -1 */
  struct ucov_device *dev; /* REMOTE_ENABLE: the client's device, mapped here */
  int slot;                /* its place in conns[] */
};

/* The server's own lock (never the port lock, which serving takes): the
 * connections' slots, a connection's device, the kept reply buffer. */
extern pthread_mutex_t ucov_control_conn_lock UCOV_HIDDEN;

/* All of buf to c's peer (control.c): 0, or -1 (the peer gone or deaf). */
int ucov_control_send(struct conn *c, const void *buf, size_t n) UCOV_HIDDEN;

/* Serve one request (control_serve.c): 0 to keep the connection, -1 to close it. */
int ucov_control_serve_request(struct conn *c, const struct ucov_frame *f,
                               const char *payload) UCOV_HIDDEN;

/* The status's message as an error reply: 0, or -1 (not sent). */
int ucov_control_reply_error(struct conn *c, uint16_t op, uint32_t status) UCOV_HIDDEN;

/* The client is gone: its REMOTE handles go, sections for them are discarded. */
void ucov_control_conn_release(struct conn *c) UCOV_HIDDEN;

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
