/* SPDX-License-Identifier: MIT */
/*
 * The client side of the control protocol that the runtime links too (a
 * process asking another for REMOTE coverage): a process's control socket
 * found and checked, one exchange. The ucov command's own part is targets.c.
 */
#define _GNU_SOURCE
#include "client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "protocol.h"

/* The target's socket in one runtime directory (ucov_ctl_open's search). */
struct find {
  pid_t pid;
  struct ucov_ctl *c;
  int nowait;    /* connect without waiting: a full backlog is a failure */
  int tried;     /* a socket of that pid was found somewhere */
  char why[512]; /* why the last one failed */
};

/*
 * Connect to dir/<pid>.sock and check the peer: the socket is ours (lstat:
 * a socket owned by this euid), and whoever accepted runs as this euid or
 * root, with the pid asked for (SO_PEERCRED). A socket no one listens on,
 * whose pid is gone, is stale: it is removed.
 */
static int find_in(const char *dir, void *arg) {
  struct find *fd = arg;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  int n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%d.sock", dir, (int)fd->pid);
  struct stat st;
  if (n < 0 || (size_t)n >= sizeof(addr.sun_path) || lstat(addr.sun_path, &st) != 0)
    return 0;
  fd->tried = 1;
  if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
    snprintf(fd->why, sizeof(fd->why), "%s: not a socket of this user", addr.sun_path);
    return 0;
  }
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (fd->nowait ? SOCK_NONBLOCK : 0), 0);
  if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
    int e = errno;
    if (s >= 0)
      close(s);
    if (e == ECONNREFUSED && kill(fd->pid, 0) != 0 && errno == ESRCH) {
      unlink(addr.sun_path); /* a killed target's */
      snprintf(fd->why, sizeof(fd->why), "no process %d (its stale socket removed)", (int)fd->pid);
    } else if (e == EAGAIN && fd->nowait) {
      snprintf(fd->why, sizeof(fd->why), "%s: not accepting connections (its backlog is full)",
               addr.sun_path);
    } else {
      snprintf(fd->why, sizeof(fd->why), "%s: %s", addr.sun_path, strerror(e));
    }
    return 0;
  }
  struct ucred cred;
  socklen_t len = sizeof(cred);
  if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
      (cred.uid != geteuid() && cred.uid != 0) || cred.pid != fd->pid) {
    snprintf(fd->why, sizeof(fd->why),
             "%s: the peer is not process %d of this user (pid %d, uid %u)", addr.sun_path,
             (int)fd->pid, (int)cred.pid, (unsigned)cred.uid);
    close(s);
    return 0;
  }
  fd->c->fd = s;
  return 1;
}

int ucov_ctl_open_pid(pid_t pid, int nowait, struct ucov_ctl *c, char *err, size_t errlen) {
  c->pid = pid;
  c->serial = 0;
  c->fd = -1;
  c->answered = 0;
  snprintf(c->label, sizeof(c->label), "process %d", (int)pid);
  struct find f = {pid, c, nowait, 0, ""};
  if (ucov_control_dirs(find_in, &f))
    return 0;
  char dir[UCOV_CONTROL_DIR_MAX] = "";
  ucov_control_dir(dir, sizeof(dir));
  if (f.tried)
    snprintf(err, errlen, "%s", f.why);
  else if (kill(pid, 0) != 0 && errno == ESRCH)
    snprintf(err, errlen, "no process %d", (int)pid);
  else if (!ucov_dir_is_private(dir))
    snprintf(err, errlen,
             "process %d has no ucov control socket (%s is not a private directory of this user)",
             (int)pid, dir);
  else
    snprintf(err, errlen, "process %d has no ucov control socket (%s/%d.sock)", (int)pid, dir,
             (int)pid);
  return -1;
}

int ucov_ctl_open(pid_t pid, struct ucov_ctl *c, char *err, size_t errlen) {
  return ucov_ctl_open_pid(pid, 0, c, err, errlen);
}

/* A serial line may not answer at all, nor may a hostile peer: reads give
 * up after this long without a byte. */
#define SERIAL_TIMEOUT_MS 20000
#define SOCKET_TIMEOUT_MS 60000

static int wait_readable(int fd, int ms) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int r;
  while ((r = poll(&p, 1, ms)) < 0 && errno == EINTR)
    ;
  if (r == 0)
    errno = ETIMEDOUT;
  return r > 0 ? 0 : -1;
}

int ucov_write_full(int fd, const void *p, size_t n) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == ENOTSOCK) /* a tty */
      w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p = (const char *)p + w;
    n -= (size_t)w;
  }
  return 0;
}

/* Read up to n bytes (at least one) within ms: the count, or -1 (errno set;
 * ETIMEDOUT, or EPIPE at EOF). */
static ssize_t read_some(int fd, void *p, size_t n, int ms) {
  for (;;) {
    if (wait_readable(fd, ms))
      return -1;
    ssize_t r = read(fd, p, n);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (r == 0)
      errno = EPIPE;
    return r > 0 ? r : -1;
  }
}

static int read_full_timed(int fd, void *p, size_t n, int ms) {
  while (n) {
    ssize_t r = read_some(fd, p, n, ms);
    if (r < 0)
      return -1;
    p = (char *)p + r;
    n -= (size_t)r;
  }
  return 0;
}

static int timeout_of(const struct ucov_ctl *c) {
  return c->serial ? SERIAL_TIMEOUT_MS : SOCKET_TIMEOUT_MS;
}

int64_t ucov_ctl_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* On a serial line the reply's header comes after whatever else the line
 * carried (a boot banner, the rest of a garbled frame): scan to its magic,
 * for at most SERIAL_TIMEOUT_MS in all (a line that streams bytes without a
 * frame in them would otherwise keep each read's timeout from expiring). */
static int read_header(struct ucov_ctl *c, uint8_t hdr[UCOV_PROTO_HEADER]) {
  if (!c->serial)
    return read_full_timed(c->fd, hdr, UCOV_PROTO_HEADER, SOCKET_TIMEOUT_MS);
  size_t n = 0;
  int64_t deadline = ucov_ctl_now_ms() + SERIAL_TIMEOUT_MS;
  for (;;) {
    uint8_t b;
    int64_t left = deadline - ucov_ctl_now_ms();
    if (left <= 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    if (read_full_timed(c->fd, &b, 1, (int)left))
      return -1;
    if (n == 4)
      memmove(hdr, hdr + 1, 3);
    hdr[n < 4 ? n++ : 3] = b;
    if (n == 4 && ucov_get32(hdr) == UCOV_PROTO_MAGIC)
      break;
  }
  return read_full_timed(c->fd, hdr + 4, UCOV_PROTO_HEADER - 4, SERIAL_TIMEOUT_MS);
}

/* The header, with pass_fd attached to its first byte when >= 0. */
static int send_header(int fd, const uint8_t *hdr, int pass_fd) {
  if (pass_fd < 0)
    return ucov_write_full(fd, hdr, UCOV_PROTO_HEADER);
  struct iovec iov = {(void *)hdr, UCOV_PROTO_HEADER};
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } ctrl;
  memset(&ctrl, 0, sizeof(ctrl));
  struct msghdr msg = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = ctrl.buf,
                       .msg_controllen = sizeof(ctrl.buf)};
  struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
  ssize_t w;
  while ((w = sendmsg(fd, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
    ;
  if (w < 0)
    return -1;
  return w == UCOV_PROTO_HEADER ? 0 : ucov_write_full(fd, hdr + w, UCOV_PROTO_HEADER - (size_t)w);
}

int ucov_ctl_call(struct ucov_ctl *c, uint16_t op, const void *payload, size_t len,
                  struct ucov_ctl_reply *r, char *err, size_t errlen) {
  return ucov_ctl_call_fd(c, op, payload, len, -1, r, err, errlen);
}

/* A reply's payload into memory (r->data, NUL-terminated). */
static int to_memory(void *arg, const void *data, size_t n) {
  struct ucov_ctl_reply *r = arg;
  if (!r->data || n > r->cap - r->len) {
    size_t cap = r->cap ? r->cap : 4096;
    while (cap - r->len < n)
      cap *= 2;
    uint8_t *p = realloc(r->data, cap + 1);
    if (!p)
      return -1;
    r->data = p;
    r->cap = cap;
  }
  memcpy(r->data + r->len, data, n);
  r->len += n;
  r->data[r->len] = 0;
  return 0;
}

int ucov_ctl_call_fd(struct ucov_ctl *c, uint16_t op, const void *payload, size_t len, int pass_fd,
                     struct ucov_ctl_reply *r, char *err, size_t errlen) {
  return ucov_ctl_call_stream(c, op, payload, len, pass_fd, r, NULL, NULL, err, errlen);
}

/* One request and its reply; *closed when the peer closed the connection
 * before any byte of a reply came. */
static int call_once(struct ucov_ctl *c, uint16_t op, const void *payload, size_t len, int pass_fd,
                     struct ucov_ctl_reply *r, int (*out)(void *arg, const void *data, size_t n),
                     void *arg, char *err, size_t errlen, int *closed) {
  uint8_t hdr[UCOV_PROTO_HEADER];
  memset(r, 0, sizeof(*r));
  *closed = 0;
  if (len > UCOV_PROTO_MAX_REQUEST) {
    snprintf(err, errlen, "%s: request too large", c->label);
    return -1;
  }
  ucov_frame_encode(hdr, op, 0, (uint32_t)len);
  if (send_header(c->fd, hdr, pass_fd) || (len && ucov_write_full(c->fd, payload, len))) {
    *closed = errno == EPIPE || errno == ECONNRESET;
    snprintf(err, errlen, "%s: %s", c->label, strerror(errno));
    return -1;
  }
  struct ucov_frame f;
  if (read_header(c, hdr)) {
    if (errno == ETIMEDOUT && c->serial)
      snprintf(err, errlen, "%s: no reply within %d s", c->label, SERIAL_TIMEOUT_MS / 1000);
    else if (errno == ETIMEDOUT)
      snprintf(err, errlen, "%s: no reply", c->label);
    else
      snprintf(err, errlen, "%s closed the connection", c->label);
    *closed = errno != ETIMEDOUT;
    return -1;
  }
  ucov_frame_decode(hdr, &f);
  if (f.magic != UCOV_PROTO_MAGIC || f.version != UCOV_PROTO_VERSION) {
    snprintf(err, errlen, "%s: not a ucov reply", c->label);
    return -1;
  }
  /* Every size from the peer in size_t, bounded, and memory grown only as
   * bytes arrive: a length the peer claims is no reason to allocate it. */
  size_t want = (size_t)f.length;
  r->status = f.status;
  if (want > CTL_REPLY_MAX || (f.status && want > CTL_ERROR_MAX)) {
    snprintf(err, errlen, "%s: reply too large (%zu bytes)", c->label, want);
    return -1;
  }
  /* Errors always go to memory (they are messages). */
  int (*sink)(void *, const void *, size_t) = out && !f.status ? out : to_memory;
  void *sarg = out && !f.status ? arg : r;
  if (to_memory(r, "", 0)) /* r->data is a string even when empty */
    goto nomem;
  uint8_t buf[65536];
  size_t got = 0;
  while (got < want) {
    size_t n = want - got < sizeof(buf) ? want - got : sizeof(buf);
    ssize_t k = read_some(c->fd, buf, n, timeout_of(c));
    if (k < 0) {
      snprintf(err, errlen, "%s: truncated reply (%zu of %zu bytes: %s)", c->label, got, want,
               errno == ETIMEDOUT ? "no data" : "closed");
      ucov_ctl_reply_free(r);
      return -1;
    }
    if (sink(sarg, buf, (size_t)k)) {
      if (sink == to_memory)
        goto nomem;
      snprintf(err, errlen, "%s: %s", c->label, strerror(errno));
      ucov_ctl_reply_free(r);
      return -1;
    }
    got += (size_t)k;
  }
  r->total = got;
  c->answered++;
  return 0;
nomem:
  snprintf(err, errlen, "%s: out of memory for a %zu-byte reply", c->label, want);
  ucov_ctl_reply_free(r);
  return -1;
}

/*
 * A target whose every connection slot is busy closes a newcomer at once (or
 * evicts an idle one: a connection that has not asked yet): "try again".
 * The first request of a connection to a process is then sent again on a
 * new connection, a few times over about a second, when the target closed it
 * before any reply and the request changes nothing (a request that resets
 * is never sent twice).
 */
int ucov_ctl_call_stream(struct ucov_ctl *c, uint16_t op, const void *payload, size_t len,
                         int pass_fd, struct ucov_ctl_reply *r,
                         int (*out)(void *arg, const void *data, size_t n), void *arg, char *err,
                         size_t errlen) {
  int idempotent = op == UCOV_OP_LIST || op == UCOV_OP_SIZE || op == UCOV_OP_READ ||
                   op == UCOV_OP_MODULES || op == UCOV_OP_INFO;
  for (int attempt = 0;; attempt++) {
    int closed;
    int rc = call_once(c, op, payload, len, pass_fd, r, out, arg, err, errlen, &closed);
    if (!rc || !closed || !idempotent || c->serial || !c->pid || c->answered || attempt == 6)
      return rc;
    usleep((useconds_t)(10000u << attempt)); /* 10 ms to 320 ms: 630 ms in all */
    char why[256];
    ucov_ctl_close(c);
    if (ucov_ctl_open_pid(c->pid, 0, c, why, sizeof(why)))
      return rc; /* (the first error says it) */
  }
}

void ucov_ctl_reply_free(struct ucov_ctl_reply *r) {
  free(r->data);
  r->data = NULL;
  r->len = r->cap = 0;
}

void ucov_ctl_close(struct ucov_ctl *c) {
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}
