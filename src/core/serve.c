/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's requests, served the same way by every port: the
 * objects, the module map, and INFO and COMMAND through the port.
 */
#include "frame.h"
#include "objects.h"
#include "ucov/port.h"

static UCOV_NOTRACE void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static UCOV_NOTRACE uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
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
  for (int i = 0; i < 8; i++)
    e[i] = (uint8_t)(size >> (8 * i));
  put32(e + 8, len);
  int err = s->write(s, e, sizeof(e));
  return err ? err : s->write(s, name, len);
}

UCOV_NOTRACE uint32_t ucov_serve(const struct ucov_frame *f, const char *payload,
                                 struct ucov_sink *out) {
  char name[UCOV_PROTO_MAX_REQUEST + 1];
  int named = f->op == UCOV_OP_SIZE || f->op == UCOV_OP_READ || f->op == UCOV_OP_RESET ||
              f->op == UCOV_OP_READ_AND_RESET;
  if (named) {
    /* A name: 1 to 4096 bytes, no NUL. */
    if (f->length == 0 || f->length > UCOV_PROTO_MAX_REQUEST)
      return UCOV_ST_BAD_REQUEST;
    for (uint32_t i = 0; i < f->length; i++) {
      if (!payload[i])
        return UCOV_ST_BAD_REQUEST;
      name[i] = payload[i];
    }
    name[f->length] = 0;
  } else if (f->length != 0 && f->op >= UCOV_OP_LIST && f->op <= UCOV_OP_INFO) {
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
    for (int i = 0; !err && i < 8; i++) {
      uint8_t b = (uint8_t)(size >> (8 * i));
      err = out->write(out, &b, 1);
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
  case UCOV_OP_COMMAND:
    if (f->length < 4)
      return UCOV_ST_BAD_REQUEST;
    err = ucov_port_command(get32((const uint8_t *)payload), payload + 4, f->length - 4, out);
    break;
  default:
    return UCOV_ST_UNKNOWN_OP;
  }
  return err ? status_of(err) : UCOV_ST_OK;
}
