/* SPDX-License-Identifier: MIT */
/*
 * The program of the dso test (tests/e2e/dso.sh): calls a function of its
 * own and one of a shared library, under a KCOV device of the given mode
 * (none, pc, ext, unique), writes the PCs (hex, one a line) and the module
 * map, prints "ready N" and waits for a line on stdin (the control plane
 * serves it meanwhile). In ext mode it also writes PCS.ext, one line per
 * ENTRY or EXIT record: "entry|exit MODULE SYMBOL" (dladdr's names, "?" for
 * a symbol it does not know). The ucov API is looked up with dlsym, so the program
 * need not link a runtime: the one the process has answers, the program's
 * or libucov.so, which the library brings.
 * usage: dso_main MODE PCS MODULES
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucov/kcov.h"

int lib_work(int x);

static int exe_work(int x) {
  return x > 2 ? x * 3 : x + 1;
}

/* PCS.ext: the ENTRY and EXIT records of trace t, by module and symbol. */
static int write_ext(const char *pcs, const uint64_t *t) {
  char path[4096];
  snprintf(path, sizeof(path), "%s.ext", pcs);
  FILE *f = fopen(path, "w");
  if (!f)
    return 1;
  for (uint64_t i = 0, n = __atomic_load_n(&t[0], __ATOMIC_RELAXED); i < n; i++) {
    uint64_t type = KCOV_RECORD_TYPE(t[1 + i]);
    if (type != KCOV_RECORD_ENTRY && type != KCOV_RECORD_EXIT)
      continue;
    Dl_info info;
    const char *mod = "?", *sym = "?";
    if (dladdr((void *)(uintptr_t)KCOV_RECORD_IP(t[1 + i]), &info)) {
      mod = info.dli_fname
                ? (strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname)
                : "?";
      sym = info.dli_sname ? info.dli_sname : "?";
    }
    fprintf(f, "%s %s %s\n", type == KCOV_RECORD_ENTRY ? "entry" : "exit", mod, sym);
  }
  return fclose(f) ? 1 : 0;
}

#define SIZE (1u << 20) /* words */
#define WORDS 4096      /* UNIQUE bitmap words */

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  const char *mode = argv[1];
  int (*u_open)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "ucov_open");
  int (*u_ioctl)(int, unsigned long, unsigned long) =
      (int (*)(int, unsigned long, unsigned long))dlsym(RTLD_DEFAULT, "ucov_ioctl");
  void *(*u_mmap)(void *, size_t, int, int, int, off_t) =
      (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_DEFAULT, "ucov_mmap");
  int (*u_modules_write)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "ucov_modules_write");
  if (!u_open || !u_ioctl || !u_mmap || !u_modules_write) {
    fprintf(stderr, "dso_main: no ucov runtime in the process\n");
    return 1;
  }
  int fd = -1;
  uint64_t *buf = NULL;
  if (strcmp(mode, "none") != 0) {
    fd = u_open();
    if (fd < 0 || u_ioctl(fd, KCOV_INIT_TRACE, SIZE))
      return 1;
    buf = u_mmap(NULL, SIZE * 8ul, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (buf == MAP_FAILED)
      return 1;
    int err = !strcmp(mode, "unique") ? u_ioctl(fd, KCOV_UNIQUE_ENABLE, WORDS)
              : !strcmp(mode, "ext")  ? u_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC_EXT)
                                      : u_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC);
    if (err)
      return 1;
    __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
  }
  int r = exe_work(argc) + lib_work(argc + 4);
  FILE *pcs = fopen(argv[2], "w");
  if (!pcs)
    return 1;
  if (buf) {
    u_ioctl(fd, KCOV_DISABLE, 0);
    uint64_t *t = !strcmp(mode, "unique") ? buf + WORDS : buf;
    for (uint64_t i = 0, n = __atomic_load_n(&t[0], __ATOMIC_RELAXED); i < n; i++)
      fprintf(pcs, "0x%llx\n", (unsigned long long)KCOV_RECORD_IP(t[1 + i]));
    if (!strcmp(mode, "ext") && write_ext(argv[2], t))
      return 1;
  }
  fclose(pcs);
  int mfd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (mfd < 0 || u_modules_write(mfd))
    return 1;
  close(mfd);
  printf("ready %d\n", r);
  fflush(stdout);
  char line[16];
  if (!fgets(line, sizeof(line), stdin))
    return 0;
  return 0;
}
