/* SPDX-License-Identifier: MIT */
/*
 * Traces one parse of REQUEST into a KCOV device (PC mode), disables it,
 * prints "ready" and waits for a line on stdin: the device's buffer stays
 * a trace object (kcov/<id>.kcov) of the control plane meanwhile.
 * usage: trace_hold REQUEST
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "httpreq.h"
#include "ucov/kcov.h"
#include "ucov/ucov.h"

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, 4096))
    return 1;
  unsigned long *cover = ucov_mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED || ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    return 1;
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  struct http_request req;
  int err = http_parse(argv[1], strlen(argv[1]), &req);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  printf("ready %d %lu\n", err, cover[0]);
  fflush(stdout);
  char line[16];
  if (!fgets(line, sizeof(line), stdin))
    return 0;
  return 0;
}
