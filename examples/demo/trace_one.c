/* SPDX-License-Identifier: MIT */
/*
 * trace_one: trace one call of the demo parser with a KCOV device and print
 * what it recorded, one record a line, PC first (for `ucov symbolize`):
 *   pc:  0xPC
 *   cmp: 0xPC cmpN [const] 0xARG1 0xARG2
 *   ext: 0xPC entry|exit|normal
 *   unique: 0xPC (KCOV_UNIQUE_ENABLE: each PC once, in order of first hit)
 * This file is built without instrumentation; only httpreq.c is traced.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ucov/ucov.h>

#include "httpreq.h"
#include "unescape.h"

#define COVER_SIZE (64 << 10)
#define UNIQUE_WORDS 1024 /* the bitmap of KCOV_UNIQUE_ENABLE, before the trace */

static void usage(void) {
  fprintf(stderr, "usage: trace_one [--mode pc|cmp|ext|unique] [--modules FILE] REQUEST\n"
                  "REQUEST may use \\r, \\n, \\t and \\\\ escapes.\n");
  exit(2);
}

int main(int argc, char **argv) {
  unsigned long mode = KCOV_TRACE_PC;
  int unique = 0;
  const char *modules = NULL;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
      const char *m = argv[++i];
      mode = !strcmp(m, "pc")       ? KCOV_TRACE_PC
             : !strcmp(m, "cmp")    ? KCOV_TRACE_CMP
             : !strcmp(m, "ext")    ? KCOV_TRACE_PC_EXT
             : !strcmp(m, "unique") ? (unique = 1, KCOV_TRACE_PC)
                                    : (usage(), 0);
    } else if (!strcmp(argv[i], "--modules") && i + 1 < argc) {
      modules = argv[++i];
    } else {
      usage();
    }
  }
  if (i + 1 != argc)
    usage();
  char *req_text = argv[i];
  size_t len = unescape(req_text);

  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE) != 0) {
    perror("ucov");
    return 1;
  }
  uint64_t *cover = mmap(NULL, COVER_SIZE * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (cover == MAP_FAILED || (unique ? ucov_ioctl(fd, KCOV_UNIQUE_ENABLE, UNIQUE_WORDS)
                                     : ucov_ioctl(fd, KCOV_ENABLE, mode)) != 0) {
    perror("ucov");
    return 1;
  }
  uint64_t *trace = unique ? cover + UNIQUE_WORDS : cover; /* count, then records */
  struct http_request req;
  __atomic_store_n(&trace[0], 0, __ATOMIC_RELAXED);
  int err = http_parse(req_text, len, &req);
  uint64_t n = __atomic_load_n(&trace[0], __ATOMIC_RELAXED);
  ucov_ioctl(fd, KCOV_DISABLE, 0);

  fprintf(stderr, "http_parse: %s%s, %llu records\n", http_strerror(err),
          req.magic ? " (magic!)" : "", (unsigned long long)n);
  for (uint64_t k = 0; k < n; k++) {
    if (mode == KCOV_TRACE_CMP) {
      const uint64_t *r = &cover[1 + k * 4];
      printf("0x%llx cmp%d%s 0x%llx 0x%llx\n", (unsigned long long)r[3],
             8 << ((r[0] & KCOV_CMP_MASK) >> 1), (r[0] & KCOV_CMP_CONST) ? " const" : "",
             (unsigned long long)r[1], (unsigned long long)r[2]);
    } else if (mode == KCOV_TRACE_PC_EXT) {
      uint64_t t = KCOV_RECORD_TYPE(cover[k + 1]);
      printf("0x%llx %s\n", (unsigned long long)KCOV_RECORD_IP(cover[k + 1]),
             t == KCOV_RECORD_ENTRY  ? "entry"
             : t == KCOV_RECORD_EXIT ? "exit"
                                     : "normal");
    } else {
      printf("0x%llx\n", (unsigned long long)trace[k + 1]);
    }
  }
  if (modules) {
    int mfd = open(modules, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (mfd < 0 || ucov_modules_write(mfd) != 0) {
      perror(modules);
      return 1;
    }
    close(mfd);
  }
  munmap(cover, COVER_SIZE * 8);
  ucov_close(fd);
  return 0;
}
