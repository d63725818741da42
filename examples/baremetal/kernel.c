/* SPDX-License-Identifier: MIT */
/*
 * A small multiboot kernel that links the ucov core: it serves the control
 * protocol's frames on COM1 (docs/protocol.md, the same bytes as the control
 * socket), and runs instrumented subsystems (a parser, a scheduler, an
 * allocator) on the host's COMMAND requests. Nothing a host sends stops it:
 * a bad frame gets an error reply and the line is read on to the next magic.
 */
#include "core/frame.h"
#include "core/sink.h"
#include "hw.h"

/* Idle polls of the line that end a frame early (TRUNCATED): about a second. */
#define PATIENCE 1000000u

struct buf_sink {
  struct ucov_sink sink;
  uint8_t *buf;
  size_t len, cap;
};

static int buf_write(struct ucov_sink *s, const void *data, size_t n) {
  struct buf_sink *b = (struct buf_sink *)s;
  if (n > b->cap - b->len)
    return -12; /* ENOMEM: the reply does not fit */
  const uint8_t *p = data;
  for (size_t i = 0; i < n; i++)
    b->buf[b->len + i] = p[i];
  b->len += n;
  return 0;
}

static uint8_t reply_buf[4u << 20];
static char payload[UCOV_PROTO_MAX_REQUEST];

static void reply(uint16_t op, uint32_t status, const void *data, size_t len) {
  uint8_t hdr[UCOV_PROTO_HEADER];
  ucov_frame_encode(hdr, op, status, (uint32_t)len);
  serial_write(hdr, sizeof(hdr));
  serial_write(data, len);
}

static void reply_error(uint16_t op, uint32_t status) {
  const char *msg = ucov_status_str(status);
  size_t n = 0;
  while (msg[n])
    n++;
  reply(op, status, msg, n);
}

/*
 * The next frame's magic. Between frames the line may carry anything (the rest
 * of a bad frame, noise): bytes are skipped until the four of the magic come,
 * and a run of bytes that is not a frame gets one BAD_MAGIC reply.
 */
static void read_magic(uint8_t hdr[4]) {
  unsigned n = 0;
  int complained = 0;
  for (;;) {
    int c = serial_read(0);
    if (n == 4) {
      hdr[0] = hdr[1];
      hdr[1] = hdr[2];
      hdr[2] = hdr[3];
      n = 3;
    }
    hdr[n++] = (uint8_t)c;
    if (n < 4)
      continue;
    uint32_t m =
        (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
    if (m == UCOV_PROTO_MAGIC)
      return;
    if (!complained) {
      debug_print("ucov: bytes on the serial line that are not a frame: answered, skipped\n");
      reply_error(0, UCOV_ST_BAD_MAGIC);
      complained = 1;
    }
  }
}

static void serve_one(void) {
  uint8_t hdr[UCOV_PROTO_HEADER];
  read_magic(hdr);
  for (int i = 4; i < UCOV_PROTO_HEADER; i++) {
    int c = serial_read(PATIENCE);
    if (c < 0) {
      reply_error(0, UCOV_ST_TRUNCATED);
      return;
    }
    hdr[i] = (uint8_t)c;
  }
  struct ucov_frame f;
  ucov_frame_decode(hdr, &f);
  uint32_t st = ucov_frame_check(&f);
  if (st != UCOV_ST_OK) { /* what follows is skipped up to the next magic */
    reply_error(f.op, st);
    return;
  }
  for (uint32_t i = 0; i < f.length; i++) {
    int c = serial_read(PATIENCE);
    if (c < 0) {
      reply_error(f.op, UCOV_ST_TRUNCATED);
      return;
    }
    payload[i] = (char)c;
  }
  struct buf_sink out = {{buf_write}, reply_buf, 0, sizeof(reply_buf)};
  st = ucov_serve(&f, payload, &out.sink);
  if (st == UCOV_ST_OK)
    reply(f.op, st, out.buf, out.len);
  else
    reply_error(f.op, st);
}

void serve_forever(void) {
  for (;;)
    serve_one();
}

void kmain(void);

void kmain(void) {
  serial_init();
  debug_print("ucov bare-metal kernel: serving the control protocol on COM1\n");
  serve_forever();
}
