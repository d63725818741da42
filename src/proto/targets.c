/* SPDX-License-Identifier: MIT */
/*
 * The ucov command's side of the client (client.h) that the runtime does not
 * link: the targets found in the runtime directories and asked INFO at once,
 * serial lines and frame devices, a LIST reply's objects, a pid argument.
 * client.c holds what both need: a process's socket, one exchange.
 */
#define _GNU_SOURCE
#include "client.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "protocol.h"

/* ucov_ctl_list_targets: every <pid>.sock of one directory. */
struct targets {
  int (*fn)(pid_t pid, void *arg);
  void *arg;
};

static int targets_in(const char *dir, void *arg) {
  struct targets *t = arg;
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  struct dirent *e;
  int r = 0;
  while (!r && (e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (pid <= 0 || pid > 0x3fffffff || strcmp(end, ".sock") != 0)
      continue;
    char path[UCOV_CONTROL_DIR_MAX + 32];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
      struct stat st;
      if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
        unlink(path); /* stale: its process is gone */
      continue;
    }
    r = t->fn((pid_t)pid, t->arg);
  }
  closedir(d);
  return r;
}

int ucov_ctl_list_targets(int (*fn)(pid_t pid, void *arg), void *arg) {
  struct targets t = {fn, arg};
  return ucov_control_dirs(targets_in, &t);
}

int ucov_ctl_open_serial(const char *path, struct ucov_ctl *c, char *err, size_t errlen) {
  struct stat st;
  c->pid = 0;
  c->serial = 1;
  c->fd = -1;
  c->answered = 0;
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
      ucov_ctl_close(c);
      return -1;
    }
    return 0;
  }
  c->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
  struct termios t;
  if (c->fd >= 0 && S_ISCHR(st.st_mode) && tcgetattr(c->fd, &t) != 0 && errno == ENOTTY) {
    /* A frame device (ucov.ko's /dev/ucov): requests written, replies read. */
    snprintf(c->label, sizeof(c->label), "device %s", path);
    return 0;
  }
  if (c->fd < 0 || tcgetattr(c->fd, &t) != 0) {
    snprintf(err, errlen, "%s: %s", path, c->fd < 0 ? strerror(errno) : "not a terminal");
    ucov_ctl_close(c);
    return -1;
  }
  cfmakeraw(&t);
  cfsetispeed(&t, B115200);
  cfsetospeed(&t, B115200);
  if (tcsetattr(c->fd, TCSANOW, &t) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    ucov_ctl_close(c);
    return -1;
  }
  return 0;
}

int ucov_ctl_open_target(pid_t pid, const char *serial, struct ucov_ctl *c, char *err,
                         size_t errlen) {
  return serial ? ucov_ctl_open_serial(serial, c, err, errlen) : ucov_ctl_open(pid, c, err, errlen);
}

long ucov_ctl_parse_list(const struct ucov_ctl_reply *r, struct ucov_ctl_object **out) {
  long n = 0, cap = 0;
  struct ucov_ctl_object *o = NULL;
  const uint8_t *p = r->data, *end = r->data + r->len;
  while (p < end) {
    if (end - p < 12)
      goto bad;
    uint64_t size = ucov_get64(p);
    uint32_t len = ucov_get32(p + 8);
    p += 12;
    if ((size_t)(end - p) < len || len == 0)
      goto bad;
    if (len > UCOV_PROTO_MAX_REQUEST || memchr(p, 0, len))
      goto bad; /* a name no request could carry */
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      struct ucov_ctl_object *g = realloc(o, (size_t)cap * sizeof(*o));
      if (!g)
        goto bad;
      o = g;
    }
    o[n].size = size;
    o[n].name = strndup((const char *)p, len);
    if (!o[n].name)
      goto bad;
    n++;
    p += len;
  }
  *out = o;
  return n;
bad:
  ucov_ctl_objects_free(o, n);
  return -1;
}

void ucov_ctl_objects_free(struct ucov_ctl_object *o, long n) {
  for (long i = 0; i < n; i++)
    free(o[i].name);
  free(o);
}

int ucov_parse_pid(const char *s, pid_t *pid) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v <= 0 || v > 0x3fffffff)
    return -1;
  *pid = (pid_t)v;
  return 0;
}

/* ucov_ctl_info_all: the targets found, and one exchange in flight. */
struct pids {
  pid_t *v;
  size_t n, cap;
};

static int add_pid(pid_t pid, void *arg) {
  struct pids *p = arg;
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    pid_t *v = realloc(p->v, cap * sizeof(*v));
    if (!v)
      return -1;
    p->v = v;
    p->cap = cap;
  }
  p->v[p->n++] = pid;
  return 0;
}

static int by_pid(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

#define INFO_MAX ((size_t)65536)

struct asking {
  struct ucov_ctl c;
  uint8_t hdr[UCOV_PROTO_HEADER];
  size_t got; /* bytes of the header, then of the payload */
  size_t want;
  uint32_t status;
  char *text;
  int state; /* 0 waiting, 1 answered, -1 failed (why says) */
  char why[256];
};

/* Read what has arrived for a; sets a->state when the exchange is over. */
static void asking_read(struct asking *a) {
  for (;;) {
    if (a->text && a->got == a->want) { /* the whole reply */
      a->state = a->status ? -1 : 1;
      if (a->status)
        snprintf(a->why, sizeof(a->why), "%s: %s", a->c.label, a->text);
      return;
    }
    uint8_t *to = a->text ? (uint8_t *)a->text + a->got : a->hdr + a->got;
    size_t room = (a->text ? a->want : UCOV_PROTO_HEADER) - a->got;
    ssize_t r = read(a->c.fd, to, room);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 && errno == EAGAIN)
      return;
    if (r <= 0) {
      a->state = -1;
      snprintf(a->why, sizeof(a->why), "%s closed the connection", a->c.label);
      return;
    }
    a->got += (size_t)r;
    if (!a->text && a->got == UCOV_PROTO_HEADER) {
      struct ucov_frame f;
      ucov_frame_decode(a->hdr, &f);
      if (f.magic != UCOV_PROTO_MAGIC || f.version != UCOV_PROTO_VERSION || f.length > INFO_MAX) {
        a->state = -1;
        snprintf(a->why, sizeof(a->why), "%s: not a ucov reply to INFO", a->c.label);
        return;
      }
      a->want = f.length;
      a->got = 0;
      a->status = f.status; /* an error's message is read all the same */
      if (!(a->text = calloc(1, a->want + 1))) {
        a->state = -1;
        snprintf(a->why, sizeof(a->why), "%s: out of memory", a->c.label);
        return;
      }
    }
  }
}

int ucov_ctl_info_all(int ms, void (*fn)(pid_t pid, const char *info, const char *why, void *arg),
                      void *arg) {
  struct pids p = {0};
  if (ucov_ctl_list_targets(add_pid, &p)) {
    free(p.v);
    return -1;
  }
  qsort(p.v, p.n, sizeof(*p.v), by_pid);
  /* Every target at once, each a descriptor: as many as the limit allows. */
  struct rlimit rl;
  size_t batch = 64;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    if (rl.rlim_cur < rl.rlim_max) {
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_NOFILE, &rl);
      getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur > 128 + 64)
      batch = rl.rlim_cur > 65536 ? 65536 : (size_t)rl.rlim_cur - 64;
  }
  int64_t deadline = ucov_ctl_now_ms() + ms;
  struct asking *a = calloc(batch, sizeof(*a));
  struct pollfd *pf = calloc(batch, sizeof(*pf));
  if (!a || !pf) {
    free(a);
    free(pf);
    free(p.v);
    return -1;
  }
  for (size_t at = 0; at < p.n; at += batch) {
    size_t n = p.n - at < batch ? p.n - at : batch;
    memset(a, 0, n * sizeof(*a));
    for (size_t i = 0; i < n; i++) {
      uint8_t hdr[UCOV_PROTO_HEADER];
      struct asking *q = &a[i];
      q->c.fd = -1;
      if (ucov_ctl_now_ms() >= deadline) {
        q->state = -1;
        snprintf(q->why, sizeof(q->why), "process %d: not asked, out of time", (int)p.v[at + i]);
        continue;
      }
      if (ucov_ctl_open_pid(p.v[at + i], 1, &q->c, q->why, sizeof(q->why))) {
        q->state = -1;
        continue;
      }
      ucov_frame_encode(hdr, UCOV_OP_INFO, 0, 0);
      if (send(q->c.fd, hdr, sizeof(hdr), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(hdr)) {
        q->state = -1;
        snprintf(q->why, sizeof(q->why), "%s: %s", q->c.label, strerror(errno));
      }
    }
    for (;;) {
      nfds_t k = 0;
      for (size_t i = 0; i < n; i++)
        if (a[i].state == 0)
          pf[k++] = (struct pollfd){.fd = a[i].c.fd, .events = POLLIN};
      int64_t left = deadline - ucov_ctl_now_ms();
      if (!k || left <= 0)
        break;
      int r = poll(pf, k, (int)left);
      if (r < 0 && errno != EINTR)
        break;
      for (size_t i = 0; r > 0 && i < n; i++)
        if (a[i].state == 0)
          asking_read(&a[i]);
    }
    for (size_t i = 0; i < n; i++) {
      if (a[i].state == 0)
        snprintf(a[i].why, sizeof(a[i].why), "%s: no reply within %d ms", a[i].c.label, ms);
      fn(p.v[at + i], a[i].state == 1 ? a[i].text : NULL, a[i].why, arg);
      free(a[i].text);
      ucov_ctl_close(&a[i].c);
    }
  }
  free(a);
  free(pf);
  free(p.v);
  return 0;
}
