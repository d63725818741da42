/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: the control socket. One Unix stream socket per target process,
 * <runtime dir>/<pid>.sock (0600, in a private directory of the user's:
 * protocol.c), served by one uninstrumented runtime thread with every signal
 * blocked, each client on a thread of its own. It starts with the process
 * (UCOV_CONTROL=0: never), and again, from nothing, in a forked child. Peers
 * of another uid (but root) are refused (SO_PEERCRED) before any thread is
 * spent on them.
 *
 * A malformed, oversized, truncated or unknown frame gets an error reply and
 * the connection is closed; a request about a missing object gets an error
 * reply and the connection stays. Nothing a client sends stops the target, and
 * no client holds the others out: a frame must arrive whole within
 * FRAME_TIMEOUT_MS, an idle connection is closed after IDLE_TIMEOUT_MS (one
 * holding a REMOTE registration lives as long as its client), a reply's peer
 * that takes nothing for SEND_TIMEOUT_MS is given up on, and when every slot
 * is taken one is closed for the new one: a peer that does not read its
 * replies first, else the connection waiting longest (conn_slot).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ucov/port/device.h"
#include "ucov/port/units.h"
#include "ucov/port/remote.h"
#include "control.h"
#include "memsink.h"
#include "posix.h"
#include "proto/protocol.h"
#include "ucov/port/port.h"
#include "ucov/ucov.h"

static int control_started; /* under the port lock */
/* How long a frame may take to arrive whole once its first byte came, and how
 * long a connection may sit idle between requests (REMOTE-registered ones
 * excepted: their registration lasts as long as the connection). */
#ifndef FRAME_TIMEOUT_MS
#define FRAME_TIMEOUT_MS 2000
#endif
#ifndef IDLE_TIMEOUT_MS
#define IDLE_TIMEOUT_MS 10000
#endif
#ifndef SEND_TIMEOUT_MS
#define SEND_TIMEOUT_MS 30000 /* a reply's peer takes no byte: given up */
#endif
#define STALL_DEAF_MS 1000 /* a reply stuck this long: its peer is deaf */
#define CONN_MAX 64        /* connections served at once */

/* One client connection, served by its own thread. */
struct conn {
  int fd;
  int passed_fd;           /* a descriptor the client sent (SCM_RIGHTS), or -1 */
  struct ucov_device *dev; /* REMOTE_ENABLE: the client's device, mapped here */
  int slot;                /* its place in conns[] */
};

/*
 * Connections being served, for eviction and for the forked child. A slot
 * is `waiting` while its thread waits for a request or reads one, or waits
 * for the peer to make room for a reply (a peer that does not read holds a
 * thread no better than one that does not write): the times it may be
 * evicted. It is not waiting while a request is served or its reply moves.
 * conn_lock is the server's own (never the port lock, which serving takes).
 */
static struct conn_slot {
  struct conn *c;
  int waiting; /* for a request, or (2) for the peer to take a reply */
  int evicted;
  int served;        /* a request of it has been served */
  uint64_t since_ms; /* when it started waiting */
} conns[CONN_MAX];
static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;

static UCOV_NOTRACE uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static UCOV_NOTRACE void conn_set_waiting(struct conn *c, int waiting) {
  pthread_mutex_lock(&conn_lock);
  if (waiting == 1 && conns[c->slot].waiting == 0)
    conns[c->slot].served = 1; /* back from serving a request */
  conns[c->slot].waiting = waiting;
  conns[c->slot].since_ms = now_ms();
  pthread_mutex_unlock(&conn_lock);
}

/* Wait until fd is ready for events (POLLIN, POLLOUT) or the deadline (ms,
 * monotonic; 0: none) passes. 0 when ready (or in error: the next read or
 * send says), -1 on timeout or error. */
static UCOV_NOTRACE int wait_fd(int fd, short events, uint64_t deadline) {
  for (;;) {
    int timeout = -1;
    if (deadline) {
      uint64_t now = now_ms();
      if (now >= deadline)
        return -1;
      timeout = (int)(deadline - now);
    }
    struct pollfd pfd = {.fd = fd, .events = events};
    int r = poll(&pfd, 1, timeout);
    if (r > 0)
      return 0;
    if (r == 0 || errno != EINTR)
      return -1;
  }
}

/*
 * Read exactly n bytes before the deadline: 0, 1 at a clean EOF before any
 * byte, -1 otherwise (an error, or the deadline passed: a client that drips a
 * frame byte by byte does not hold its thread). A descriptor passed along is
 * kept in c->passed_fd (extra ones are closed).
 */
static UCOV_NOTRACE int read_full(struct conn *c, void *buf, size_t n, uint64_t deadline) {
  size_t got = 0;
  while (got < n) {
    if (wait_fd(c->fd, POLLIN, deadline))
      return -1;
    struct iovec iov = {(char *)buf + got, n - got};
    union {
      struct cmsghdr h;
      char buf[CMSG_SPACE(4 * sizeof(int))];
    } ctrl;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = ctrl.buf,
                         .msg_controllen = sizeof(ctrl.buf)};
    ssize_t r = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (r <= 0)
      return r == 0 && got == 0 ? 1 : -1;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
      if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
        continue;
      size_t nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < nfd; i++) {
        int pfd;
        memcpy(&pfd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
        if (c->passed_fd < 0)
          c->passed_fd = pfd;
        else
          close(pfd);
      }
    }
    got += (size_t)r;
  }
  return 0;
}

/*
 * Send all of buf. While the peer's socket is full the slot is waiting (and
 * evictable), and after SEND_TIMEOUT_MS without a byte taken the peer is
 * given up on: a client that does not read its replies holds no thread.
 */
static UCOV_NOTRACE int send_full(struct conn *c, const void *buf, size_t n) {
  int stalled = 0, r = 0;
  uint64_t moved = now_ms();
  while (n) {
    ssize_t w = send(c->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) {
      buf = (const char *)buf + w;
      n -= (size_t)w;
      moved = now_ms();
      continue;
    }
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && errno == EAGAIN) {
      if (!stalled)
        conn_set_waiting(c, 2);
      stalled = 1;
      if (wait_fd(c->fd, POLLOUT, moved + SEND_TIMEOUT_MS) == 0)
        continue;
    }
    r = -1;
    break;
  }
  if (stalled)
    conn_set_waiting(c, 0);
  return r;
}

static UCOV_NOTRACE int reply(struct conn *c, uint16_t op, uint32_t status, const void *data,
                              size_t len) {
  uint8_t hdr[UCOV_PROTO_HEADER];
  ucov_frame_encode(hdr, op, status, (uint32_t)len);
  return send_full(c, hdr, sizeof(hdr)) || (len && send_full(c, data, len)) ? -1 : 0;
}

static UCOV_NOTRACE int reply_error(struct conn *c, uint16_t op, uint32_t status) {
  const char *msg = ucov_status_str(status);
  return reply(c, op, status, msg, strlen(msg));
}

static UCOV_NOTRACE int reply_errno(struct conn *c, uint16_t op, int err) {
  uint8_t e[4];
  for (int i = 0; i < 4; i++)
    e[i] = (uint8_t)((uint32_t)err >> (8 * i));
  return reply(c, op, UCOV_ST_ERRNO, e, sizeof(e));
}

/*
 * REMOTE_ENABLE from another process: map the client's device (the descriptor
 * it passed) and register its handles; they stay registered until the
 * connection ends. Returns 0 to keep the connection, -1 to close it.
 */
static UCOV_NOTRACE int serve_remote_enable(struct conn *c, const struct ucov_frame *f,
                                            const char *payload) {
  struct kcov_remote_arg head;
  if (f->length < sizeof(head)) {
    reply_error(c, f->op, UCOV_ST_BAD_REQUEST);
    return -1;
  }
  memcpy(&head, payload, sizeof(head));
  if (head.num_handles > KCOV_REMOTE_MAX_HANDLES)
    return reply_errno(c, f->op, EINVAL);
  if (f->length != sizeof(head) + (size_t)head.num_handles * sizeof(uint64_t)) {
    reply_error(c, f->op, UCOV_ST_BAD_REQUEST);
    return -1;
  }
  int pfd = c->passed_fd;
  c->passed_fd = -1;
  if (c->dev) {
    if (pfd >= 0)
      close(pfd);
    return reply_errno(c, f->op, EBUSY); /* one registration per connection */
  }
  if (pfd < 0)
    return reply_errno(c, f->op, EBADF);
  /* An initialised device, sealed so that the client cannot shrink it under
   * our mapping (the next append would die with SIGBUS) nor grow it. The
   * seals first, then the size: a size read before the seals could be
   * shrunk (and sealed) in between, and the mapping would outgrow the file. */
  struct stat st;
  int seals = fcntl(pfd, F_GET_SEALS);
  if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW) ||
      fstat(pfd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 16 || st.st_size % 8) {
    close(pfd);
    return reply_errno(c, f->op, EINVAL);
  }
  /* A ucov device's memfd ends with a page of its own after the area
   * (device.c): the area is its first words * 8 bytes. */
  uint64_t words = ucov_posix_device_words(pfd, (uint64_t)st.st_size);
  if (words)
    st.st_size = (off_t)(words * 8);
  void *area = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
  close(pfd);
  struct ucov_device *dev = calloc(1, sizeof(*dev));
  if (area == MAP_FAILED || !dev) {
    if (area != MAP_FAILED)
      munmap(area, (size_t)st.st_size);
    free(dev);
    return reply_errno(c, f->op, ENOMEM);
  }
  dev->area = area;
  dev->size = (uint64_t)st.st_size / 8;
  dev->state = UCOV_DEVICE_READY;
  /* The argument, aligned, handles included. */
  struct kcov_remote_arg *arg = malloc(f->length);
  int err = arg ? 0 : -UCOV_ENOMEM;
  if (arg) {
    memcpy(arg, payload, f->length);
    ucov_port_lock();
    err = ucov_remote_register(dev, arg);
    if (!err && (err = ucov_trace_users_get()) != 0)
      ucov_remote_unregister(dev);
    if (!err)
      dev->state = UCOV_DEVICE_ENABLED;
    ucov_port_unlock();
    free(arg);
  }
  if (err) {
    munmap(area, (size_t)st.st_size);
    free(dev);
    return reply_errno(c, f->op, -err);
  }
  /* conn_slot() reads c->dev of other threads' connections under conn_lock. */
  pthread_mutex_lock(&conn_lock);
  c->dev = dev;
  pthread_mutex_unlock(&conn_lock);
  return reply(c, f->op, UCOV_ST_OK, NULL, 0);
}

/* The client is gone: its handles go, sections for them are discarded. */
static UCOV_NOTRACE void conn_release(struct conn *c) {
  struct ucov_device *dev = c->dev;
  if (dev) {
    ucov_port_lock();
    ucov_remote_unregister(dev);
    ucov_trace_users_put();
    ucov_port_unlock();
    pthread_mutex_lock(&conn_lock); /* as in serve_remote_enable */
    c->dev = NULL;
    pthread_mutex_unlock(&conn_lock);
    munmap(dev->area, dev->size * 8);
    free(dev);
  }
  if (c->passed_fd >= 0)
    close(c->passed_fd);
  c->passed_fd = -1;
}

/*
 * The largest reply buffer of recent requests, kept for the next one (under
 * conn_lock): a pull of a large object (a KCOV buffer of 128 MiB) then fills
 * pages already mapped and faulted in, instead of a fresh mapping every time
 * (above glibc's mmap threshold each one cost ~8,200 page faults per 32 MiB,
 * and pulls from 32 MiB up took 50x longer per byte). One buffer, of at least
 * REPLY_KEEP_MIN and at most REPLY_KEEP_MAX bytes.
 */
#define REPLY_KEEP_MIN ((size_t)1 << 20)
#define REPLY_KEEP_MAX ((size_t)1 << 30)
static uint8_t *reply_keep;
static size_t reply_keep_cap;

static UCOV_NOTRACE void reply_buffer_take(struct ucov_mem_sink *out) {
  ucov_mem_sink_init(out);
  pthread_mutex_lock(&conn_lock);
  out->data = reply_keep;
  out->cap = reply_keep_cap;
  reply_keep = NULL;
  reply_keep_cap = 0;
  pthread_mutex_unlock(&conn_lock);
}

static UCOV_NOTRACE void reply_buffer_give(struct ucov_mem_sink *out) {
  if (out->cap >= REPLY_KEEP_MIN && out->cap <= REPLY_KEEP_MAX) {
    pthread_mutex_lock(&conn_lock);
    if (out->cap > reply_keep_cap) { /* keep the larger */
      uint8_t *d = reply_keep;
      reply_keep = out->data;
      reply_keep_cap = out->cap;
      out->data = d;
    }
    pthread_mutex_unlock(&conn_lock);
  }
  free(out->data);
  ucov_mem_sink_init(out);
}

/*
 * A reply built in memory, or, once the core says how many bytes follow
 * (total: a trace buffer), sent as they come: the header with the whole
 * length, what was built so far, then each piece. A stream that stops short
 * leaves the peer a cut frame: its connection is closed.
 */
#define REPLY_MAX ((uint64_t)1 << 31) /* what a client accepts (src/proto/client.h) */
struct reply_sink {
  struct ucov_sink sink;
  struct ucov_mem_sink *mem;
  struct conn *c;
  uint16_t op;
  int streamed, broken;
  uint64_t left; /* bytes the header promised and not yet sent */
};

static UCOV_NOTRACE int reply_sink_write(struct ucov_sink *sink, const void *data, size_t n) {
  struct reply_sink *r = (struct reply_sink *)sink;
  if (!r->streamed)
    return r->mem->sink.write(&r->mem->sink, data, n);
  if (r->broken || n > r->left)
    return -EPIPE;
  if (send_full(r->c, data, n)) {
    r->broken = 1;
    return -EPIPE;
  }
  r->left -= n;
  return 0;
}

static UCOV_NOTRACE int reply_sink_total(struct ucov_sink *sink, uint64_t more) {
  struct reply_sink *r = (struct reply_sink *)sink;
  if (r->streamed)
    return -EINVAL;
  uint64_t len = r->mem->len + more;
  if (len > REPLY_MAX)
    return -EFBIG;
  r->streamed = 1;
  r->left = more;
  uint8_t hdr[UCOV_PROTO_HEADER];
  ucov_frame_encode(hdr, r->op, UCOV_ST_OK, (uint32_t)len);
  if (send_full(r->c, hdr, sizeof(hdr)) ||
      (r->mem->len && send_full(r->c, r->mem->data, r->mem->len))) {
    r->broken = 1;
    return -EPIPE;
  }
  return 0;
}

/* Serve one request. Returns 0 to keep the connection, -1 to close it. */
static int in_flight; /* requests between their exiting check and their reply */
static int quiescing; /* the process is exiting: new requests get UCOV_ST_EXITING */

static UCOV_NOTRACE int serve_request(struct conn *c, const struct ucov_frame *f,
                                      const char *payload) {
  if (f->op == UCOV_OP_REMOTE_ENABLE)
    return serve_remote_enable(c, f, payload);
  if (f->op == UCOV_OP_DUMP) { /* files are this port's: served here */
    if (f->length)
      return reply_error(c, f->op, UCOV_ST_BAD_REQUEST), -1;
    int err = ucov_gcov_dump_in_place();
    return err ? reply_error(c, f->op, UCOV_ST_EXITING) : reply(c, f->op, UCOV_ST_OK, NULL, 0);
  }
  struct ucov_mem_sink out;
  reply_buffer_take(&out);
  struct reply_sink rs = {{reply_sink_write, reply_sink_total}, &out, c, f->op, 0, 0, 0};
  uint8_t eno[4];
  uint32_t st = ucov_serve(f, payload, &rs.sink, eno);
  if (f->op == UCOV_OP_COMMIT && st == UCOV_ST_OK)
    ucov_control_commit_record_write(); /* before the reply: see commit_record_write */
  int keep;
  if (rs.streamed) /* the header went: whole, or the connection ends */
    keep = st == UCOV_ST_OK && !rs.left && !rs.broken ? 0 : -1;
  else if (st == UCOV_ST_OK)
    keep = reply(c, f->op, st, out.data, out.len);
  else if (st == UCOV_ST_ERRNO)
    keep = reply(c, f->op, st, eno, sizeof(eno));
  else /* a malformed or unknown request ends the connection */
    keep =
        reply_error(c, f->op, st) || st == UCOV_ST_BAD_REQUEST || st == UCOV_ST_UNKNOWN_OP ? -1 : 0;
  reply_buffer_give(&out);
  return keep;
}

/* (No byte transport and no COMMAND: the core's defaults. The control socket
 * is the POSIX port's transport; a process has no shell.) */

/* INFO: the process. */
UCOV_NOTRACE int ucov_port_info(struct ucov_sink *sink) {
  char exe[PATH_MAX] = "", info[PATH_MAX + 128];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  exe[n > 0 ? n : 0] = 0;
  int len =
      snprintf(info, sizeof(info), "pid=%d\nexe=%s\nversion=%s\nprotocol=%d\ninstance=%016llx\n",
               (int)getpid(), exe, UCOV_VERSION, UCOV_PROTO_VERSION,
               (unsigned long long)ucov_control_instance());
  return sink->write(sink, info, (size_t)len);
}

static UCOV_NOTRACE void serve_connection(struct conn *c) {
  int fd = c->fd;
  char payload[UCOV_PROTO_MAX_REQUEST];
  for (;;) {
    /* Between requests a connection may stay IDLE_TIMEOUT_MS (a REMOTE
     * registration: as long as it likes); a frame, once begun, must come
     * whole within FRAME_TIMEOUT_MS. */
    conn_set_waiting(c, 1);
    if (wait_fd(fd, POLLIN, c->dev ? 0 : now_ms() + IDLE_TIMEOUT_MS))
      return; /* idle too long, or evicted */
    uint64_t deadline = now_ms() + FRAME_TIMEOUT_MS;
    uint8_t hdr[UCOV_PROTO_HEADER];
    int r = read_full(c, hdr, sizeof(hdr), deadline);
    if (r == 1)
      return; /* the client is done */
    if (r < 0) {
      reply_error(c, 0, UCOV_ST_TRUNCATED);
      return;
    }
    struct ucov_frame f;
    ucov_frame_decode(hdr, &f);
    uint32_t bad = ucov_frame_check(&f);
    if (bad != UCOV_ST_OK) {
      reply_error(c, f.op, bad);
      return;
    }
    if (f.length && read_full(c, payload, f.length, deadline) != 0) {
      reply_error(c, f.op, UCOV_ST_TRUNCATED);
      return;
    }
    conn_set_waiting(c, 0);
    /* Counted from before the exiting check to after the reply: the exit
     * waits for replies whose counts already left the baseline. */
    __atomic_add_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
    int served;
    if (__atomic_load_n(&quiescing, __ATOMIC_SEQ_CST) && f.op != UCOV_OP_INFO) {
      reply_error(c, f.op, UCOV_ST_EXITING);
      served = -1;
    } else {
      served = serve_request(c, &f, payload);
    }
    __atomic_sub_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
    if (served != 0)
      return;
  }
}

/* The process is exiting: refuse new requests, and let those in flight send
 * their replies (at most a second): a READ_AND_RESET that moved a baseline
 * must not die with its reply. Takes no lock. */
UCOV_NOTRACE void ucov_port_exit_drain(void) {
  __atomic_store_n(&quiescing, 1, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 1000 && __atomic_load_n(&in_flight, __ATOMIC_SEQ_CST); i++) {
    struct timespec ts = {0, 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (ucov_control_exited_kinds())
    ucov_control_commit_record_write(); /* the exit files are written: say so */
}

static int control_fd = -1;        /* the listening socket */
static int control_ready;          /* the server thread is past its start-up */
static int control_started_thread; /* a server thread was created in this process */

static UCOV_NOTRACE void *conn_main(void *arg) {
  struct conn *c = arg;
  serve_connection(c);
  conn_release(c);
  /* The slot goes before the descriptor closes: an eviction (which shuts the
   * descriptor down under conn_lock) never reaches a number reused since. */
  pthread_mutex_lock(&conn_lock);
  conns[c->slot] = (struct conn_slot){0};
  close(c->fd);
  pthread_mutex_unlock(&conn_lock);
  free(c);
  return NULL;
}

/*
 * A free slot, or -1. When every slot is taken, one connection is shut down
 * and its slot awaited (up to 200 ms); never a REMOTE registration. First a
 * deaf one, waiting longest: its peer has left a reply stuck in a full socket
 * for STALL_DEAF_MS, or sends more requests while replies already sent lie
 * unread (SIOCOUTQ and SIOCINQ), even while it is served. A legitimate client
 * reads each reply before it asks again, and takes a large one as it comes.
 * Else the idle one (nothing to read: a request that has come is about to be
 * served) that has waited longest; never one being served, nor one that
 * waits less than STALL_DEAF_MS between two requests (it would otherwise
 * lose to newcomers not yet served). (A deaf peer shut
 * down while served loses only its own reply: a READ_AND_RESET that moved a
 * baseline loses those counts, as any READ_AND_RESET whose client does not
 * read; SNAPSHOT and COMMIT lose nothing.) conn_lock held; it is dropped
 * while waiting.
 */
static UCOV_NOTRACE int conn_slot(void) {
  for (int tries = 0; tries < 200; tries++) {
    int victim = -1, victim_deaf = 0;
    for (int i = 0; i < CONN_MAX; i++) {
      if (!conns[i].c)
        return i;
      if (conns[i].evicted || conns[i].c->dev)
        continue;
      /* Deaf: stalled on a reply for STALL_DEAF_MS, or asking again (bytes
       * to read) while replies already sent are unread, served or not. */
      int unread = 0, asked = 0, fd = conns[i].c->fd;
      uint64_t waited = now_ms() - conns[i].since_ms;
      if (ioctl(fd, SIOCINQ, &asked) != 0)
        asked = 0;
      if (ioctl(fd, SIOCOUTQ, &unread) != 0)
        unread = 0;
      int deaf = (conns[i].waiting == 2 && waited >= STALL_DEAF_MS) || (asked > 0 && unread > 0);
      /* Idle: waiting with nothing to read (one whose request is there is
       * about to be served: a client that just connected and asked). */
      if (!deaf && (conns[i].waiting != 1 || asked > 0))
        continue; /* being served, or its reply moving, or its request in */
      /* A client between two requests (reading its reply, or writing what
       * it pulled) keeps its slot for STALL_DEAF_MS after a request was
       * served: a burst of newcomers whose requests are not yet served
       * must not push out the one client that behaves. (Its reply may be
       * unread yet on a loaded machine; one that asks again before
       * reading it is deaf, above.) */
      if (!deaf && conns[i].served && waited < STALL_DEAF_MS)
        continue;
      if (victim < 0 || deaf > victim_deaf ||
          (deaf == victim_deaf && conns[i].since_ms < conns[victim].since_ms)) {
        victim = i;
        victim_deaf = deaf;
      }
    }
    if (victim >= 0) {
      conns[victim].evicted = 1;
      shutdown(conns[victim].c->fd, SHUT_RDWR);
    }
    pthread_mutex_unlock(&conn_lock);
    usleep(1000);
    pthread_mutex_lock(&conn_lock);
  }
  return -1;
}

/* Serve a connection on a thread of its own (signals stay blocked: inherited). */
static UCOV_NOTRACE void conn_start(int fd) {
  struct ucred cred;
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
      (cred.uid != geteuid() && cred.uid != 0)) {
    /* Refused before a thread is spent on it; the reply must not block. */
    uint8_t hdr[UCOV_PROTO_HEADER];
    const char *msg = ucov_status_str(UCOV_ST_PERMISSION);
    ucov_frame_encode(hdr, 0, UCOV_ST_PERMISSION, (uint32_t)strlen(msg));
    send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL | MSG_DONTWAIT);
    send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
    return;
  }
  struct conn *c = calloc(1, sizeof(*c));
  if (!c) {
    close(fd);
    return;
  }
  c->fd = fd;
  c->passed_fd = -1;
  pthread_mutex_lock(&conn_lock);
  c->slot = conn_slot();
  if (c->slot >= 0)
    conns[c->slot] = (struct conn_slot){c, 1, 0, 0, now_ms()};
  pthread_mutex_unlock(&conn_lock);
  if (c->slot < 0) { /* every slot busy serving: try again later */
    close(fd);
    free(c);
    return;
  }
  pthread_attr_t attr;
  pthread_t th;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&th, &attr, conn_main, c) != 0) {
    pthread_mutex_lock(&conn_lock);
    conns[c->slot] = (struct conn_slot){0};
    pthread_mutex_unlock(&conn_lock);
    close(fd);
    free(c);
  }
  pthread_attr_destroy(&attr);
}

static UCOV_NOTRACE void *control_main(void *arg) {
  /* In a forked child, wait a little: most children exec at once, and their
   * socket would outlive them (exec runs no atexit handler). */
  unsigned delay_ms = (unsigned)(uintptr_t)arg;
  pthread_setname_np(pthread_self(), "ucov-control"); /* one a process: `top -H` shows it */
  if (delay_ms)
    usleep(delay_ms * 1000);
  int lfd = ucov_control_listen(0);
  __atomic_store_n(&control_ready, 1, __ATOMIC_RELEASE);
  if (lfd < 0)
    return NULL;
  __atomic_store_n(&control_fd, lfd, __ATOMIC_RELEASE);
  for (;;) {
    /* The program closed our socket (its number may be its own file now,
     * left alone): made again, quietly, at the same path. */
    if (!ucov_control_fd_is_ours(lfd)) {
      int nfd = ucov_control_listen(1);
      if (nfd < 0) {
        usleep(100000);
        continue;
      }
      lfd = nfd;
      __atomic_store_n(&control_fd, lfd, __ATOMIC_RELEASE);
    }
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EBADF || errno == ENOTSOCK || errno == EINVAL)
        continue; /* (closed under us: checked above) */
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE ||
          errno == ENOBUFS || errno == ENOMEM) {
        if (errno != EINTR && errno != ECONNABORTED)
          usleep(100000); /* out of descriptors or memory: try again later */
        continue;
      }
      ucov_control_log("accept", strerror(errno));
      return NULL;
    }
    conn_start(fd);
  }
}

/* Start the server once per process. Port lock held. */
static UCOV_NOTRACE void control_start(unsigned delay_ms) {
  if (control_started || !ucov_posix_runtime_active())
    return;
  control_started = 1;
  const char *off = secure_getenv("UCOV_CONTROL");
  if (off && !strcmp(off, "0"))
    return;
  ucov_posix_atfork_once();
  static int atexit_done;
  if (!atexit_done) {
    atexit_done = 1;
    atexit(ucov_control_unlink_at_exit);
  }
  /* The thread takes no signal meant for the program. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t th;
  __atomic_store_n(&control_ready, 0, __ATOMIC_RELEASE);
  if (pthread_create(&th, &attr, control_main, (void *)(uintptr_t)delay_ms) != 0)
    ucov_control_log("cannot start its thread", strerror(errno));
  else
    __atomic_store_n(&control_started_thread, 1, __ATOMIC_RELEASE);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

UCOV_NOTRACE void ucov_port_object_added(void) {
  control_start(0);
}

/* Every target serves from the start: remote clients attach before the first
 * section runs, and the module map is an object of every process. */
__attribute__((constructor)) static UCOV_NOTRACE void control_autostart(void) {
  ucov_port_lock();
  control_start(0);
  ucov_port_unlock();
}

/*
 * Before fork: let a server thread that is still starting finish (at most
 * 300 ms). A thread caught inside an allocator that is not fork-safe (ASan's)
 * would leave the child's allocator locked for good. Then hold the
 * connection table until ucov_control_fork_parent or ucov_control_fork_child.
 */
UCOV_NOTRACE void ucov_control_fork_prepare(void) {
  for (int i = 0; i < 300 && __atomic_load_n(&control_started_thread, __ATOMIC_ACQUIRE) &&
                  !__atomic_load_n(&control_ready, __ATOMIC_ACQUIRE);
       i++)
    usleep(1000);
  pthread_mutex_lock(&conn_lock); /* conns[] stays still across fork */
}

UCOV_NOTRACE void ucov_control_fork_parent(void) {
  pthread_mutex_unlock(&conn_lock);
}

/*
 * In the child, nothing of the parent's connections is its own: their
 * threads did not come along, their descriptors did. The child closes them
 * (a client of the parent then sees its connection end when the parent's
 * thread closes it, not when the child exits), drops their REMOTE
 * registrations and their mappings, and starts from zero: no connection, no
 * request in flight, not quiescing.
 */
UCOV_NOTRACE void ucov_control_fork_child(void) {
  pthread_mutex_unlock(&conn_lock); /* taken by this thread in ucov_control_fork_prepare */
  for (int i = 0; i < CONN_MAX; i++) {
    struct conn *c = conns[i].c;
    if (!c)
      continue;
    if (c->dev) {
      ucov_remote_unregister(c->dev); /* the port lock is held across fork */
      munmap(c->dev->area, c->dev->size * 8);
      free(c->dev);
    }
    if (c->passed_fd >= 0)
      close(c->passed_fd);
    close(c->fd);
    free(c);
    conns[i] = (struct conn_slot){0};
  }
  __atomic_store_n(&in_flight, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&quiescing, 0, __ATOMIC_SEQ_CST);
  if (!control_started)
    return;
  int parent_fd = __atomic_exchange_n(&control_fd, -1, __ATOMIC_ACQ_REL);
  if (ucov_control_fd_is_ours(parent_fd))
    close(parent_fd); /* the parent's; nobody here accepts on it (a number the
                         program reused is its own) */
  ucov_control_socket_forget();
  __atomic_store_n(&control_started_thread, 0, __ATOMIC_RELEASE);
  control_started = 0;
  control_start(200);
}
