/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's requests, served the same way by every port: the
 * objects, the module map, and INFO and COMMAND through the port.
 */
#include "ucov/port/frame.h"
#include "gcov.h"
#include "objects.h"
#include "ucov/port/port.h"

UCOV_NOTRACE void ucov_serve_end(void) {
  ucov_port_lock();
  ucov_gcov_run_max_forget();
  ucov_port_unlock();
}

static UCOV_NOTRACE uint32_t status_of(int err) {
  switch (err) {
  case -UCOV_ENOENT:
    return UCOV_ST_NO_OBJECT;
  case -UCOV_EOPNOTSUPP:
    return UCOV_ST_NOT_SUPPORTED;
  case -UCOV_ESHUTDOWN:
    return UCOV_ST_EXITING;
  default:
    return UCOV_ST_INTERNAL;
  }
}

static UCOV_NOTRACE int list_entry(const char *name, uint64_t size, void *arg) {
  struct ucov_sink *s = arg;
  uint8_t e[12];
  uint32_t len = 0;
  while (name[len])
    len++;
  ucov_put64(e, size);
  ucov_put32(e + 8, len);
  int err = s->write(s, e, sizeof(e));
  return err ? err : s->write(s, name, len);
}

/* (Long: one case per request, in the protocol's order of operations.) */
UCOV_NOTRACE uint32_t ucov_serve(const struct ucov_frame *f, const char *payload,
                                 struct ucov_sink *out, uint8_t errno_out[4]) {
  char name[UCOV_OBJECT_NAME_MAX + 1]; /* (no object has a longer one) */
  int named = f->op == UCOV_OP_SIZE || f->op == UCOV_OP_READ || f->op == UCOV_OP_RESET ||
              f->op == UCOV_OP_READ_AND_RESET || f->op == UCOV_OP_SNAPSHOT;
  uint32_t skip = f->op == UCOV_OP_SNAPSHOT ? 8 : 0; /* the token before the name */
  if (named) {
    /* A name: 1 to 4096 bytes, no NUL. */
    if (f->length <= skip || f->length > UCOV_PROTO_MAX_REQUEST)
      return UCOV_ST_BAD_REQUEST;
    for (uint32_t i = skip; i < f->length; i++)
      if (!payload[i])
        return UCOV_ST_BAD_REQUEST;
    if (f->length - skip > UCOV_OBJECT_NAME_MAX)
      return status_of(-UCOV_ENOENT);
    for (uint32_t i = skip; i < f->length; i++)
      name[i - skip] = payload[i];
    name[f->length - skip] = 0;
  } else if (f->length != 0 &&
             ((f->op >= UCOV_OP_LIST && f->op <= UCOV_OP_INFO) || f->op == UCOV_OP_DUMP)) {
    return UCOV_ST_BAD_REQUEST;
  }
  int err = 0;
  uint64_t size = 0;
  switch (f->op) {
  case UCOV_OP_LIST:
    err = ucov_objects_list(list_entry, out);
    break;
  case UCOV_OP_SIZE:
    err = ucov_object_size(name, &size);
    if (!err) {
      uint8_t b[8];
      ucov_put64(b, size);
      err = out->write(out, b, sizeof(b));
    }
    break;
  case UCOV_OP_READ:
  case UCOV_OP_READ_AND_RESET:
    err = ucov_object_read(name, out, f->op == UCOV_OP_READ_AND_RESET);
    break;
  case UCOV_OP_RESET:
    err = ucov_object_reset(name);
    break;
  case UCOV_OP_RESET_ALL:
    err = ucov_objects_reset_all();
    break;
  case UCOV_OP_MODULES:
    err = ucov_object_read("modules", out, 0);
    break;
  case UCOV_OP_INFO:
    err = ucov_port_info(out);
    break;
  case UCOV_OP_SNAPSHOT: {
    uint64_t token = ucov_get64((const uint8_t *)payload);
    err = ucov_object_snapshot(name, out, &token); /* the token, then the bytes */
    break;
  }
  case UCOV_OP_COMMIT:
    if (f->length != 12)
      return UCOV_ST_BAD_REQUEST;
    err = ucov_objects_commit(ucov_get64((const uint8_t *)payload),
                              ucov_get32((const uint8_t *)payload + 8));
    if (err >= 0) {
      uint8_t b[4];
      ucov_put32(b, (uint32_t)err);
      err = out->write(out, b, 4);
    }
    break;
  case UCOV_OP_DUMP: /* a port with files serves it (the POSIX control socket) */
    err = -UCOV_EOPNOTSUPP;
    break;
  case UCOV_OP_COMMAND:
    if (f->length < 4)
      return UCOV_ST_BAD_REQUEST;
    err = ucov_port_command(ucov_get32((const uint8_t *)payload), payload + 4, f->length - 4, out);
    break;
  default:
    return UCOV_ST_UNKNOWN_OP;
  }
  if (err == -UCOV_ESTALE || err == -UCOV_EINVAL || err == -UCOV_ENODATA) {
    ucov_put32(errno_out, (uint32_t)-err);
    return UCOV_ST_ERRNO;
  }
  return err ? status_of(err) : UCOV_ST_OK;
}

/* --- A byte transport (a kernel's serial line): frames read and written by the core. --- */

static UCOV_NOTRACE void send_reply(uint16_t op, uint32_t status, const void *data, size_t len) {
  uint8_t hdr[UCOV_PROTO_HEADER];
  ucov_frame_encode(hdr, op, status, (uint32_t)len);
  ucov_port_transport_write(hdr, sizeof(hdr));
  if (len)
    ucov_port_transport_write(data, len);
}

static UCOV_NOTRACE void send_error(uint16_t op, uint32_t status) {
  const char *msg = ucov_status_str(status);
  size_t n = 0;
  while (msg[n])
    n++;
  send_reply(op, status, msg, n);
}

/*
 * The next frame's magic. Between frames the line may carry anything (the
 * rest of a bad frame, noise): bytes are skipped until the magic's four come,
 * and a run of bytes that is not a frame gets one BAD_MAGIC reply.
 */
static UCOV_NOTRACE void read_magic(uint8_t hdr[4]) {
  unsigned n = 0;
  int complained = 0;
  for (;;) {
    int c = ucov_port_transport_read(1);
    if (c < 0)
      continue;
    if (n == 4) {
      hdr[0] = hdr[1];
      hdr[1] = hdr[2];
      hdr[2] = hdr[3];
      n = 3;
    }
    hdr[n++] = (uint8_t)c;
    if (n == 4 && ucov_get32(hdr) == UCOV_PROTO_MAGIC)
      return;
    if (n == 4 && !complained) {
      ucov_port_log("ucov: bytes on the line that are not a frame: answered, skipped");
      send_error(0, UCOV_ST_BAD_MAGIC);
      complained = 1;
    }
  }
}

UCOV_NOTRACE void ucov_serve_transport(void) {
  static char payload[UCOV_PROTO_MAX_REQUEST];
  uint8_t hdr[UCOV_PROTO_HEADER];
  read_magic(hdr);
  for (int i = 4; i < UCOV_PROTO_HEADER; i++) {
    int c = ucov_port_transport_read(0);
    if (c < 0) {
      send_error(0, UCOV_ST_TRUNCATED);
      return;
    }
    hdr[i] = (uint8_t)c;
  }
  struct ucov_frame f;
  ucov_frame_decode(hdr, &f);
  uint32_t st = ucov_frame_check(&f);
  if (st != UCOV_ST_OK) { /* what follows is skipped up to the next magic */
    send_error(f.op, st);
    return;
  }
  for (uint32_t i = 0; i < f.length; i++) {
    int c = ucov_port_transport_read(0);
    if (c < 0) {
      send_error(f.op, UCOV_ST_TRUNCATED);
      return;
    }
    payload[i] = (char)c;
  }
  struct ucov_buf_sink out;
  ucov_buf_sink_init(&out);
  uint8_t eno[4];
  st = ucov_serve(&f, payload, &out.sink, eno);
  if (st == UCOV_ST_OK)
    send_reply(f.op, st, out.buf, out.len);
  else if (st == UCOV_ST_ERRNO)
    send_reply(f.op, st, eno, sizeof(eno));
  else
    send_error(f.op, st);
  ucov_port_free(out.buf);
  ucov_serve_end(); /* (a line has no sessions: each request is one) */
}
