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

/*
 * Connections being served, for eviction and for the forked child. A slot
 * is `waiting` while its thread waits for a request or reads one, or waits
 * for the peer to make room for a reply (a peer that does not read holds a
 * thread no better than one that does not write): the times it may be
 * evicted. It is not waiting while a request is served or its reply moves.
 * ucov_control_conn_lock is the server's own (never the port lock, which serving takes).
 */
static struct conn_slot {
  struct conn *c;
  int waiting; /* for a request, or (2) for the peer to take a reply */
  int evicted;
  int served;        /* a request of it has been served */
  uint64_t since_ms; /* when it started waiting */
} conns[CONN_MAX];
pthread_mutex_t ucov_control_conn_lock = PTHREAD_MUTEX_INITIALIZER;

static UCOV_NOTRACE uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static UCOV_NOTRACE void conn_set_waiting(struct conn *c, int waiting) {
  pthread_mutex_lock(&ucov_control_conn_lock);
  if (waiting == 1 && conns[c->slot].waiting == 0)
    conns[c->slot].served = 1; /* back from serving a request */
  conns[c->slot].waiting = waiting;
  conns[c->slot].since_ms = now_ms();
  pthread_mutex_unlock(&ucov_control_conn_lock);
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
UCOV_NOTRACE int ucov_control_send(struct conn *c, const void *buf, size_t n) {
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

static int in_flight; /* requests between their exiting check and their reply */
static int quiescing; /* the process is exiting: new requests get UCOV_ST_EXITING */

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
      ucov_control_reply_error(c, 0, UCOV_ST_TRUNCATED);
      return;
    }
    struct ucov_frame f;
    ucov_frame_decode(hdr, &f);
    uint32_t bad = ucov_frame_check(&f);
    if (bad != UCOV_ST_OK) {
      ucov_control_reply_error(c, f.op, bad);
      return;
    }
    if (f.length && read_full(c, payload, f.length, deadline) != 0) {
      ucov_control_reply_error(c, f.op, UCOV_ST_TRUNCATED);
      return;
    }
    conn_set_waiting(c, 0);
    /* Counted from before the exiting check to after the reply: the exit
     * waits for replies whose counts already left the baseline. */
    __atomic_add_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
    int served;
    if (__atomic_load_n(&quiescing, __ATOMIC_SEQ_CST) && f.op != UCOV_OP_INFO) {
      ucov_control_reply_error(c, f.op, UCOV_ST_EXITING);
      served = -1;
    } else {
      served = ucov_control_serve_request(c, &f, payload);
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
  ucov_control_conn_release(c);
  /* The slot goes before the descriptor closes: an eviction (which shuts the
   * descriptor down under ucov_control_conn_lock) never reaches a number reused since. */
  pthread_mutex_lock(&ucov_control_conn_lock);
  conns[c->slot] = (struct conn_slot){0};
  close(c->fd);
  pthread_mutex_unlock(&ucov_control_conn_lock);
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
 * read; SNAPSHOT and COMMIT lose nothing.) ucov_control_conn_lock held; it is dropped
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
    pthread_mutex_unlock(&ucov_control_conn_lock);
    usleep(1000);
    pthread_mutex_lock(&ucov_control_conn_lock);
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
  pthread_mutex_lock(&ucov_control_conn_lock);
  c->slot = conn_slot();
  if (c->slot >= 0)
    conns[c->slot] = (struct conn_slot){c, 1, 0, 0, now_ms()};
  pthread_mutex_unlock(&ucov_control_conn_lock);
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
    pthread_mutex_lock(&ucov_control_conn_lock);
    conns[c->slot] = (struct conn_slot){0};
    pthread_mutex_unlock(&ucov_control_conn_lock);
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

int ucov_posix_fork_server;

/* Start the server once per process. Port lock held. */
static UCOV_NOTRACE void control_start(unsigned delay_ms) {
  if (control_started || !ucov_posix_runtime_active())
    return;
  if (ucov_posix_fork_server && getpid() != ucov_posix_fork_server)
    return; /* an execution of a fork server, which serves */
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

UCOV_NOTRACE void ucov_posix_control_start_now(void) {
  ucov_port_lock();
  control_start(0);
  ucov_port_unlock();
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
  pthread_mutex_lock(&ucov_control_conn_lock); /* conns[] stays still across fork */
}

UCOV_NOTRACE void ucov_control_fork_parent(void) {
  pthread_mutex_unlock(&ucov_control_conn_lock);
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
  pthread_mutex_unlock(
      &ucov_control_conn_lock); /* taken by this thread in ucov_control_fork_prepare */
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
  /* A child sharing its parent's counters (a fuzzer's execution) has no
   * counts of its own to serve: no server, and no thread made per fork. */
  if (!ucov_posix_counters_borrowed())
    control_start(200);
}
