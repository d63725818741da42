/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's frames (docs/protocol.md), freestanding: the same
 * bytes over a Unix socket (the POSIX port) or a serial line (a kernel).
 * A 16-byte header, little-endian: magic u32, version u16, op u16, status u32
 * (0 in requests), length u32; then length bytes of payload.
 */
#ifndef UCOV_FRAME_H
#define UCOV_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/port/sink.h"

#define UCOV_PROTO_MAGIC 0x564f4355u /* "UCOV" */
#define UCOV_PROTO_VERSION 1
#define UCOV_PROTO_HEADER 16
#define UCOV_PROTO_MAX_REQUEST 4096 /* request payload limit */

struct ucov_frame {
  uint32_t magic;
  uint16_t version;
  uint16_t op;
  uint32_t status;
  uint32_t length;
};

enum ucov_op {
  UCOV_OP_LIST = 1,           /* -> entries {u64 size, u32 name length, name} */
  UCOV_OP_SIZE = 2,           /* name -> u64 */
  UCOV_OP_READ = 3,           /* name -> bytes */
  UCOV_OP_RESET = 4,          /* name -> nothing */
  UCOV_OP_READ_AND_RESET = 5, /* name -> bytes, and the object reset to them */
  UCOV_OP_RESET_ALL = 6,      /* -> nothing */
  UCOV_OP_MODULES = 7,        /* -> module map text */
  UCOV_OP_INFO = 8,           /* -> "key=value\n" lines */
  UCOV_OP_REMOTE_ENABLE = 9,  /* (POSIX) struct kcov_remote_arg + a device fd -> nothing */
  UCOV_OP_COMMAND = 10,       /* u32 flags, command text -> the target's answer (a kernel's) */
  UCOV_OP_SNAPSHOT = 11,      /* u64 token (0: new), name -> u64 token, the object's bytes */
  UCOV_OP_COMMIT = 12,        /* u64 token, u32 objects -> u32 (0: committed, 1: already) */
  UCOV_OP_DUMP = 13,          /* (POSIX) -> nothing: .gcda written where the exit writes them */
};

/* UCOV_OP_COMMAND flags. */
#define UCOV_COMMAND_TRACE 1u /* trace the command (KCOV_TRACE_PC) and return its PCs */

enum ucov_status {
  UCOV_ST_OK = 0,
  UCOV_ST_BAD_MAGIC = 1,
  UCOV_ST_BAD_VERSION = 2,
  UCOV_ST_TOO_LARGE = 3,
  UCOV_ST_TRUNCATED = 4,
  UCOV_ST_UNKNOWN_OP = 5,
  UCOV_ST_BAD_REQUEST = 6,
  UCOV_ST_NO_OBJECT = 7,
  UCOV_ST_NOT_SUPPORTED = 8,
  UCOV_ST_PERMISSION = 9,
  UCOV_ST_INTERNAL = 10,
  UCOV_ST_EXITING = 11, /* the target wrote its final counts and is exiting */
  UCOV_ST_ERRNO = 12,   /* the operation failed: payload = u32 errno (Linux numbering) */
};

/* Little-endian words of frames and payloads. */
static inline void ucov_put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ucov_put64(uint8_t *p, uint64_t v) {
  ucov_put32(p, (uint32_t)v);
  ucov_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t ucov_get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ucov_get64(const uint8_t *p) {
  return (uint64_t)ucov_get32(p) | (uint64_t)ucov_get32(p + 4) << 32;
}

const char *ucov_status_str(uint32_t status) UCOV_PORT_API;
void ucov_frame_encode(uint8_t out[UCOV_PROTO_HEADER], uint16_t op, uint32_t status,
                       uint32_t length) UCOV_PORT_API;
void ucov_frame_decode(const uint8_t in[UCOV_PROTO_HEADER], struct ucov_frame *f) UCOV_PORT_API;

/*
 * Check a request header: UCOV_ST_OK, or the error to answer (bad magic,
 * version, a status word in a request, a payload over the limit).
 */
uint32_t ucov_frame_check(const struct ucov_frame *f) UCOV_PORT_API;

/*
 * Serve one request whose header passed ucov_frame_check: the reply payload
 * goes to out and the reply status is returned. On an error status out may
 * hold part of a payload; the transport sends ucov_status_str() instead, or
 * for UCOV_ST_ERRNO the 4-byte errno in *errno_out (Linux numbering).
 * After UCOV_ST_BAD_REQUEST or UCOV_ST_UNKNOWN_OP a socket is closed.
 * REMOTE_ENABLE is the POSIX port's (it passes a descriptor).
 */
uint32_t ucov_serve(const struct ucov_frame *f, const char *payload, struct ucov_sink *out,
                    uint8_t errno_out[4]) UCOV_PORT_API;

/*
 * A client's session (its connection, its open file) ended. The reads of one
 * session share what is measured program-wide once (a gcov summary's run
 * maximum, as libgcov measures it once per dump), so that reading every
 * object costs linear time; a port that serves several requests per client
 * calls this when the client goes. (Without it the measure is taken again
 * at each listing and whenever counts are reset.)
 */
void ucov_serve_end(void) UCOV_PORT_API;

/*
 * Serve one request from the port's byte transport (ucov_port_transport_read
 * and _write: a kernel's serial line), as docs/protocol.md says for serial
 * lines: bytes that are not a frame get one BAD_MAGIC reply and are skipped to
 * the next magic, a frame that stops midway gets TRUNCATED, every error its
 * status, and nothing ends the line. A kernel calls it in its main loop.
 */
void ucov_serve_transport(void) UCOV_PORT_API;

#endif
