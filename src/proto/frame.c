/* SPDX-License-Identifier: MIT */
/* The control protocol's frames, freestanding (the ucov command uses them too). */
#include "ucov/port/frame.h"

static UCOV_NOTRACE void put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

UCOV_NOTRACE void ucov_frame_encode(uint8_t out[UCOV_PROTO_HEADER], uint16_t op, uint32_t status,
                                    uint32_t length) {
  ucov_put32(out, UCOV_PROTO_MAGIC);
  put16(out + 4, UCOV_PROTO_VERSION);
  put16(out + 6, op);
  ucov_put32(out + 8, status);
  ucov_put32(out + 12, length);
}

UCOV_NOTRACE void ucov_frame_decode(const uint8_t in[UCOV_PROTO_HEADER], struct ucov_frame *f) {
  f->magic = ucov_get32(in);
  f->version = (uint16_t)(in[4] | in[5] << 8);
  f->op = (uint16_t)(in[6] | in[7] << 8);
  f->status = ucov_get32(in + 8);
  f->length = ucov_get32(in + 12);
}

UCOV_NOTRACE const char *ucov_status_str(uint32_t status) {
  static const char *const names[] = {
      "ok",
      "bad magic",
      "unsupported protocol version",
      "frame too large",
      "truncated frame",
      "unknown operation",
      "bad request",
      "no such object",
      "not supported for this object",
      "permission denied",
      "internal error",
      "target is exiting",
      "operation failed (errno in the payload)",
  };
  return status < sizeof(names) / sizeof(names[0]) ? names[status] : "unknown status";
}

UCOV_NOTRACE uint32_t ucov_frame_check(const struct ucov_frame *f) {
  if (f->magic != UCOV_PROTO_MAGIC)
    return UCOV_ST_BAD_MAGIC;
  if (f->version != UCOV_PROTO_VERSION)
    return UCOV_ST_BAD_VERSION;
  if (f->status != 0)
    return UCOV_ST_BAD_REQUEST;
  if (f->length > UCOV_PROTO_MAX_REQUEST)
    return UCOV_ST_TOO_LARGE;
  return UCOV_ST_OK;
}
