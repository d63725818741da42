/* SPDX-License-Identifier: MIT */
/*
 * The command's side of the control protocol: what a hostile target (or a
 * serial line's noise) answers. Input: a first byte choosing a socket or a
 * serial line (bit 0), then the bytes the peer sends, read as the replies of
 * a LIST (its objects decoded) and of a READ.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "proto/client.h"
#include "ucov/port/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int sv[2];
  if (size < 1 || size > 65536 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
    return 0;
  int room = 4 * 65536;
  setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &room, sizeof(room));
  if (ucov_write_full(sv[1], data + 1, size - 1) == 0) {
    shutdown(sv[1], SHUT_WR);
    struct ucov_ctl c = {.fd = sv[0], .serial = data[0] & 1};
    snprintf(c.label, sizeof(c.label), "fuzz");
    struct ucov_ctl_reply r;
    char err[256];
    if (ucov_ctl_call(&c, UCOV_OP_LIST, NULL, 0, &r, err, sizeof(err)) == 0) {
      struct ucov_ctl_object *objs = NULL;
      long n = r.status == UCOV_ST_OK ? ucov_ctl_parse_list(&r, &objs) : -1;
      if (n >= 0)
        ucov_ctl_objects_free(objs, n);
      ucov_ctl_reply_free(&r);
    }
    if (ucov_ctl_call(&c, UCOV_OP_READ, "kcov/1.kcov", 11, &r, err, sizeof(err)) == 0)
      ucov_ctl_reply_free(&r);
  }
  close(sv[0]);
  close(sv[1]);
  return 0;
}
