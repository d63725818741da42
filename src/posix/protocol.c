/* SPDX-License-Identifier: MIT */
/* Control protocol helpers shared by the target's server and the ucov command. */
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../core/compiler.h"

static UCOV_NOTRACE void put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static UCOV_NOTRACE void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static UCOV_NOTRACE uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

UCOV_NOTRACE void ucov_frame_encode(uint8_t out[UCOV_PROTO_HEADER], uint16_t op, uint32_t status,
                                    uint32_t length) {
  put32(out, UCOV_PROTO_MAGIC);
  put16(out + 4, UCOV_PROTO_VERSION);
  put16(out + 6, op);
  put32(out + 8, status);
  put32(out + 12, length);
}

UCOV_NOTRACE void ucov_frame_decode(const uint8_t in[UCOV_PROTO_HEADER], struct ucov_frame *f) {
  f->magic = get32(in);
  f->version = (uint16_t)(in[4] | in[5] << 8);
  f->op = (uint16_t)(in[6] | in[7] << 8);
  f->status = get32(in + 8);
  f->length = get32(in + 12);
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

UCOV_NOTRACE int ucov_control_dir(char *out, size_t len) {
  const char *dir = getenv("UCOV_RUNTIME_DIR");
  int n;
  if (dir && *dir) {
    n = snprintf(out, len, "%s", dir);
  } else if ((dir = getenv("XDG_RUNTIME_DIR")) && *dir) {
    n = snprintf(out, len, "%s/ucov", dir);
  } else {
    n = snprintf(out, len, "/tmp/ucov-%u", (unsigned)geteuid());
  }
  return n > 0 && (size_t)n < len ? 0 : -1;
}

UCOV_NOTRACE int ucov_control_path(pid_t pid, char *out, size_t len) {
  char dir[256];
  if (ucov_control_dir(dir, sizeof(dir)))
    return -1;
  int n = snprintf(out, len, "%s/%d.sock", dir, (int)pid);
  return n > 0 && (size_t)n < len ? 0 : -1;
}
