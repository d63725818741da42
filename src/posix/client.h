/* SPDX-License-Identifier: MIT */
/* The ucov command's side of the control protocol (docs/protocol.md). */
#ifndef UCOV_CLI_CLIENT_H
#define UCOV_CLI_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ctl {
  int fd;
  pid_t pid;       /* the target process, or 0 for a serial line */
  int serial;      /* a serial line: replies may follow other bytes, and may never come */
  char label[128]; /* "process N" or "serial PATH", for messages */
};

struct ctl_reply {
  uint32_t status; /* UCOV_ST_* */
  uint8_t *data;   /* malloc'ed payload (an error message when status != 0) */
  size_t len;
};

/* Connect to process pid's control socket. Returns 0, or -1 with a message in err. */
int ctl_open(pid_t pid, struct ctl *c, char *err, size_t errlen);
/*
 * A target on a serial line (a kernel, docs/protocol.md): PATH is a Unix
 * socket (QEMU's -serial unix:PATH,server) or a terminal device (a pty,
 * /dev/ttyS0: set raw, 115200 baud). 0, or -1 with a message in err.
 */
int ctl_open_serial(const char *path, struct ctl *c, char *err, size_t errlen);
/* ctl_open_serial when serial is not NULL, else ctl_open. */
int ctl_open_target(pid_t pid, const char *serial, struct ctl *c, char *err, size_t errlen);

/* One request, one reply. Returns 0 (check r->status), or -1 with a message in err
 * if the connection failed. */
int ctl_call(struct ctl *c, uint16_t op, const void *payload, size_t len, struct ctl_reply *r,
             char *err, size_t errlen);

/* As ctl_call, passing descriptor pass_fd along (SCM_RIGHTS). */
int ctl_call_fd(struct ctl *c, uint16_t op, const void *payload, size_t len, int pass_fd,
                struct ctl_reply *r, char *err, size_t errlen);

void ctl_reply_free(struct ctl_reply *r);
void ctl_close(struct ctl *c);

/* One entry of a LIST reply. */
struct ctl_object {
  uint64_t size;
  char *name;
};

/* Decode a LIST reply into a malloc'ed array. Returns the count, or -1 if malformed. */
long ctl_parse_list(const struct ctl_reply *r, struct ctl_object **out);
void ctl_objects_free(struct ctl_object *o, long n);

/* Parse "--pid N" values. Returns 0 or -1. */
int parse_pid(const char *s, pid_t *pid);

#endif
