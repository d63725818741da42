/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: REMOTE coverage across processes, the client's side. The
 * client's device descriptor goes to the target over its control socket
 * (SCM_RIGHTS); the target maps the same pages, so its workers' sections for
 * the client's handles land in the client's own buffer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "proto/client.h"
#include "proto/protocol.h"
#include "ucov/ucov.h"

UCOV_EXPORT UCOV_NOTRACE int ucov_remote_attach(pid_t pid, int fd,
                                                const struct kcov_remote_arg *arg) {
  if (!arg || arg->num_handles > KCOV_REMOTE_MAX_HANDLES) {
    errno = EINVAL;
    return -1;
  }
  struct ucov_ctl c;
  char err[256];
  if (ucov_ctl_open(pid, &c, err, sizeof(err))) {
    errno = kill(pid, 0) != 0 && errno == ESRCH ? ESRCH : ECONNREFUSED;
    return -1;
  }
  struct ucov_ctl_reply r;
  size_t len = sizeof(*arg) + (size_t)arg->num_handles * sizeof(uint64_t);
  if (ucov_ctl_call_fd(&c, UCOV_OP_REMOTE_ENABLE, arg, len, fd, &r, err, sizeof(err))) {
    ucov_ctl_close(&c);
    errno = ECONNRESET;
    return -1;
  }
  int e = 0;
  if (r.status == UCOV_ST_ERRNO && r.len == 4)
    e = (int)(r.data[0] | r.data[1] << 8 | r.data[2] << 16 | (uint32_t)r.data[3] << 24);
  else if (r.status == UCOV_ST_EXITING)
    e = ESRCH;
  else if (r.status)
    e = EPROTO;
  ucov_ctl_reply_free(&r);
  if (e) {
    ucov_ctl_close(&c);
    errno = e;
    return -1;
  }
  return c.fd; /* the registration lasts as long as this connection */
}
