/* SPDX-License-Identifier: MIT */
/* The ucov command's side of the control protocol. */
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
#include <termios.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "protocol.h"

int ctl_open(pid_t pid, struct ctl *c, char *err, size_t errlen) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (ucov_control_path(pid, addr.sun_path, sizeof(addr.sun_path))) {
    snprintf(err, errlen, "control socket path too long");
    return -1;
  }
  c->pid = pid;
  c->serial = 0;
  snprintf(c->label, sizeof(c->label), "process %d", (int)pid);
  c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
    int e = errno;
    if (kill(pid, 0) != 0 && errno == ESRCH)
      snprintf(err, errlen, "no process %d", (int)pid);
    else
      snprintf(err, errlen, "process %d has no ucov control socket (%s: %s)", (int)pid,
               addr.sun_path, strerror(e));
    if (c->fd >= 0)
      close(c->fd);
    c->fd = -1;
    return -1;
  }
  return 0;
}

int ctl_open_serial(const char *path, struct ctl *c, char *err, size_t errlen) {
  struct stat st;
  c->pid = 0;
  c->serial = 1;
  c->fd = -1;
  snprintf(c->label, sizeof(c->label), "serial %s", path);
  if (stat(path, &st) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  if (S_ISSOCK(st.st_mode)) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(addr.sun_path)) {
      snprintf(err, errlen, "%s: socket path too long", path);
      return -1;
    }
    strcpy(addr.sun_path, path);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
      snprintf(err, errlen, "%s: %s", path, strerror(errno));
      ctl_close(c);
      return -1;
    }
    return 0;
  }
  c->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
  struct termios t;
  if (c->fd < 0 || tcgetattr(c->fd, &t) != 0) {
    snprintf(err, errlen, "%s: %s", path, c->fd < 0 ? strerror(errno) : "not a terminal");
    ctl_close(c);
    return -1;
  }
  cfmakeraw(&t);
  cfsetispeed(&t, B115200);
  cfsetospeed(&t, B115200);
  if (tcsetattr(c->fd, TCSANOW, &t) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    ctl_close(c);
    return -1;
  }
  return 0;
}

int ctl_open_target(pid_t pid, const char *serial, struct ctl *c, char *err, size_t errlen) {
  return serial ? ctl_open_serial(serial, c, err, errlen) : ctl_open(pid, c, err, errlen);
}

/* A serial line may not answer at all: reads give up after this long. */
#define SERIAL_TIMEOUT_MS 20000

static int wait_readable(int fd) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int r;
  while ((r = poll(&p, 1, SERIAL_TIMEOUT_MS)) < 0 && errno == EINTR)
    ;
  if (r == 0)
    errno = ETIMEDOUT;
  return r > 0 ? 0 : -1;
}

static int write_full(int fd, const void *p, size_t n) {
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

static int read_full_timed(int fd, void *p, size_t n, int timed) {
  while (n) {
    if (timed && wait_readable(fd))
      return -1;
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    p = (char *)p + r;
    n -= (size_t)r;
  }
  return 0;
}

static int read_full(int fd, void *p, size_t n) {
  return read_full_timed(fd, p, n, 0);
}

/* On a serial line the reply's header comes after whatever else the line
 * carried (a boot banner, the rest of a garbled frame): scan to its magic. */
static int read_header(struct ctl *c, uint8_t hdr[UCOV_PROTO_HEADER]) {
  if (!c->serial)
    return read_full(c->fd, hdr, UCOV_PROTO_HEADER);
  size_t n = 0;
  for (;;) {
    uint8_t b;
    if (read_full_timed(c->fd, &b, 1, 1))
      return -1;
    if (n == 4)
      memmove(hdr, hdr + 1, 3);
    hdr[n < 4 ? n++ : 3] = b;
    if (n == 4 && ucov_get32(hdr) == UCOV_PROTO_MAGIC)
      break;
  }
  return read_full_timed(c->fd, hdr + 4, UCOV_PROTO_HEADER - 4, 1);
}

/* The header, with pass_fd attached to its first byte when >= 0. */
static int send_header(int fd, const uint8_t *hdr, int pass_fd) {
  if (pass_fd < 0)
    return write_full(fd, hdr, UCOV_PROTO_HEADER);
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
  return w == UCOV_PROTO_HEADER ? 0 : write_full(fd, hdr + w, UCOV_PROTO_HEADER - (size_t)w);
}

int ctl_call(struct ctl *c, uint16_t op, const void *payload, size_t len, struct ctl_reply *r,
             char *err, size_t errlen) {
  return ctl_call_fd(c, op, payload, len, -1, r, err, errlen);
}

int ctl_call_fd(struct ctl *c, uint16_t op, const void *payload, size_t len, int pass_fd,
                struct ctl_reply *r, char *err, size_t errlen) {
  uint8_t hdr[UCOV_PROTO_HEADER];
  memset(r, 0, sizeof(*r));
  ucov_frame_encode(hdr, op, 0, (uint32_t)len);
  if (send_header(c->fd, hdr, pass_fd) || (len && write_full(c->fd, payload, len))) {
    snprintf(err, errlen, "%s: %s", c->label, strerror(errno));
    return -1;
  }
  struct ucov_frame f;
  if (read_header(c, hdr)) {
    if (c->serial && errno == ETIMEDOUT)
      snprintf(err, errlen, "%s: no reply", c->label);
    else
      snprintf(err, errlen, "%s closed the connection", c->label);
    return -1;
  }
  ucov_frame_decode(hdr, &f);
  if (f.magic != UCOV_PROTO_MAGIC || f.version != UCOV_PROTO_VERSION) {
    snprintf(err, errlen, "%s: not a ucov reply", c->label);
    return -1;
  }
  r->status = f.status;
  r->len = f.length;
  r->data = malloc(f.length + 1);
  if (!r->data || (f.length && read_full_timed(c->fd, r->data, f.length, c->serial))) {
    snprintf(err, errlen, "%s: truncated reply", c->label);
    free(r->data);
    r->data = NULL;
    return -1;
  }
  r->data[f.length] = 0; /* error messages and text replies read as strings */
  return 0;
}

void ctl_reply_free(struct ctl_reply *r) {
  free(r->data);
  r->data = NULL;
}

void ctl_close(struct ctl *c) {
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}

long ctl_parse_list(const struct ctl_reply *r, struct ctl_object **out) {
  long n = 0, cap = 0;
  struct ctl_object *o = NULL;
  const uint8_t *p = r->data, *end = r->data + r->len;
  while (p < end) {
    if (end - p < 12)
      goto bad;
    uint64_t size = 0;
    uint32_t len = 0;
    for (int i = 0; i < 8; i++)
      size |= (uint64_t)p[i] << (8 * i);
    for (int i = 0; i < 4; i++)
      len |= (uint32_t)p[8 + i] << (8 * i);
    p += 12;
    if ((size_t)(end - p) < len || len == 0)
      goto bad;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      o = realloc(o, (size_t)cap * sizeof(*o));
    }
    o[n].size = size;
    o[n].name = strndup((const char *)p, len);
    n++;
    p += len;
  }
  *out = o;
  return n;
bad:
  ctl_objects_free(o, n);
  return -1;
}

void ctl_objects_free(struct ctl_object *o, long n) {
  for (long i = 0; i < n; i++)
    free(o[i].name);
  free(o);
}

int parse_pid(const char *s, pid_t *pid) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v <= 0 || v > 0x3fffffff)
    return -1;
  *pid = (pid_t)v;
  return 0;
}
