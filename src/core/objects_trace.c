/* SPDX-License-Identifier: MIT */
/* The object registry's trace buffers (kinds.h): a KCOV device's area in PC
 * mode, read, reset and snapshotted as a KCOV client would, or streamed. */
#include "kinds.h"

#include "gcov.h"
#include "record.h"
#include "ucov/port/device.h"
#include "ucov/port/port.h"
#include "writer.h"

/* -- trace buffers: "kcov/<id>.kcov", the area of a KCOV device in PC mode -- */

static UCOV_NOTRACE int is_pc_trace(const struct ucov_device *dev) {
  return dev->area && (dev->last_mode & UCOV_TASK_PC) &&
         !(dev->last_mode & (UCOV_TASK_CMP | UCOV_TASK_UNIQUE));
}

static UCOV_NOTRACE void trace_name(uint32_t id, char *out) {
  static const char pre[] = "kcov/", post[] = ".kcov";
  char digits[10];
  int n = 0, o = 0;
  do
    digits[n++] = (char)('0' + id % 10);
  while ((id /= 10) && n < 10);
  for (int i = 0; pre[i]; i++)
    out[o++] = pre[i];
  while (n)
    out[o++] = digits[--n];
  for (int i = 0; post[i]; i++)
    out[o++] = post[i];
  out[o] = 0;
}

static UCOV_NOTRACE int kcov_next(struct obj *o) {
  struct ucov_device *d = ucov_port_device_next(o->started ? o->u.dev : 0, &o->index);
  while (d && !is_pc_trace(d))
    d = ucov_port_device_next(d, &o->index);
  if (d)
    trace_name(o->index, o->name);
  o->u.dev = d;
  return d != 0;
}

/* The count n (bounded by the area, *n set to it) and that many PCs: the
 * area as a KCOV buffer dump. */
static UCOV_RACY_READS UCOV_NOTRACE int trace_dump(struct ucov_sink *sink, struct ucov_device *dev,
                                                   uint64_t *n) {
  if (*n > dev->size - 1)
    *n = dev->size - 1;
  struct ucov_writer o;
  ucov_w_init(&o, sink);
  ucov_w_u64(&o, *n);
  for (uint64_t i = 1; i <= *n; i++)
    ucov_w_u64(&o, UCOV_LOAD_RACY(&dev->area[i]));
  ucov_w_flush(&o);
  return o.err;
}

/* With reset the count is exchanged with 0 first, as a KCOV client resets
 * its buffer: PCs appended from then on are the next read's. */
static UCOV_RACY_READS UCOV_NOTRACE int kcov_read(struct obj *o, struct ucov_sink *sink,
                                                  int reset) {
  struct ucov_device *dev = o->u.dev;
  uint64_t n = reset ? UCOV_TAKE_RACY(&dev->area[0]) : UCOV_LOAD_RACY(&dev->area[0]);
  return trace_dump(sink, dev, &n);
}

static UCOV_NOTRACE int kcov_reset(struct obj *o) {
  UCOV_TAKE_RACY(&o->u.dev->area[0]);
  return 0;
}

static UCOV_RACY_READS UCOV_NOTRACE int kcov_snapshot(struct obj *o, struct ucov_sink *sink,
                                                      uint64_t token) {
  struct ucov_device *dev = o->u.dev;
  uint64_t n = UCOV_LOAD_RACY(&dev->area[0]);
  int err = trace_dump(sink, dev, &n);
  dev->pending_count = n;
  dev->pending_token = err ? 0 : token;
  return err;
}

static UCOV_NOTRACE uint64_t *kcov_pending(struct obj *o, int *stale) {
  *stale = 0; /* appends are not a change: see kcov_commit */
  return &o->u.dev->pending_token;
}

/* The count goes to 0 only if nothing was appended since the snapshot: else
 * the PCs stay (read again, never lost). */
static UCOV_NOTRACE void kcov_commit(struct obj *o) {
  struct ucov_device *d = o->u.dev;
  uint64_t expect = d->pending_count;
  if (expect)
    __atomic_compare_exchange_n(&d->area[0], &expect, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  d->pending_token = 0;
}

/*
 * A trace buffer into a sink that streams (sink->total): its count fixed
 * first (a snapshot's pending at it), then the PCs in pieces of at most
 * STREAM_PIECE bytes, each copied under the lock and written without it, so
 * that a 2 GiB buffer costs the target no copy of itself and a slow reader
 * holds no lock. Between pieces the device is found again by id: one that
 * went (closed, the exit) ends the stream with an error. Entered and left
 * with the lock held. Appends land past the count: the PCs sent stay put.
 */
#define STREAM_PIECE (1u << 20)

static UCOV_NOTRACE struct ucov_device *device_again(struct ucov_device *d, uint32_t id) {
  uint32_t at = 0;
  for (struct ucov_device *x = ucov_port_device_next(0, &at); x; x = ucov_port_device_next(x, &at))
    if (x == d && at == id)
      return is_pc_trace(x) ? x : 0;
  return 0;
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_trace_stream(struct obj *o, struct ucov_sink *sink,
                                                   uint64_t token) {
  struct ucov_device *dev = o->u.dev;
  uint32_t id = o->index;
  uint64_t n = UCOV_LOAD_RACY(&dev->area[0]);
  if (n > dev->size - 1)
    n = dev->size - 1;
  uint64_t *piece = ucov_port_alloc(STREAM_PIECE);
  if (!piece)
    return -UCOV_ENOMEM;
  if (token) {
    dev->pending_count = n;
    dev->pending_token = token;
  }
  ucov_port_unlock();
  int err = sink->total(sink, 8 + 8 * n);
  if (!err)
    err = sink->write(sink, &n, 8); /* the count, then the PCs */
  ucov_port_lock();
  for (uint64_t done = 0; !err && done < n;) {
    if (ucov_gcov_exited() || !(dev = device_again(dev, id))) {
      err = -UCOV_ENOENT; /* gone meanwhile: the reply is cut short */
      break;
    }
    uint64_t k = n - done < STREAM_PIECE / 8 ? n - done : STREAM_PIECE / 8;
    for (uint64_t i = 0; i < k; i++)
      piece[i] = UCOV_LOAD_RACY(&dev->area[1 + done + i]);
    ucov_port_unlock();
    err = sink->write(sink, piece, (size_t)k * 8);
    ucov_port_lock();
    done += k;
  }
  if (err && token && (dev = device_again(dev, id)) && dev->pending_token == token)
    dev->pending_token = 0;
  ucov_port_free(piece);
  return err;
}

const struct kind ucov_trace_kind = {.next = kcov_next,
                                     .read = kcov_read,
                                     .reset = kcov_reset,
                                     .snapshot = kcov_snapshot,
                                     .pending = kcov_pending,
                                     .commit = kcov_commit};
