/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: the control socket's requests (control.c has the connections).
 * A request is served by the core (ucov_serve) into a reply built in memory,
 * or streamed once the core says how long it is; REMOTE_ENABLE and DUMP are
 * this port's own: a client's device mapped and registered for as long as
 * its connection lasts, and the .gcda files written in place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "memsink.h"
#include "posix.h"
#include "proto/protocol.h"
#include "ucov/port/device.h"
#include "ucov/port/port.h"
#include "ucov/port/remote.h"
#include "ucov/port/units.h"
#include "ucov/ucov.h"

static UCOV_NOTRACE int reply(struct conn *c, uint16_t op, uint32_t status, const void *data,
                              size_t len) {
  uint8_t hdr[UCOV_PROTO_HEADER];
  ucov_frame_encode(hdr, op, status, (uint32_t)len);
  return ucov_control_send(c, hdr, sizeof(hdr)) || (len && ucov_control_send(c, data, len)) ? -1
                                                                                            : 0;
}

UCOV_NOTRACE int ucov_control_reply_error(struct conn *c, uint16_t op, uint32_t status) {
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
    ucov_control_reply_error(c, f->op, UCOV_ST_BAD_REQUEST);
    return -1;
  }
  memcpy(&head, payload, sizeof(head));
  if (head.num_handles > KCOV_REMOTE_MAX_HANDLES)
    return reply_errno(c, f->op, EINVAL);
  if (f->length != sizeof(head) + (size_t)head.num_handles * sizeof(uint64_t)) {
    ucov_control_reply_error(c, f->op, UCOV_ST_BAD_REQUEST);
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
   * (device_memfd.c): the area is its first words * 8 bytes. */
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
  /* conn_slot() reads c->dev of other threads' connections under ucov_control_conn_lock. */
  pthread_mutex_lock(&ucov_control_conn_lock);
  c->dev = dev;
  pthread_mutex_unlock(&ucov_control_conn_lock);
  return reply(c, f->op, UCOV_ST_OK, NULL, 0);
}

/* The client is gone: its handles go, sections for them are discarded. */
UCOV_NOTRACE void ucov_control_conn_release(struct conn *c) {
  struct ucov_device *dev = c->dev;
  ucov_serve_end();
  if (dev) {
    ucov_port_lock();
    ucov_remote_unregister(dev);
    ucov_trace_users_put();
    ucov_port_unlock();
    pthread_mutex_lock(&ucov_control_conn_lock); /* as in serve_remote_enable */
    c->dev = NULL;
    pthread_mutex_unlock(&ucov_control_conn_lock);
    munmap(dev->area, dev->size * 8);
    free(dev);
  }
  if (c->passed_fd >= 0)
    close(c->passed_fd);
  c->passed_fd = -1;
}

/*
 * The largest reply buffer of recent requests, kept for the next one (under
 * ucov_control_conn_lock): a pull of a large object (a KCOV buffer of 128 MiB) then fills
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
  pthread_mutex_lock(&ucov_control_conn_lock);
  out->data = reply_keep;
  out->cap = reply_keep_cap;
  reply_keep = NULL;
  reply_keep_cap = 0;
  pthread_mutex_unlock(&ucov_control_conn_lock);
}

static UCOV_NOTRACE void reply_buffer_give(struct ucov_mem_sink *out) {
  if (out->cap >= REPLY_KEEP_MIN && out->cap <= REPLY_KEEP_MAX) {
    pthread_mutex_lock(&ucov_control_conn_lock);
    if (out->cap > reply_keep_cap) { /* keep the larger */
      uint8_t *d = reply_keep;
      reply_keep = out->data;
      reply_keep_cap = out->cap;
      out->data = d;
    }
    pthread_mutex_unlock(&ucov_control_conn_lock);
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
  if (ucov_control_send(r->c, data, n)) {
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
  if (ucov_control_send(r->c, hdr, sizeof(hdr)) ||
      (r->mem->len && ucov_control_send(r->c, r->mem->data, r->mem->len))) {
    r->broken = 1;
    return -EPIPE;
  }
  return 0;
}

UCOV_NOTRACE int ucov_control_serve_request(struct conn *c, const struct ucov_frame *f,
                                            const char *payload) {
  if (f->op == UCOV_OP_REMOTE_ENABLE)
    return serve_remote_enable(c, f, payload);
  if (f->op == UCOV_OP_DUMP) { /* files are this port's: served here */
    if (f->length)
      return ucov_control_reply_error(c, f->op, UCOV_ST_BAD_REQUEST), -1;
    int err = ucov_gcov_dump_in_place();
    return err ? ucov_control_reply_error(c, f->op, UCOV_ST_EXITING)
               : reply(c, f->op, UCOV_ST_OK, NULL, 0);
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
    keep = ucov_control_reply_error(c, f->op, st) || st == UCOV_ST_BAD_REQUEST ||
                   st == UCOV_ST_UNKNOWN_OP
               ? -1
               : 0;
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
