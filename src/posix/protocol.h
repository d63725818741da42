/* SPDX-License-Identifier: MIT */
/*
 * The control protocol (docs/protocol.md): length-prefixed, versioned binary
 * frames over a Unix stream socket, shared by the target's server and the
 * ucov command. Integers are little-endian.
 */
#ifndef UCOV_POSIX_PROTOCOL_H
#define UCOV_POSIX_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UCOV_PROTO_MAGIC 0x564f4355u /* "UCOV" */
#define UCOV_PROTO_VERSION 1
#define UCOV_PROTO_HEADER 16
#define UCOV_PROTO_MAX_REQUEST 4096 /* request payload limit */

/* Header: magic u32, version u16, op u16, status u32 (0 in requests), length u32. */
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
  UCOV_OP_INFO = 8,           /* -> "key=value\n" lines: pid, exe, version */
  UCOV_OP_REMOTE_ENABLE = 9,  /* struct kcov_remote_arg + a device fd (SCM_RIGHTS) -> nothing */
};

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

const char *ucov_status_str(uint32_t status);

void ucov_frame_encode(uint8_t out[UCOV_PROTO_HEADER], uint16_t op, uint32_t status,
                       uint32_t length);
void ucov_frame_decode(const uint8_t in[UCOV_PROTO_HEADER], struct ucov_frame *f);

/*
 * The control socket path of process pid: $UCOV_RUNTIME_DIR, else
 * $XDG_RUNTIME_DIR/ucov, else /tmp/ucov-<uid>; then "/<pid>.sock".
 * Returns 0, or -1 if it does not fit.
 */
int ucov_control_dir(char *out, size_t len);
int ucov_control_path(pid_t pid, char *out, size_t len);

#endif
