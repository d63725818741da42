/* SPDX-License-Identifier: MIT */
/* The ucov command's side of the control protocol (docs/protocol.md). */
#ifndef UCOV_CLI_CLIENT_H
#define UCOV_CLI_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ucov_ctl {
  int fd;
  pid_t pid;       /* the target process, or 0 for a serial line */
  int serial;      /* a serial line: replies may follow other bytes, and may never come */
  char label[128]; /* "process N" or "serial PATH", for messages */
  int answered;    /* replies read on this connection */
};

struct ucov_ctl_reply {
  uint32_t status; /* UCOV_ST_* */
  uint8_t *data;   /* malloc'ed payload (an error message when status != 0), NUL-terminated */
  size_t len;      /* bytes in data */
  size_t cap;
  size_t total; /* bytes of the payload (all streamed when ucov_ctl_call_stream had a sink) */
};

/* The largest reply a client accepts (an object: a KCOV buffer of 2^27
 * words is 1 GiB), and the largest error message. */
#define CTL_REPLY_MAX ((size_t)1 << 31)
#define CTL_ERROR_MAX ((size_t)4096)

/*
 * Connect to process pid's control socket, trusting what the target trusts:
 * a private runtime directory of this user (ucov_control_dirs), a socket
 * owned by this user, and a peer (SO_PEERCRED) that is process pid running
 * as this user or root. A stale socket (no listener, pid gone) is removed.
 * Returns 0, or -1 with a message in err.
 */
int ucov_ctl_open(pid_t pid, struct ucov_ctl *c, char *err, size_t errlen);
/* As ucov_ctl_open; nowait: a full backlog fails at once (ucov_ctl_info_all). */
int ucov_ctl_open_pid(pid_t pid, int nowait, struct ucov_ctl *c, char *err, size_t errlen);
/* CLOCK_MONOTONIC in milliseconds. */
int64_t ucov_ctl_now_ms(void);
/* All n bytes to fd (a socket, without SIGPIPE; a tty or a device), retried
 * through EINTR and short writes. 0, or -1 with errno. */
int ucov_write_full(int fd, const void *p, size_t n);

/*
 * A target on a serial line (a kernel, docs/protocol.md): PATH is a Unix
 * socket (QEMU's -serial unix:PATH,server) or a terminal device (a pty,
 * /dev/ttyS0: set raw, 115200 baud); or a character device that is not a
 * terminal and takes request frames and answers them (ucov.ko's /dev/ucov).
 * 0, or -1 with a message in err.
 */
int ucov_ctl_open_serial(const char *path, struct ucov_ctl *c, char *err, size_t errlen);
/* ucov_ctl_open_serial when serial is not NULL, else ucov_ctl_open. */
int ucov_ctl_open_target(pid_t pid, const char *serial, struct ucov_ctl *c, char *err,
                         size_t errlen);

/* One request, one reply. Returns 0 (check r->status), or -1 with a message in err
 * if the connection failed. */
int ucov_ctl_call(struct ucov_ctl *c, uint16_t op, const void *payload, size_t len,
                  struct ucov_ctl_reply *r, char *err, size_t errlen);

/* As ucov_ctl_call, passing descriptor pass_fd along (SCM_RIGHTS). */
int ucov_ctl_call_fd(struct ucov_ctl *c, uint16_t op, const void *payload, size_t len, int pass_fd,
                     struct ucov_ctl_reply *r, char *err, size_t errlen);

/*
 * As ucov_ctl_call_fd (pass_fd -1: none), with a successful reply's payload given
 * to out in pieces of at most 64 KiB as it arrives (out NULL: into r->data),
 * so that a large object never sits whole in memory. out returns 0, or -1
 * with errno set to stop. Error replies always land in r->data.
 */
int ucov_ctl_call_stream(struct ucov_ctl *c, uint16_t op, const void *payload, size_t len,
                         int pass_fd, struct ucov_ctl_reply *r,
                         int (*out)(void *arg, const void *data, size_t n), void *arg, char *err,
                         size_t errlen);

/* Call fn for the pid of every live target of this user with a socket in a
 * trusted runtime directory (stale sockets are removed on the way). Stops at
 * fn's first non-zero return and returns it. */
int ucov_ctl_list_targets(int (*fn)(pid_t pid, void *arg), void *arg);

/*
 * INFO from every live target of this user at once, in pid order, all
 * within ms: fn(pid, info, why, arg) with the INFO text, or with info NULL
 * and why saying what happened (no reply in time, refused, not ours). A
 * silent, stopped or hostile target costs the listing at most ms. Returns 0,
 * or -1 out of memory.
 */
int ucov_ctl_info_all(int ms, void (*fn)(pid_t pid, const char *info, const char *why, void *arg),
                      void *arg);

void ucov_ctl_reply_free(struct ucov_ctl_reply *r);
void ucov_ctl_close(struct ucov_ctl *c);

/* One entry of a LIST reply. */
struct ucov_ctl_object {
  uint64_t size;
  char *name;
};

/* Decode a LIST reply into a malloc'ed array. Returns the count, or -1 if malformed. */
long ucov_ctl_parse_list(const struct ucov_ctl_reply *r, struct ucov_ctl_object **out);
void ucov_ctl_objects_free(struct ucov_ctl_object *o, long n);

/* Parse "--pid N" values. Returns 0 or -1. */
int ucov_parse_pid(const char *s, pid_t *pid);

#endif
